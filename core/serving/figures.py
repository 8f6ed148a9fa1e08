"""The Serving panel's figures (§3.1.3), each computed once, here, with everything its view
draws: numbers, arrays, label texts and where they go. The panel only draws; `lab
simulate` and `lab snapshot` use the same functions.

- banner_figure: decode demand of the book's three one-minute segments against the cards'
  bandwidth bound (例题 3-1), with the backlog the segments build as they play.
- backlog_figure: the backlog curves of the book's presets and of the current card.
- replay_side: one replay (A or B) with its summary, its book deltas, per-request strips,
  the TTFT CDF and the data its ▶ frames show; replay_frame picks one frame's share.
- compare_rows: the A/B table, simulated beside the book's observed values.
- band_figure: a band over seeds for both sides.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.cancel import NEVER, CancelToken
from core.format import format_count, format_seconds
from core.registry import ParamError
from core.serving import backlog as bl
from core.serving import gantt, vllm_metrics
from core.serving import replay as rp
from core.serving import workload as wl
from core.serving.engine import validate
from core.serving.mix import classes_from, mix_rates

# The banner's three segments (each a minute at the mix's rate): 均匀, then the two minutes of ②.
BANNER_SEGMENTS = (("均匀混合 1:1", 0.5), ("前一分钟 9:1", 0.9), ("后一分钟 1:9", 0.1))
SEGMENT_S = 60.0
BANNER_BAR_WIDTH_S = SEGMENT_S * 0.92
COMPARE_ROWS = ("ttft_p95_s", "request_p95_s", "first_schedule_wait_p95_s", "last_completion_s", "preemptions",
                "kv_peak_fraction", "decode_bound_s", "engine_steps")
BOOK_TOLERANCE = 0.10  # the verify rows' tolerance: within it a Δ reads as agreeing
GANTT_BINS = 900
DISPLAY_POINTS = 1500  # points per played-back curve (peaks kept): a frame sets small arrays
CDF_POINTS = 1000
BACKLOG_PRESET_SAMPLES = 20_000


def _num(x: float) -> str:
    """18,432 and 7,471 as the cards print them (core.format's rule)."""
    return format_count(x)


# ---- banner ----------------------------------------------------------------------
def banner_figure(mix: Mapping[str, Any], rate: Mapping[str, Any], rate_result: Mapping[str, Any]) -> dict:
    """mix: serving.mix inputs (rate and the two classes); rate: serving.decode_rate inputs;
    rate_result: its outputs (the capacity line). Shares come from the three segments."""
    capacity = float(rate_result["steps_per_s"])
    a, b = classes_from(mix)
    demands, inputs = [], []
    for _, share in BANNER_SEGMENTS:
        r = mix_rates(mix["rate_per_s"], share, a, b)
        demands.append(r["decode_steps_per_s"])
        inputs.append(r["new_input_tokens_per_s"])
    pct = np.asarray(demands) / capacity * 100
    xs = SEGMENT_S * (np.arange(3) + 0.5)
    top = max(float(pct.max()), 100.0) * 1.32
    try:
        back = bl.backlog((SEGMENT_S,) * 3, (mix["rate_per_s"],) * 3, tuple(s for _, s in BANNER_SEGMENTS),
                          mix["long_input_out_tokens"], mix["long_output_out_tokens"], 1, capacity, 0.1)
        t, q = np.asarray(back["t_s"]), np.asarray(back["backlog_steps"])
    except ParamError:  # a drain no float holds: the status shows no backlog figure
        t, q = np.array([0.0]), np.array([math.nan])
    return {
        "capacity": capacity,
        "x": xs, "pct": pct, "under": np.minimum(pct, 100.0), "over": np.maximum(pct - 100.0, 0.0),
        "bar_width": BANNER_BAR_WIDTH_S,
        "labels": [f"{BANNER_SEGMENTS[i][0]}\n{_num(demands[i])} 步/s · {pct[i]:.0f}%\n输入 {_num(inputs[i])} token/s"
                   for i in range(3)],
        "label_pos": [(float(xs[i]), float(max(pct[i], 100) + 4)) for i in range(3)],
        "y_range": (0.0, top), "x_range": (0.0, 3 * SEGMENT_S),
        "status_pos": (2.0, top * 0.995),
        "capacity_text": f"虚线 100% = {_num(capacity)} 步/s\n({_num(rate_result['steps_per_s_per_card'])}/卡 × {rate['cards']} 卡)",
        "capacity_pos": (2 * SEGMENT_S - 3, 100.0),
        "ticks": [[(float(x), text) for x, (text, _) in zip(xs, BANNER_SEGMENTS)],
                  [(t0, f"{t0 - SHIFT_STARTS_AT_S:.0f}") for t0 in (60.0, 120.0, 180.0)]],
        "export_x": np.repeat(np.arange(4) * SEGMENT_S, 2)[1:-1], "export_y": np.repeat(pct, 2),
        "demands": demands, "backlog_t": t, "backlog_q": q,
        "duration": 3 * SEGMENT_S,
    }


def banner_status(fig: Mapping[str, Any], t: float) -> str:
    """The status line at time t of the banner's ▶, on the backlog plot's clock (see
    SHIFT_STARTS_AT_S): the uniform minute is the comparison before that clock starts."""
    seg = min(max(int(t // SEGMENT_S), 0), 2)
    q = float(np.interp(t, fig["backlog_t"], fig["backlog_q"]))
    backlog = "—" if math.isnan(q) else _num(q)
    tail = f"{BANNER_SEGMENTS[seg][0]} · 需求 {fig['pct'][seg]:.0f}% · 积压 {backlog} 步"
    if t < SHIFT_STARTS_AT_S:
        return f"对照 · {tail}"
    return f"t = {t - SHIFT_STARTS_AT_S:.1f} s · {tail}"


# The banner's first minute is the uniform mix; its second and third are preset ②'s two
# minutes, which the backlog plot draws from t = 0. So banner time t is ②'s t − 60 s, and
# the banner's ticks and status read ②'s clock (one clock for both figures; the uniform
# minute, before it, is the comparison).
SHIFT_PRESET = "shift"
SHIFT_STARTS_AT_S = SEGMENT_S


def backlog_cursor(t: float) -> tuple[float, bool]:
    """Where the banner's ▶ at time t sits on the backlog plot's ② curve, and whether it is
    on it at all (during the uniform minute ② has not started)."""
    return t - SHIFT_STARTS_AT_S, t >= SHIFT_STARTS_AT_S


# ---- backlog -------------------------------------------------------------------------
def backlog_figure(values: Mapping[str, Any], result: Mapping[str, Any] | None) -> dict:
    """The presets' curves on the current card's μ, token counts and Δt (coarser where a
    preset would need more samples), the current card's curve and its note."""
    shared = {k: values[k] for k in ("long_input_out_tokens", "long_output_out_tokens")}
    curves: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    t_max = 0.0
    for key in bl.PRESETS:
        p = bl.preset_params(key)
        dt = max(float(values["dt_s"]), sum(p["durations_s"]) / BACKLOG_PRESET_SAMPLES)
        try:
            r = bl.backlog(p["durations_s"], p["rates_per_s"], p["shares_long_input"], shared["long_input_out_tokens"],
                           shared["long_output_out_tokens"], p["cards"], values["steps_per_s_per_card"], dt)
        except ParamError:
            continue
        curves[key] = (np.asarray(r["t_s"]), np.asarray(r["backlog_steps"]))
        t_max = max(t_max, float(r["t_s"][-1]))
    current = None
    note = ""
    top = 120_000.0
    if result:
        current = (np.asarray(result["t_s"]), np.asarray(result["backlog_steps"]))
        t_max = max(t_max, float(current[0][-1]))
        top = max(top, float(np.max(current[1])))
        note = (f"当前: 峰值 {_num(result['peak_backlog_steps'])} 步 @ {format_seconds(result['peak_at_s'])} · "
                f"排空 {format_seconds(result['drain_s'])}")
    return {"presets": curves, "current": current, "note": note, "note_pos": (t_max * 0.02, top * 1.08),
            "x_range": (0.0, t_max), "y_range": (0.0, top * 1.12), "preset": bl.matching_preset(values)}


# ---- replays -------------------------------------------------------------------------
@dataclass
class ReplaySide:
    """One replay, ready to draw. Arrays in seconds; `disp_*` are the played-back curves
    decimated to DISPLAY_POINTS (peaks kept), `series_*` the exact event series."""

    inputs: Any
    summary: dict
    scenario: str | None
    name: str  # the book's scenario label, or 'custom'
    observed: dict | None
    t_end: float
    series_t: np.ndarray
    series_waiting: np.ndarray
    series_running: np.ndarray
    series_kv_pct: np.ndarray
    disp_t: np.ndarray
    disp_waiting: np.ndarray
    disp_running: np.ndarray
    disp_kv_pct: np.ndarray
    gantt_codes: np.ndarray
    ttft_sorted: np.ndarray
    first_token_by_ttft: np.ndarray
    book_ttft_p95_s: float | None
    status: str
    y_top: float = field(default=1.0)
    result: Any = None  # the engine's ReplayResult (the vLLM metrics and the overlay use it)
    workload: Any = None  # what it replayed
    config: Any = None  # the EngineConfig it ran with (its StepCost gives exact step times to the ITL)
    cached_share: float | None = None  # prompt tokens from the prefix cache / all prompt tokens
    from_trace: bool = False  # replayed a loaded trace, not the card's windows


def _decimate(t: np.ndarray, *ys: np.ndarray, points: int = DISPLAY_POINTS) -> tuple[np.ndarray, ...]:
    """Keep at most about `points` samples: in each of points/2 buckets the first sample
    and the one where the first y peaks, so a queue's spikes survive."""
    n = t.size
    if n <= points:
        return (t, *ys)
    buckets = max(points // 2, 1)
    edges = np.linspace(0, n, buckets + 1).astype(np.int64)
    keep = [edges[:-1]]
    y0 = ys[0]
    starts = edges[:-1]
    peaks = np.maximum.reduceat(y0, starts)
    # first index in each bucket reaching the peak
    is_peak = y0 == np.repeat(peaks, np.diff(edges))
    first_peak = np.maximum.reduceat(np.where(is_peak, -np.arange(n), -n), starts)
    keep.append(-first_peak)
    keep.append(np.array([n - 1]))
    idx = np.unique(np.concatenate(keep))
    return (t[idx], *(y[idx] for y in ys))


def replay_side(inputs, cancel: CancelToken = NEVER, workload: wl.Workload | None = None,
                prefix_caching: bool | None = None, source: Any = None, cost=None, client=None) -> dict:
    """Run one replay (serving.replay's checked inputs) and prepare all it draws. Returns the
    calculator's outputs (what the card holds) with the drawable ReplaySide under 'figure'
    and `source` as given (what the replay ran on besides the card, see ServingState).

    workload: a loaded trace instead of the card's windows (checked against the engine
    here: ParamError); prefix_caching: the engine's switch for it (None: the default);
    cost and client: as rp.run_replay's (a deployment's basis step model, a client's
    limit and front end; None: the card's roofline, the engine alone)."""
    if workload is None:
        result, work, config = rp.run_replay(inputs, cancel, cost, client)
    else:
        config = rp.config_from(inputs, cost)
        if prefix_caching is not None and hasattr(config, "prefix_caching"):
            config = dataclasses.replace(config, prefix_caching=prefix_caching)
        if client is not None:
            config = client(config)
        validate(config, workload)
        work = workload
        result = rp.replay_workload(work, config, inputs, cancel)  # replicas > 1: behind the router
    cancel.check()
    summary = rp.summarize(result, work, config)
    scenario = rp.matching_scenario(inputs) if workload is None else None
    t_end = float(summary["last_completion_s"])
    kv_pct = result.series_kv_fraction * 100
    disp = _decimate(result.series_t, result.series_waiting, result.series_running, kv_pct)
    codes, _ = gantt.state_matrix(result, t_end, GANTT_BINS)
    ttft = result.ttft_s
    order = np.argsort(ttft, kind="stable")
    observed = rp.OBSERVED.get(scenario) if scenario else None
    cached = cached_token_share(result)
    status = f"{summary['requests']:,} requests, {summary['engine_steps']:,} steps in {result.wall_s * 1e3:.0f} ms"
    if cached is not None:
        status += f", {cached:.0%} of prompt tokens from the prefix cache"
    fig = ReplaySide(
        inputs=inputs, summary=summary, scenario=scenario, name=_side_name(scenario, workload, prefix_caching),
        observed=observed, t_end=t_end,
        series_t=result.series_t, series_waiting=result.series_waiting, series_running=result.series_running,
        series_kv_pct=kv_pct, disp_t=disp[0], disp_waiting=disp[1], disp_running=disp[2], disp_kv_pct=disp[3],
        gantt_codes=codes, ttft_sorted=ttft[order], first_token_by_ttft=result.first_token_s[order],
        book_ttft_p95_s=observed["ttft_p95_s"] if observed else None, status=status,
        y_top=max(float(result.series_waiting.max()), float(result.series_running.max())) * 1.1 + 1,
        result=result, workload=work, config=config, cached_share=cached, from_trace=workload is not None,
    )
    return dict(summary, figure=fig, source=source, cached_token_share=cached)


def _side_name(scenario: str | None, workload: wl.Workload | None, prefix_caching: bool | None) -> str:
    if workload is None:
        return rp.SCENARIOS[scenario]["label"] if scenario else "custom"
    name = workload.label or "trace"
    if prefix_caching is not None:
        name += " · prefix cache on" if prefix_caching else " · prefix cache off"
    return name


def cached_token_share(result) -> float | None:
    """Prompt tokens served from the prefix cache over all prompt tokens (vLLM's
    num_cached_tokens summed), or None when the run reports no cached tokens."""
    cached = getattr(result, "cached_tokens", None)
    if cached is None or not np.any(cached):
        return None
    return float(np.sum(cached) / max(np.sum(result.input_tokens), 1))


def compare_rows(sides: Mapping[str, ReplaySide | None]) -> dict:
    """The A/B table: per side and metric (simulated, book, Δ) texts and whether the Δ is
    within the book tolerance (None: nothing to compare). The decode bound's book value is
    the book's own 至少 197.6 s (its verify row), for either of the book's runs."""
    calc = rp.REPLAY
    cells: dict[str, list[tuple[str, str, str, bool | None]]] = {}
    headers: list[str] = []
    for side, fig in sides.items():
        # A trace's name is in its plots' titles; the column stays narrow.
        name = "custom" if fig is None else "trace" if fig.from_trace else fig.name
        headers += [f"{side} 模拟 · {name}", f"{side} 书中实测", f"{side} Δ"]
        if fig is None:
            continue
        rows = []
        for metric in COMPARE_ROWS:
            sim = fig.summary[metric]
            book = fig.observed.get(metric) if fig.observed else None
            if metric == "decode_bound_s" and fig.scenario:
                book = rp.book_decode_bound_s()
            delta, ok = "", None
            if book is not None:
                diff = (sim - book) / book * 100 if book else 0.0
                delta, ok = f"{diff:+.1f}%", abs(diff) <= BOOK_TOLERANCE * 100
            rows.append((calc.format_output(metric, sim), "—" if book is None else calc.format_output(metric, book),
                         delta, ok))
        cells[side] = rows
    return {"rows": COMPARE_ROWS, "headers": headers, "cells": cells,
            "book": not all(f is not None and f.from_trace for f in sides.values()),  # a trace has no book run
            "tips": [f"<b>{m}</b> = {calc.output(m).formula}<br>{calc.output(m).help}" for m in COMPARE_ROWS]}


def replay_status(sides: Mapping[str, ReplaySide]) -> str:
    walls = " · ".join(f"{s}: {fig.status}" for s, fig in sides.items() if fig is not None)
    if all(fig is not None and fig.from_trace for fig in sides.values()):
        return f"simulated {walls}."  # no book run to compare a trace with
    return (f"simulated {walls}. Δ within ±{BOOK_TOLERANCE:.0%} of the book's vLLM run shown green, "
            "beyond it orange.")


def replay_frame(fig: ReplaySide, t: float) -> dict:
    """What one ▶ frame at time t shows of a side: how much of each decimated curve, the
    now-label, and the CDF of the requests that have their first token by t."""
    k = int(np.searchsorted(fig.disp_t, t, side="right"))
    i = max(int(np.searchsorted(fig.series_t, t, side="right")) - 1, 0)
    done = fig.first_token_by_ttft <= t
    x = fig.ttft_sorted[done]
    y = np.arange(1, x.size + 1) / max(fig.ttft_sorted.size, 1)
    if x.size > CDF_POINTS:
        keep = np.linspace(0, x.size - 1, CDF_POINTS).astype(np.int64)
        x, y = x[keep], y[keep]
    return {
        "k": k,
        "label": (f"t = {t:6.1f} s · waiting {int(fig.series_waiting[i]):>4} · running {int(fig.series_running[i]):>3} · "
                  f"KV {fig.series_kv_pct[i]:3.0f}%"),
        "cdf_x": x, "cdf_y": y, "done": int(np.count_nonzero(done)), "n": int(fig.ttft_sorted.size),
    }


def cdf_curve(sorted_values: np.ndarray, points: int = CDF_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """A CDF of sorted values to draw: at most `points` of them, evenly spaced in rank with
    the first and last kept (a 100,000-request trace need not paint 100,000 vertices)."""
    n = sorted_values.size
    y = np.arange(1, n + 1) / max(n, 1)
    if n <= points:
        return sorted_values, y
    keep = np.linspace(0, n - 1, points).astype(np.int64)
    return sorted_values[keep], y[keep]


def cdf_note(frames: Mapping[str, dict]) -> str:
    return " · ".join(f"{s}: {f['done']}/{f['n']} 已出首 token" for s, f in frames.items())


def band_figure(sides: Mapping[str, Any], seeds=range(5), cancel: CancelToken = NEVER) -> dict:
    """Each side's replay over seeds with Poisson arrivals and a random class order: every
    metric as (min, median, max), and the line the panel shows."""
    seeds = list(seeds)
    bands = {}
    parts = []
    for side, inputs in sides.items():
        values = dict(inputs, arrival="poisson", class_order="random")
        band = rp.band(values, seeds, cancel)
        bands[side] = band
        lo, mid, hi = band["ttft_p95_s"]
        rlo, _, rhi = band["last_completion_s"]
        parts.append(f"<b>{side}</b>: TTFT p95 {lo:.1f} – {hi:.1f} s (median {mid:.1f}), "
                     f"last completion {rlo:.1f} – {rhi:.1f} s")
    text = f"Poisson arrivals, random class order, seeds {seeds[0]}–{seeds[-1]}: " + " · ".join(parts)
    return {"bands": bands, "text": text, "inputs": dict(sides)}


# ---- vLLM bench serve's names ---------------------------------------------------------
VLLM_METRICS = (("ttft", "TTFT"), ("tpot", "TPOT"), ("itl", "ITL"), ("e2el", "E2EL"))
VLLM_STATS = ("mean", "median", "p90", "p99")


def _ms(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:,.1f}"


def metrics_table(sides: Mapping[str, ReplaySide | None], slo_ttft_ms: float = 0.0, slo_tpot_ms: float = 0.0,
                  cancel: CancelToken = NEVER) -> dict:
    """The replays under vLLM `bench serve`'s names (core.serving.vllm_metrics): rows TTFT,
    TPOT, ITL, E2EL; per side columns mean, median, p90, p99 in ms ('cells'); per side the
    totals: completed, the throughputs, goodput under the SLOs (0: none; — without) and the
    share of prompt tokens from the prefix cache ('totals', columns TOTAL_COLUMNS)."""
    headers, columns, totals, metrics = [], [], [], {}
    for side, fig in sides.items():
        cancel.check()
        headers += [f"{side} {stat}" for stat in VLLM_STATS]
        if fig is None or fig.result is None:
            columns += [["—"] * len(VLLM_METRICS)] * len(VLLM_STATS)
            totals.append(["—"] * len(TOTAL_COLUMNS))
            continue
        m = vllm_metrics.bench_metrics(fig.result, fig.workload, cost=fig.config.cost,
                                      slo_ttft_ms=slo_ttft_ms or None, slo_tpot_ms=slo_tpot_ms or None)
        metrics[side] = m
        columns += [[_ms(m.get(f"{stat}_{key}_ms")) for key, _ in VLLM_METRICS] for stat in VLLM_STATS]
        goodput = m.get("request_goodput")
        totals.append([f"{m['completed']:,}", f"{m['request_throughput']:.2f}", f"{m['output_throughput']:,.0f}",
                       f"{m['total_token_throughput']:,.0f}", "—" if goodput is None else f"{goodput:.2f}",
                       "—" if fig.cached_share is None else f"{fig.cached_share:.1%}"])
    cells = [[col[r] for col in columns] for r in range(len(VLLM_METRICS))]
    conditions = [f"TTFT ≤ {slo_ttft_ms:g} ms"] * bool(slo_ttft_ms) + [f"TPOT ≤ {slo_tpot_ms:g} ms"] * bool(slo_tpot_ms)
    note = (f"达标:{' 且 '.join(conditions)} · goodput: requests per second meeting {' and '.join(conditions)}"
            if conditions else "达标请求率:先设 SLO · goodput: set an SLO (TTFT, TPOT in ms) to count the requests that meet it")
    return {"rows": [label for _, label in VLLM_METRICS], "headers": headers, "cells": cells,
            "totals": totals, "total_rows": list(sides), "note": note, "metrics": metrics}


TOTAL_COLUMNS = ("完成 · completed", "请求/s · req/s", "输出 · output tok/s", "总计 · total tok/s",
                 "达标 · goodput req/s", "前缀缓存 · cached")
