"""What the Plan panel draws, from sweep rows (plain dicts, one per finished point): the
cost-vs-p99-TTFT scatter with its Pareto front, capacity against replicas, and the values
a row hands to the Serving replay. Pure Python and numpy: no Qt here, so it is tested
like core code (the panel only draws what these return)."""
from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

from core.sweep.summary import pareto

# Column names as core.sweep writes them (core/sweep/summary.py reads the same ones).
COST = ("cost_per_million_output_tokens",)
P99_TTFT = ("p99_ttft_ms",)
POINT_KEY = ("point", "point_key", "key")
MAX_RATE = ("search.max_rate_per_s",)
REPLICAS = ("param.replicas",)
PARAM = "param."  # a row's parameter columns: param.<name> (core/sweep/serving.py make_row)


def first(row: Mapping[str, Any], names: Iterable[str], default: Any = None) -> Any:
    """The value of the first of names that row holds."""
    for name in names:
        if name in row and row[name] is not None:
            return row[name]
    return default


def number(value: Any) -> float:
    """value as a float, NaN when it is missing or not a number (a failed point)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return math.nan
    return x


def param(row: Mapping[str, Any], name: str, default: Any = None) -> Any:
    """The row's value of parameter name (its param.<name> column)."""
    value = row.get(PARAM + name)
    return default if value is None else value


def point_key(row: Mapping[str, Any]) -> str:
    return str(first(row, POINT_KEY, ""))


def pareto_figure(rows: list[Mapping[str, Any]], knobs: Iterable[str] = ()) -> dict[str, Any]:
    """Every finished point (x = cost per million output tokens in USD, y = p99 TTFT in s)
    and the front, by core.sweep.summary's own rule (nothing both cheaper and faster):
    {'x', 'y', 'keys', 'front_x', 'front_y', 'front_keys', 'front_labels'}, the front
    ordered by cost; a front point's label is its swept knobs' values ('4 / 64')."""
    shown = []
    for r in rows:
        x, y = number(first(r, COST)), number(first(r, P99_TTFT))
        if math.isfinite(x) and math.isfinite(y):
            shown.append({COST[0]: x, P99_TTFT[0]: y, "key": point_key(r),
                          "label": " / ".join(cell_text(param(r, k)) for k in knobs)})
    front = sorted(pareto(shown), key=lambda i: (i[COST[0]], i[P99_TTFT[0]]))
    return {"x": [i[COST[0]] for i in shown], "y": [i[P99_TTFT[0]] / 1000.0 for i in shown],
            "keys": [i["key"] for i in shown],
            "front_x": [i[COST[0]] for i in front], "front_y": [i[P99_TTFT[0]] / 1000.0 for i in front],
            "front_keys": [i["key"] for i in front], "front_labels": [i["label"] for i in front]}


def capacity_figure(rows: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Capacity against replicas when a search ran: every point ('x' replicas, 'y' its max
    rate in requests/s, 'keys') and the best over the other knobs per replica count
    ('best_x', 'best_y'). Empty lists when no row carries a max rate."""
    xs, ys, keys = [], [], []
    for r in rows:
        rate = number(first(r, MAX_RATE))
        if math.isnan(rate):
            continue
        xs.append(number(first(r, REPLICAS, 1)))
        ys.append(rate)
        keys.append(point_key(r))
    best: dict[float, float] = {}
    for x, y in zip(xs, ys):
        best[x] = max(best.get(x, -math.inf), y)
    best_x = sorted(best)
    return {"x": xs, "y": ys, "keys": keys, "best_x": best_x, "best_y": [best[x] for x in best_x]}


def serving_values(row: Mapping[str, Any], replay_params: Iterable[str]) -> dict[str, Any]:
    """The row's values of the Serving replay's parameters (its param.<name> columns; lists
    stored as JSON text come back as lists), for opening the point in the Serving panel."""
    values: dict[str, Any] = {}
    for name in replay_params:
        value = row.get(PARAM + name)
        if value is None:
            continue
        if isinstance(value, str) and value[:1] in "[{":
            try:
                value = json.loads(value)
            except ValueError:
                pass
        if isinstance(value, float) and math.isnan(value):
            continue
        values[name] = value
    return values


def cell_text(value: Any) -> str:
    """A table cell: numbers to 4 significant digits (whole above 1000), the rest as written."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "—"
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(cell_text(v) for v in value)
    return str(value)
