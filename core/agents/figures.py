"""What the Multi-turn & Agents panel draws (§3.2), computed here once per change of a card.
Each function takes the card's checked inputs and the result computed from them."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from core.format import format_value
from core.units import GiB, format_seconds

LANES = {"serial": 1.0, "parallel": 0.0}  # y of each lane in 图 3-11 / 3-12
AMDAHL_SPEEDUPS = np.logspace(0, 3, 200)  # 1× .. 1000×
AMDAHL_TICKS = (1, 2, 4, 10, 30, 100, 1000)


def amdahl_ticks() -> list[tuple[float, str]]:
    """Speed-up axis ticks at log10 positions (the plot's x is in log mode)."""
    return [(float(np.log10(x)), f"{x:g}×") for x in AMDAHL_TICKS]

Figure = dict[str, Any]


def edit_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> Figure:
    """The reused prefix, the recomputed rest and the appended tokens as bars on one row;
    the edit handle at the first changed token, with its bounds."""
    n, added = inputs["context_tokens"], inputs["appended_tokens"]
    reused = result["reusable_prefix_tokens"]
    return {
        "reused": (0, reused), "invalid": (reused, n), "appended": (n, n + added),
        "handle": reused, "handle_bounds": (0, n),
        "text": f"reused {reused:,} · recompute {result['recompute_tokens']:,} tokens ({result['reuse_fraction']:.1%} hit)",
        "text_pos": (0, 1.5), "x_range": (0, max(n + added, 1)),
    }


def edit_position_of(handle: float) -> int:
    """The 1-based first changed token for the handle dragged to `handle` reused tokens."""
    return int(round(handle)) + 1


def path_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> Figure:
    """Per lane: model calls, tool calls (x0, x1, y0, y1 lists), the span state is held, the
    label at the lane's end; tools run one after the other (serial) or side by side."""
    m1, a, b, m2 = inputs["model_before_s"], inputs["tool_a_s"], inputs["tool_b_s"], inputs["model_after_s"]
    layouts: dict[str, tuple[list[Any], list[Any], Any]] = {
        "serial": ([(0, m1), (m1 + a + b, m1 + a + b + m2)], [(m1, m1 + a, 0), (m1 + a, m1 + a + b, 0)], (m1, m1 + a + b)),
        "parallel": ([(0, m1), (m1 + max(a, b), m1 + max(a, b) + m2)], [(m1, m1 + a, 0.17), (m1, m1 + b, -0.17)],
                     (m1, m1 + max(a, b))),
    }
    lanes = {}
    for lane, (models, tools, held) in layouts.items():
        y = LANES[lane]
        half = 0.25 if lane == "serial" else 0.14
        total = result["serial_s"] if lane == "serial" else result["parallel_s"]
        lanes[lane] = {
            "model": {"x0": [s for s, _ in models], "x1": [e for _, e in models], "y0": [y - 0.25] * 2, "y1": [y + 0.25] * 2},
            "tool": {"x0": [s for s, _, _ in tools], "x1": [e for _, e, _ in tools],
                     "y0": [y + dy - half for _, _, dy in tools], "y1": [y + dy + half for _, _, dy in tools]},
            "held": held, "text": f"{format_seconds(total)} · {format_value(result[f'{lane}_state_byte_s'], 'byte*s')}",
            "text_pos": (total, y),
        }
    return {"lanes": lanes, "x_range": (0, result["serial_s"] * 1.3 or 1.0)}


def amdahl_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> Figure:
    """Saved share (%) against the part's speed-up, your point on it, the cap f."""
    f = inputs["part_fraction"]
    return {
        "speedups": AMDAHL_SPEEDUPS, "saved_pct": 100 * f * (1 - 1 / AMDAHL_SPEEDUPS),
        "point": ([inputs["speedup"]], [100 * result["saved_fraction"]]),
        "cap_pct": 100 * f, "cap_text": f"cap = f = {f:.1%}", "y_range": (0, max(f, 0.05) * 115),
    }


def branch_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> Figure:
    """Two stacked bars in GiB: shared prefix once + the branches' own tokens, against a copy
    of the prefix per branch + the same branch tokens; totals labelled on top."""
    prefix = inputs["kv_bytes_per_token"] * inputs["shared_prefix_tokens"] / GiB
    branches = result["state_bytes"] / GiB - prefix
    totals = [result["state_bytes"] / GiB, result["unshared_state_bytes"] / GiB]
    base = [prefix, totals[1] - branches]
    return {"base": base, "branches": [branches, branches], "totals": totals,
            "labels": [(format_value(t * GiB, "bytes"), (x, t)) for x, t in zip((0, 1), totals)], "y_range": (0, max(totals) * 1.2 or 1.0)}
