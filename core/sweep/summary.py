"""summary.json of a sweep: how many points (done, reused, computed, left), the Pareto set
of cost per million output tokens vs p99 TTFT, the cheapest setting that meets the SLOs
(or a note saying none does, or that none was given), the first points the replay refused
(with why: they have no metrics and take no part), each setting's band over seeds
(min / median / max), and with search=max_rate each setting's capacity (with a profile's
coefficient sets also P(meets the SLOs) at it and the sets replayed per rate).

A setting is a grid point without its seed; over seeds its figure is the median (the band
shows the spread). A setting meets the SLOs when its WORST seed's attainment (share of
requests within every SLO) is >= attainment (default 0.9): a plan should hold on every
seed, not on average.
"""
from __future__ import annotations

import math
import statistics
from typing import Any

from core.sweep.spec import DEFAULT_ATTAINMENT

MAX_LISTED = 20
COST = "cost_per_million_output_tokens"
LATENCY = "p99_ttft_ms"
ATTAINMENT = "slo_attainment"
BAND_METRICS = ("p99_ttft_ms", "median_ttft_ms", "p99_tpot_ms", "p99_e2el_ms", "ttft_p95_s", "request_p95_s",
                "preemptions", "request_throughput", "output_throughput", "request_goodput", ATTAINMENT,
                "cost_per_hour", COST, "search.max_rate_per_s", "search.goodput")


def _number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _median(rows: list[dict], name: str) -> float | None:
    values = [v for v in (_number(r.get(name)) for r in rows) if v is not None]
    return statistics.median(values) if values else None


def settings_of(spec, rows: list[dict]) -> list[tuple[str, dict, list[dict]]]:
    """(setting hash, the swept keys' values, its rows) for every setting with a row, in
    grid order."""
    axes = [k for k, _ in spec.axes]
    by_setting: dict[str, list[dict]] = {}
    for row in rows:
        by_setting.setdefault(row["setting"], []).append(row)
    out, seen = [], set()
    for point in spec.points:
        if point.setting in by_setting and point.setting not in seen:
            seen.add(point.setting)
            out.append((point.setting, {k: point.raw[k] for k in axes}, by_setting[point.setting]))
    return out


def pareto(items: list[dict], x: str = LATENCY, y: str = COST) -> list[dict]:
    """The items no other item beats on both x and y (lower is better on both), by x."""
    ok = [i for i in items if i.get(x) is not None and i.get(y) is not None]
    ok.sort(key=lambda i: (i[x], i[y]))
    front, best_y = [], math.inf
    for item in ok:
        if item[y] < best_y:
            front.append(item)
            best_y = item[y]
    return front


def summarize(spec, rows: list[dict], reused: int = 0, cancelled: bool = False) -> dict:
    settings = settings_of(spec, rows)
    total = len(spec.points)
    slos = {k: float(v) for k, v in spec.fixed.items() if k.startswith("slo_")}
    need = spec.search.attainment if spec.search is not None else DEFAULT_ATTAINMENT
    medians = []
    for setting, values, group in settings:
        item = {"setting": setting, "values": values, "seeds": len(group), LATENCY: _median(group, LATENCY),
                COST: _median(group, COST)}
        if slos:
            worst = [v for v in (_number(r.get(ATTAINMENT)) for r in group) if v is not None]
            item["worst_attainment"] = min(worst) if worst else None
        medians.append(item)
    summary = {
        "kind": spec.kind, "cancelled": cancelled,
        "points": {"total": total, "done": len(rows), "reused": reused, "computed": len(rows) - reused,
                   "left": total - len(rows), "refused": sum(1 for r in rows if r.get("error"))},
        "axes": {k: v for k, v in spec.axes}, "fixed": spec.fixed, "seeds": spec.seeds,
        "slos_ms": {k[4:-3]: v for k, v in slos.items()}, "attainment": need,
        "search": None if spec.search is None else spec.search.as_json(),
    }
    errors = [{"setting": s, "values": v, "error": r["error"]} for s, v, g in settings for r in g if r.get("error")]
    summary["refused"] = errors[:MAX_LISTED]  # the first few points the replay refused, with why
    summary["pareto"] = {"x": LATENCY, "y": COST, "settings": pareto(medians)}
    if any(m[COST] is None for m in medians):
        summary["pareto"]["note"] = f"settings without {COST} or {LATENCY} are left out"
    summary.update(_cheapest(medians, settings, slos, need, spec.search is not None, bool(spec.seeds)))
    summary["bands"] = [{"setting": s, "values": v, "metrics": _bands(g)} for s, v, g in settings] \
        if spec.seeds is not None and len(spec.seeds) > 1 else []
    if spec.search is not None:
        summary["capacity"] = [_capacity(s, v, g) for s, v, g in settings]
    return summary


def _cheapest(medians: list[dict], settings, slos: dict, need: float, searched: bool, seeded: bool) -> dict:
    if not slos:
        return {"cheapest_meeting_slo": None, "cheapest_note": "no SLO given (slo_ttft_ms=, slo_tpot_ms=, slo_e2el_ms=)"}
    if searched:  # a setting meets the SLOs at some rate when its search found one on every seed
        found = {s for s, _, g in settings if all((_number(r.get("search.max_rate_per_s")) or 0) > 0 for r in g)}
        meeting = [m for m in medians if m["setting"] in found]
    else:
        meeting = [m for m in medians if m.get("worst_attainment") is not None and m["worst_attainment"] >= need]
    if not meeting:
        shown = ", ".join(f"{k} <= {v:g} ms" for k, v in slos.items())
        where = "at any rate searched" if searched else f"for {need:.0%} of requests" + (" on every seed" if seeded else "")
        return {"cheapest_meeting_slo": None, "cheapest_note": f"no setting meets the SLOs ({shown}) {where}"}
    priced = [m for m in meeting if m[COST] is not None]
    if not priced:
        return {"cheapest_meeting_slo": meeting[0], "cheapest_note": f"no {COST} in the rows: the first setting meeting them"}
    best = min(priced, key=lambda m: m[COST])
    return {"cheapest_meeting_slo": best, "cheapest_note": f"{len(meeting)} of {len(medians)} settings meet the SLOs"}


def _bands(group: list[dict]) -> dict:
    out = {}
    for name in BAND_METRICS:
        values = [v for v in (_number(r.get(name)) for r in group) if v is not None]
        if values:
            out[name] = {"min": min(values), "median": statistics.median(values), "max": max(values)}
    return out


def _capacity(setting: str, values: dict, group: list[dict]) -> dict:
    item: dict[str, Any] = {"setting": setting, "values": values}
    for name in ("search.max_rate_per_s", "search.max_rate_multiplier", "search.goodput", COST, "search.replays",
                 "search.meets_slo_probability", "band_samples"):
        item[name] = _median(group, name)
    item["capped"] = any(bool(r.get("search.capped")) for r in group)
    if item["search.meets_slo_probability"] is None:  # no coefficient sets: the search's rule is the attainment
        del item["search.meets_slo_probability"], item["band_samples"]
    return item
