"""What the Agents panel draws for the measured runs (§3.2.1, §3.2.3, 图 3-14, goodput),
computed here from a card's checked inputs and result; the panel only draws."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from core.agents.ced import ced_curve, goodput
from core.agents.trajectory import TRACES, load_trajectory, round_costs

Figure = dict[str, Any]
LANE_Y = {"thinking_on": 1.0, "thinking_off": 0.0}  # 思考开启 above, 关闭 below
LANE_NAMES = {"thinking_on": "思考开启 thinking on", "thinking_off": "思考关闭 thinking off"}
LANE_HALF = 0.3
Y_RANGE = (-0.45, 1.95)  # above the top lane, room for its text on two lines
# §3.2.3: "四轮依次是:输出截断、写文件、运行测试、结束" (thinking on's four calls).
ROUND_LABELS = {"thinking_on": ("1", "2", "3", "4")}
ROUND_LEGEND = ("思考开启的四轮:1 输出截断、2 写文件、3 运行测试、4 结束;工具与交接的位置为示意 · "
                "thinking on's calls: 1 truncated, 2 write file, 3 run tests, 4 done; tools and hand-offs "
                "placed for illustration")
TFLOP = 1e12


def _spans(starts: list[float], ends: list[float], y: float) -> dict:
    return {"x0": starts, "x1": ends, "y0": [y - LANE_HALF] * len(starts), "y1": [y + LANE_HALF] * len(starts)}


def timeline_figure(traces: tuple[str, ...] = TRACES) -> Figure:
    """Per run: model calls and tool runs one after the other on one time axis, then the
    run's unassigned "other" time at its end (the book: where tools and hand-offs fall
    between rounds is not given, their place is 示意). Labels of the calls where the book
    names them; each lane's total at its end."""
    lanes: dict[str, dict[str, Any]] = {}
    x_end = 0.0
    for name in traces:
        t = load_trajectory(name)
        y = LANE_Y.get(name, 0.0)
        ends = np.cumsum(t.model_s + t.tool_s)
        model_start = ends - t.model_s - t.tool_s
        model_end = model_start + t.model_s
        s = t.summary or {}
        other = s.get("other_s", 0.0)
        total = float(ends[-1] + other)
        labels = ROUND_LABELS.get(name, ())
        lanes[name] = {
            "model": _spans(model_start.tolist(), model_end.tolist(), y),
            "tool": _spans(model_end.tolist(), ends.tolist(), y),
            "other": _spans([float(ends[-1])], [total], y),
            "labels": [(text, ((a + b) / 2, y)) for text, a, b in zip(labels, model_start, model_end) if b - a > 0],
            "total_text": lane_total_text(t.rounds, total, float(t.model_s.sum()), float(t.tool_s.sum()),
                                          other if s else None),
            "total_pos": (0.0, y + LANE_HALF + 0.05),
        }
        x_end = max(x_end, total)
    for name, lane in lanes.items():
        # A lane over less than half the axis has its text beside its end (two lines' room
        # when "中文 · English" wraps); a longer one has it above.
        end = lane["other"]["x1"][0]
        if end < x_end / 2:
            lane["total_pos"], lane["total_anchor"] = (end + x_end * 0.015, LANE_Y.get(name, 0.0)), (0, 0.5)
            lane["total_width"] = 1 - (end + x_end * 0.015) / (x_end * 1.02)
        else:
            lane["total_anchor"], lane["total_width"] = (0, 1), 1.0
    ticks = [(LANE_Y.get(n, 0.0), LANE_NAMES.get(n, n)) for n in traces]
    return {"lanes": lanes, "x_range": (0, x_end * 1.02 or 1.0), "y_ticks": ticks, "y_range": Y_RANGE}


def lane_total_text(rounds: int, total_s: float, model_s: float, tool_s: float, other_s: float | None) -> str:
    """A lane's rounds and its time split as the book prints it (76.510 = 76.294 + 0.078 +
    0.138 s): the tools take too little of the axis to see, the sum says how little.
    Each part to the millisecond, "other" the rest of the rounded total so the printed parts
    add up (the book's 0.138 for 0.13893). Without a recorded elapsed time: model and tools.
    A no-break space keeps each number with its unit when the text wraps."""
    m, t = round(model_s, 3), round(tool_s, 3)
    if other_s is None:
        return (f"{rounds} 轮,模型 {m:.3f} + 工具 {t:.3f}\u00a0s · "
                f"{rounds} rounds: model {m:.3f} + tools {t:.3f}\u00a0s")
    total = round(total_s, 3)
    other = total - m - t
    return (f"{rounds} 轮,{total:.3f} = 模型 {m:.3f} + 工具 {t:.3f} + 其他 {other:.3f}\u00a0s · "
            f"{rounds} rounds: {total:.3f} = model {m:.3f} + tools {t:.3f} + other {other:.3f}\u00a0s")


def prefill_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> Figure:
    """Per round of the card's run: TFLOPs of prefill recomputing the whole prompt against
    computing only the uncached suffix (grouped bars), the totals as text."""
    t = load_trajectory(inputs["trace"])
    c = round_costs(t, inputs["model"])
    x = np.arange(t.rounds, dtype=float)
    cold, cached = c["cold"] / TFLOP, c["cached"] / TFLOP
    text = (f"cold {result['cold_prefill_flops'] / TFLOP:.3f} → cached {result['cached_prefill_flops'] / TFLOP:.3f} TFLOPs"
            f" · {result['cached_tokens']:,} of {result['input_tokens']:,} prompt tokens hit")
    return {"x_cold": x - 0.2, "cold": cold, "x_cached": x + 0.2, "cached": cached, "width": 0.38,
            "ticks": round_ticks(t.rounds),
            "text": text, "text_pos": (-0.5, float(cold.max()) * 1.12), "y_range": (0, float(cold.max()) * 1.22 or 1.0),
            "x_range": (-0.7, t.rounds - 0.3)}


def round_ticks(rounds: int) -> list[tuple[float, str]] | None:
    """Rounds counted from 1 as the book does (第二轮 is the call at index 1); None: auto."""
    return [(float(i), str(i + 1)) for i in range(rounds)] if rounds <= 30 else None


def replay_cache_figure(result: Mapping[str, Any]) -> Figure:
    """Per round of the first copy: its prompt, the cached tokens vLLM measured (bars) and
    the ones the engine found (markers)."""
    f = result["figure"]
    x = f["rounds"].astype(float)
    return {"x": x, "input": f["input_tokens"].astype(float), "measured": f["measured_cached"].astype(float),
            "engine": f["engine_cached"].astype(float),
            "text": f"engine {result['engine_cached_tokens']:,} vs measured {result['measured_cached_tokens']:,} "
                    f"cached tokens · {result['rounds_matching']}/{x.size} rounds equal",
            "text_pos": (-0.5, float(f["input_tokens"].max()) * 1.15),
            "y_range": (0, float(f["input_tokens"].max()) * 1.25), "x_range": (-0.7, x.size - 0.3),
            "ticks": round_ticks(x.size)}


def itl_figure(result: Mapping[str, Any]) -> Figure:
    """The share of token gaps per ms bin (a step curve), median and p99 lines."""
    h = result["figure"]["itl"]
    med, p99 = result["itl_median_ms"], result["itl_p99_ms"]
    good = result["good_requests"]
    text = (f"median {med:.2f} ms · p99 {p99:.2f} ms" if med is not None else "no gaps (one token per call)") + \
        f" · {good}/{result['requests']} calls meet the SLO"
    return {"edges": h["edges_ms"], "share": h["share_pct"], "median": med, "p99": p99, "text": text,
            "x_range": (float(h["edges_ms"][0]), float(h["edges_ms"][-1])),
            "y_range": (0, float(h["share_pct"].max()) * 1.2 or 1.0)}


def ced_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> Figure:
    """Expert-layer passes per prompt token against P (log x): the decoder-only line, CED's
    curve falling from L (P <= W) towards E, and the card's P on it."""
    curve = ced_curve(inputs["layers"], inputs["encoder_layers"], inputs["refeed_tokens"])
    p = inputs["prompt_tokens"]
    per_token = result["ced_prompt_layer_tokens"] / p
    return {"log_p": np.log10(curve["prompt_tokens"]), "decoder_only": curve["decoder_only"], "ced": curve["ced"],
            "point": ([float(np.log10(p))], [per_token]),
            "names": ced_names(inputs["layers"], inputs["encoder_layers"], inputs["refeed_tokens"]),
            "text": f"P = {p:,}: {result['ced_prompt_layer_tokens']:,} vs {result['decoder_only_prompt_layer_tokens']:,}"
                    f" passes ({result['prompt_ratio']:.1%})",
            "ticks": [(float(k), f"{10 ** k:,.0f}") for k in range(0, 6)],
            "y_range": (0, inputs["layers"] * 1.15)}


def ced_names(layers: int, encoder_layers: int, refeed_tokens: int) -> dict[str, str]:
    """The two curves' legend entries: each model's expert-layer passes for P prompt tokens,
    with the card's L, E and W (the book's: 40P against 20P + 20·min(P,128))."""
    return {"decoder_only": f"纯解码器 {layers}P · decoder-only {layers}P",
            "ced": f"CED {encoder_layers}P + {layers - encoder_layers}·min(P,{refeed_tokens})"}


def goodput_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> Figure:
    """Both measured runs under the card's deadline and completion rule: tasks per hour
    finished (light) and qualified (solid)."""
    rows = {name: goodput(name, inputs["deadline_s"], inputs["completion"]) for name in TRACES}
    x = np.arange(len(TRACES), dtype=float)
    finished = [rows[n]["throughput_tasks_per_s"] * 3600 for n in TRACES]
    good = [rows[n]["goodput_tasks_per_s"] * 3600 for n in TRACES]
    labels = [(f"{g:.1f} of {f:.1f} tasks/h qualify\n{rows[n]['case_pass_rate']:.1%} of cases pass", (i, f))
              for i, (n, g, f) in enumerate(zip(TRACES, good, finished))]
    return {"x": x, "finished": finished, "good": good, "labels": labels,
            "ticks": [(float(i), LANE_NAMES[n]) for i, n in enumerate(TRACES)],
            "y_range": (0, max(finished) * 1.3)}
