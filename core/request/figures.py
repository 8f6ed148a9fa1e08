"""What the Request & Metrics panel draws (§3.1.1-3.1.2), computed here once per change of a
card: arrays, labels, their positions and the plot ranges. The panel only draws them.

Each function takes the card's checked inputs and the result computed from them.
"""
from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np

from core.format import format_value
from core.request import calculator as request
from core.request import metrics
from core.request import occupancy as state
from core.units import GiB, format_bytes, format_seconds

MAX_OCCUPANCY_ARRIVALS = 5000  # keeps 图 3-3 cheap at any λ
# 图 3-1 draws one point per decode step up to this many; beyond, evenly spaced steps that
# include the first and the last. The context grows by exactly one token per step (S+P+j),
# so the line drawn is the same, and a million-step answer stays one cheap setData.
MAX_DRAWN_STEPS = 2_000
# 图 3-2 marks each output token; past this many the marks merge into a band, so evenly
# spaced ones (first and last included) are drawn instead of up to ten million symbols.
MAX_TOKEN_TICKS = 2_000

SEGMENT_TEXT = {"queue": "排队 queue", "prepare": "输入准备", "prefill": "prefill", "thinking": "思考 thinking",
                "decode": "decode"}
SEGMENT_KINDS = tuple(SEGMENT_TEXT)
SEGMENT_Y = (2.6, 3.4)  # bar band of 图 3-2's segments
RANKED = (("queue_s", "排队 queue"), ("ttft_s", "首响应 TTFT"), ("completion_s", "完成 completion"))
SPLIT_KEYS = ("prefill_calls", "decode_steps_total", "weight_read_rounds")
SPLIT_X_ONE = (0.0, 2.0, 4.0)
SPLIT_X_MANY = (0.8, 2.8, 4.8)

Figure = dict[str, Any]


# ---- 图 3-1 -------------------------------------------------------------------------
def anatomy_figure(inputs: Mapping[str, Any]) -> Figure:
    """The prefill bar (restored context S below, new input P on top), the decode context
    per step with the area under it, the plot ranges and the player's length in steps."""
    S, P, G = inputs["context_tokens"], inputs["input_tokens"], inputs["output_tokens"]
    n_steps = max(G - 1, 0)
    if n_steps <= MAX_DRAWN_STEPS:
        steps = np.arange(1, n_steps + 1, dtype=np.int64)
    else:
        # Spacing over one step: rounding leaves every step distinct and in order.
        steps = np.linspace(1, n_steps, MAX_DRAWN_STEPS).round().astype(np.int64)
    contexts = S + P + steps - 1  # == request.decode_contexts(S, P, G)[steps - 1]
    # The area under the line is a trapezoid: filled from its two ends (one cheap polygon
    # instead of a fill under every drawn point).
    fill = (steps[[0, -1]], contexts[[0, -1]]) if steps.size else (steps, contexts)
    # The prefill is one call; drawn a few percent of the axis wide so it stays visible.
    width = max(0.8, G * 0.025)
    return {
        "restored": {"x": -width / 2, "height": S, "width": width},
        "prefill": {"x": -width / 2, "y0": S, "height": P, "width": width},
        "steps": steps, "contexts": contexts, "fill": fill,
        "x_range": (-width, max(G, 2)), "y_range": (0, max(S + P + G, 1) * 1.08),
        "duration": max(G - 1, 1),
    }


def anatomy_cursor(inputs: Mapping[str, Any], position: float) -> Figure:
    """The ▶ cursor at decode step j = int(position) (clamped to the last step) and its label
    (text, position, anchor)."""
    S, P, G = inputs["context_tokens"], inputs["input_tokens"], inputs["output_tokens"]
    if G <= 1:
        return {"x": 0.0, "text": f"prefill only: context {S + P:,}, no decode step", "pos": (0.0, S + P),
                "anchor": (0, 1)}
    j = min(int(position), G - 2)
    # The label rides on the cursor, on its right in the first half, then on its left, so
    # it stays inside the plot.
    return {"x": float(j + 1), "text": f"decode j={j:,}: context S+P+j = {S + P + j:,}",
            "pos": (j + 1, S + P + j), "anchor": (0, 1) if j + 1 <= G / 2 else (1, 1)}


# ---- 练习 3-1 -----------------------------------------------------------------------
def split_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> Figure:
    """Bars of prefill calls, decode steps and weight reads for 1 request and for n."""
    one = request.split(1, inputs["input_tokens"], inputs["output_tokens_total"])
    ones = [one[k] for k in SPLIT_KEYS]
    manys = [result[k] for k in SPLIT_KEYS]
    labels = [(f"{v:,}", (x, v)) for x, v in zip(SPLIT_X_ONE + SPLIT_X_MANY, ones + manys)]
    return {"one": ones, "many": manys, "x_one": list(SPLIT_X_ONE), "x_many": list(SPLIT_X_MANY),
            "labels": labels, "y_range": (0, max(ones + manys) * 1.18), "x_range": (-0.6, 5.4)}


# ---- 图 3-2 -------------------------------------------------------------------------
def timeline_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> Figure:
    """Segment bars (absent kinds have zero length), token ticks, the queue's extent, the
    three metric brackets with their texts, and the first-useful-output marker."""
    tl = metrics.RequestTimeline(**inputs)
    segments = {kind: {"x0": 0.0, "x1": 0.0, "text": "", "pos": (0.0, 3.0)} for kind in SEGMENT_KINDS}
    for kind, start, end in tl.segments():
        segments[kind] = {"x0": start, "x1": end, "text": SEGMENT_TEXT[kind] if end - start > tl.t_last * 0.07 else "",
                          "pos": ((start + end) / 2, 3.0)}
    n_tokens = tl.thinking_tokens + tl.output_tokens
    if n_tokens <= MAX_TOKEN_TICKS:
        ticks = np.arange(n_tokens)
    else:
        ticks = np.linspace(0, n_tokens - 1, MAX_TOKEN_TICKS).round()
    token_times = tl.t_first + ticks * tl.token_interval_s
    spans = {"ttft": (0.0, tl.t_first, 1.9), "t_request": (0.0, tl.t_last, 1.2), "t_token": (tl.t_first, tl.t_last, 0.5)}
    texts = {"ttft": f"TTFT = {format_seconds(result['ttft_s'])}",
             "t_request": f"T_request = {format_seconds(result['t_request_s'])}",
             "t_token": "T_token = " + (format_seconds(result["t_token_s"]) if result["t_token_s"] is not None else "—")}
    brackets = {name: {"x": [a, a, b, b], "y": [y + 0.15, y, y, y + 0.15], "text": texts[name],
                       "pos": (a + (b - a) * 0.02, y - 0.22)} for name, (a, b, y) in spans.items()}
    return {"segments": segments, "tokens": (token_times, np.full(token_times.size, 2.45)), "queue": (0.0, tl.queue_s),
            "brackets": brackets, "useful": tl.t_first_useful, "useful_visible": tl.thinking_tokens > 0,
            "x_range": (0, tl.t_last * 1.04)}


# ---- p95 ----------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _ranked_observations() -> dict[str, np.ndarray]:
    return {key: np.sort(values) for key, values in metrics.illustrative_observations().items()}


def percentile_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> Figure:
    """The illustrative batch ranked three ways, the nearest-rank line and the breakdown text."""
    q = inputs["q"]
    ranked = _ranked_observations()
    curves, lines = {}, []
    for key, _ in RANKED:
        values = ranked[key]
        curves[key] = (np.arange(1, values.size + 1), values)
        p = metrics.percentile(values.tolist(), q)
        lines.append(f"{key.replace('_s', '')}: p{q * 100:g} = {format_seconds(p['value'])} (rank {p['rank']})")
    rank = metrics.nearest_rank(ranked["queue_s"].size, q)
    breakdown = (f"Your {result['n']} values: p{q * 100:g} is the {result['rank']}-th = {format_seconds(result['value'])}.  "
                 "Ranked separately (示意): " + " · ".join(lines) + ". The long waits sit in the queue, not the decode.")
    return {"curves": curves, "rank": rank, "rank_text": f"⌈{q:g}·n⌉ = {rank}",
            "rank_pos": (rank, float(ranked["completion_s"].max())), "breakdown": breakdown}


# ---- 图 3-3 -------------------------------------------------------------------------
def area_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> Figure:
    """M(t) in GiB over a horizon that shows the rise and the plateau (at most
    MAX_OCCUPANCY_ARRIVALS arrivals), the λ·M0·τ line and one task's M0·τ box."""
    rate, m0, tau = inputs["arrival_rate_per_s"], inputs["state_bytes"], inputs["wait_s"]
    horizon = max(3 * tau, 5 / rate, 1e-6)
    horizon = min(horizon, MAX_OCCUPANCY_ARRIVALS / rate)
    t, m = state.occupancy_series(rate, m0, tau, horizon)
    m_gib = m / GiB
    mean = result["mean_occupancy_bytes"]
    peak = float(m_gib.max()) if m_gib.size else 0.0
    first_start = horizon - tau if horizon > tau else 0.0
    return {
        "t": t, "m_gib": m_gib, "mean_gib": mean / GiB, "mean_text": f"λ·M0·τ = {format_bytes(mean)}",
        "task": (first_start, first_start + tau),
        "task_text": f"one task: M0·τ = {format_bytes(m0 * tau).replace('B', 'B·s', 1)}",
        "task_pos": (first_start, max(peak, m0 / GiB) * 1.1 if m_gib.size else 1),
        "y_range": (0, max(peak, mean / GiB, m0 / GiB) * 1.25), "x_range": (0, horizon),
    }


# ---- cost per success ----------------------------------------------------------------
def success_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> Figure:
    """alert: the warning shown first (None when there are successes); text: the sentence."""
    if result["cost_per_success"] is None:
        return {"alert": "零成功:只记录消耗与失败。",
                "text": f"Consumed {format_value(result['total_cost'], '')}, {result['failures']:,} failures; "
                        "no success cost to report."}
    return {"alert": None,
            "text": f"Every attempt is in the numerator, only successes in the denominator: "
                    f"{format_value(result['total_cost'], '')} / {inputs['successes']:,} = "
                    f"{format_value(result['cost_per_success'], '')} per success."}


def compare_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> Figure:
    """Method 2's cost per success as p2 moves, method 1's line, the break-even and you."""
    c1, p1, c2 = inputs["c1"], inputs["p1"], inputs["c2"]
    p2 = np.linspace(max(c2 / (c1 / p1) / 4, 0.02), 1.0, 200)
    return {
        "p2": p2, "cost2": c2 / p2, "method1": result["cost_per_success_1"],
        "break_even": result["break_even_p2"], "break_even_visible": result["break_even_p2"] <= 1.0,
        "current": ([inputs["p2"]], [result["cost_per_success_2"]]),
        "y_range": (0, max(result["cost_per_success_1"], result["cost_per_success_2"]) * 2.2), "x_range": (0, 1.02),
    }


# ---- 图 3-9 --------------------------------------------------------------------------
ATTEMPTS_PER_METHOD = 100  # 图 3-9: 各尝试 100 次
ATTEMPT_X = (0.0, 1.0)  # bar of method 1 (旧方法), method 2 (新方法)


def attempts_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> Figure:
    """图 3-9 from the cost.compare card: each method tries ATTEMPTS_PER_METHOD times at its
    cost per attempt c; the bar is everything spent, the part failed attempts cost on top,
    since failures are in the numerator too. Successes are round(p · attempts)."""
    n = ATTEMPTS_PER_METHOD
    bars = []
    for i, (c, p, names) in enumerate(((inputs["c1"], inputs["p1"], "旧方法 method 1"),
                                       (inputs["c2"], inputs["p2"], "新方法 method 2"))):
        successes = int(round(p * n))
        total = c * n
        per_success = result[f"cost_per_success_{i + 1}"]
        bars.append({"name": names, "successes": successes, "failures": n - successes, "total": total,
                     "success_cost": c * successes, "failure_cost": c * (n - successes), "per_success": per_success,
                     "text": f"{n} 次 × {format_value(c, '')} = {format_value(total, '')}\n"
                             f"{successes} 成功 → {format_value(per_success, '')} / 成功"})
    top = max(b["total"] for b in bars) or 1.0
    return {
        "x": list(ATTEMPT_X), "bars": bars,
        "success_cost": [b["success_cost"] for b in bars], "failure_cost": [b["failure_cost"] for b in bars],
        "labels": [(b["text"], (x, b["total"] + top * 0.04)) for x, b in zip(ATTEMPT_X, bars)],
        "ticks": [[(x, b["name"]) for x, b in zip(ATTEMPT_X, bars)]],
        "y_range": (0.0, top * 1.55), "x_range": (-0.6, 1.6),
    }
