"""A replay's results under the names `vllm bench serve` prints and saves, with its
definitions (vllm/benchmarks/serve.py, calculate_metrics), and AIPerf's per-request records.

- completed, total_input_tokens, total_output_tokens; request_throughput,
  output_throughput, total_token_throughput = those over `duration`.
- duration: from the first arrival to the last finish. vLLM times its whole run (a
  perf_counter from just before it sends the first request until every response is in),
  AIPerf from the first request sent to the last response received; in the replay both
  are this span.
- ttft, e2el per request; tpot per request with more than one output token:
  (e2el − ttft) / (output − 1); itl: every gap between two consecutive chunks of a request's
  stream after the first, all requests' gaps in one list. On the completions endpoint a chunk
  is a token: output − 1 gaps. The chat endpoint's server sends a role chunk (empty content)
  just before the first token's (vllm/entrypoints/openai/serving_chat.py, first_iteration);
  the client (vllm/benchmarks/lib/endpoint_request_func.py) takes TTFT at the role chunk and
  appends a gap for every later chunk with choices, so each request adds one gap of ~0: the
  chat run's mean ITL is Σ (output − 1)·TPOT / Σ output (client_itl_gaps). For each: mean, median, std (numpy's, ddof 0) and the
  p90 / p99 of np.percentile (linear interpolation), all in ms.
- request_goodput: requests per second of duration that meet every SLO given
  (a request is good when slo >= its value; a request with one output token counts with
  tpot 0), None when no SLO is given, as vLLM saves it.

The book's own p95s (ttft_p95_s, ...) are nearest-rank and stay in core.serving.replay.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from core.registry import ParamError
from core.serving.gap_runs import Gaps, gap_stats

PERCENTILES = (90, 99)
LATENCIES = ("ttft", "tpot", "itl", "e2el")
STATS = ("mean", "median", "std") + tuple(f"p{p}" for p in PERCENTILES)
TOTALS = ("completed", "failed", "total_input_tokens", "total_output_tokens", "duration", "request_throughput",
          "request_goodput", "output_throughput", "total_token_throughput")
# Every key bench_metrics returns, in the order vLLM saves them.
NAMES = TOTALS + tuple(f"{s}_{m}_ms" for m in LATENCIES for s in STATS)
SLO_KEYS = ("slo_ttft_ms", "slo_tpot_ms", "slo_e2el_ms")
CHAT_ENDPOINT = "/v1/chat/completions"  # streams a role chunk before the first token
SAME_SUM = 1e-9  # relative: two sums of the same step times in another order agree to rounding
MAX_SLO_MS = 1e9


# -- weighted statistics, equal to numpy's on the expanded list ------------------------
def weighted_percentile(values, weights, q: float) -> float:
    """np.percentile(np.repeat(values, weights), q) (linear interpolation) without
    building the repeated list. weights: non-negative whole numbers."""
    return weighted_percentiles(values, weights, (q,))[0]


def weighted_percentiles(values, weights, qs) -> list[float]:
    """weighted_percentile at each q of qs, the values sorted once (a per-token list's sort
    was most of a long replay's report)."""
    values = np.asarray(values, dtype=float)
    weights = np.asarray(weights, dtype=np.int64)
    keep = weights > 0
    values, weights = values[keep], weights[keep]
    if values.size == 0:
        return [0.0 for _ in qs]  # vLLM: np.percentile(x or 0, q) of an empty list is 0
    order = np.argsort(values, kind="stable")
    values, ends = values[order], np.cumsum(weights[order])
    last = int(ends[-1]) - 1
    out = []
    for q in qs:
        h = q / 100.0 * last
        lo = math.floor(h)
        hi = min(lo + 1, last)
        v_lo = values[np.searchsorted(ends, lo, side="right")]
        v_hi = values[np.searchsorted(ends, hi, side="right")]
        out.append(float(v_lo + (h - lo) * (v_hi - v_lo)))
    return out


def weighted_stats(values, weights=None) -> dict[str, float]:
    """mean, median, std and p90/p99 of values each counted weights times (np.mean,
    np.median, np.std, np.percentile on the expanded list); zeros for no values."""
    values = np.asarray(values, dtype=float)
    weights = np.ones(values.size, np.int64) if weights is None else np.asarray(weights, dtype=np.int64)
    total = int(weights.sum())
    if total == 0:
        return {s: 0.0 for s in STATS}
    # np.sum, not np.dot: BLAS's dot splits long sums by thread count and CPU kernel, so a
    # point would differ in its last bits between machines (and Ray workers, one thread).
    mean = float(np.sum(values * weights) / total)
    var = float(np.sum((values - mean) ** 2 * weights) / total)
    median, *tails = weighted_percentiles(values, weights, (50,) + PERCENTILES)
    out = {"mean": mean, "median": median, "std": math.sqrt(max(var, 0.0))}
    for p, value in zip(PERCENTILES, tails):
        out[f"p{p}"] = value
    return out


# -- per-request measures --------------------------------------------------------------
def tpot_s(result) -> np.ndarray:
    """(e2el − ttft) / (output − 1) per request; nan where output <= 1 (no TPOT)."""
    g = result.output_tokens.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(g > 1, (result.finish_s - result.first_token_s) / (g - 1), np.nan)


def duration_s(result) -> float:
    return float(np.max(result.finish_s) - np.min(result.arrival_s))


def check_slos(slo_ttft_ms=None, slo_tpot_ms=None, slo_e2el_ms=None) -> dict[str, float]:
    """The SLOs given, by vLLM's goodput names (ttft, tpot, e2el), in ms."""
    given = {}
    for key, value in zip(SLO_KEYS, (slo_ttft_ms, slo_tpot_ms, slo_e2el_ms)):
        if value is None:
            continue
        if not isinstance(value, (int, float)) or not (0 < value <= MAX_SLO_MS):
            raise ParamError(key, f"got {value!r}; valid: (0, {MAX_SLO_MS:g}] ms")
        given[key[4:-3]] = float(value)
    return given


def meets_slo(result, slo_ttft_ms=None, slo_tpot_ms=None, slo_e2el_ms=None) -> np.ndarray:
    """Per request: every SLO given is >= its value (vLLM's test; tpot 0 for one token)."""
    slos = check_slos(slo_ttft_ms, slo_tpot_ms, slo_e2el_ms)
    tpot = np.nan_to_num(tpot_s(result), nan=0.0)
    measured = {"ttft": result.ttft_s, "tpot": tpot, "e2el": result.request_s}
    good = np.ones(result.arrival_s.size, dtype=bool)
    for name, slo_ms in slos.items():
        good &= slo_ms / 1000.0 >= measured[name]
    return good


def goodput(result, slo_ttft_ms=None, slo_tpot_ms=None, slo_e2el_ms=None) -> float | None:
    """vLLM's request_goodput: good requests per second of duration; None without SLOs."""
    if not check_slos(slo_ttft_ms, slo_tpot_ms, slo_e2el_ms):
        return None
    return int(meets_slo(result, slo_ttft_ms, slo_tpot_ms, slo_e2el_ms).sum()) / duration_s(result)


# -- the gaps between tokens -----------------------------------------------------------
def itl_samples(result, cost=None) -> tuple[np.ndarray, np.ndarray]:
    """Every gap between two consecutive tokens of a request, as (gaps_s, weights): gap
    gaps_s[i] occurs weights[i] times (itl_gaps expanded; with `cost`, one entry per
    step of every skipped run, so a long replay's arrays are long: statistics go through
    itl_gaps and core.serving.gap_runs instead)."""
    return itl_gaps(result, cost).expanded()


def itl_gaps(result, cost=None) -> Gaps:
    """Every gap between two consecutive tokens of a request, held compactly
    (core.serving.gap_runs.Gaps). Σ weights = Σ (output − 1).

    A request in decode gets a token in every step it runs, so a decode token's gap is
    the duration of the step that produced it: a series entry of one step gives its
    duration with weight = its decode rows. A skipped run of k lockstep steps lasting D
    gives each step's own duration when `cost` (the run's StepCost) is given and one line
    of its roofline bounds the whole run (the step times are then a + b·j, and a follows
    from D: one run of Gaps); otherwise, or where the lines cross inside the run, D/k for
    all k. Tokens not produced by a decode step are the ones that end a recompute after a
    preemption; their gaps together are exactly what the request times leave over
    (Σ (finish − first token) minus the decode gaps). Each is its wait in the queue
    (preempted → rescheduled, from the preemption log) plus an equal share of the rest
    (the recompute): their sum, so the mean ITL, is exact; their spread is approximate.
    """
    steps = result.series_steps
    rows = result.series_decode_rows
    t = result.series_t
    if steps is None or rows is None or t.size < 2:
        return Gaps.explicit(np.zeros(0), np.zeros(0, np.int64))
    dur = np.diff(t)
    steps, rows = steps[1:].astype(np.int64), rows[1:].astype(np.int64)
    live = (rows > 0) & (steps > 0)
    dur, steps, rows = dur[live], steps[live], rows[live]
    gaps = _run_gaps(dur, steps, rows, cost)
    decode_total = gaps.total()
    g = result.output_tokens.astype(np.int64)
    missing = int(np.sum(np.maximum(g - 1, 0)) - gaps.count)
    if missing > 0:
        spans = result.finish_s - result.first_token_s
        left = float(np.sum(spans[g > 1])) - decode_total
        extra = _resume_gaps(result, missing, max(left, 0.0))
        gaps = gaps.then(extra, np.ones(extra.size, np.int64))
    return gaps


def client_itl_gaps(result, cost=None, endpoint: str | None = None) -> Gaps:
    """The gaps `vllm bench serve` lists as itl for this endpoint: the engine's token gaps
    (itl_gaps) and, on the chat endpoint, one more per request (its role chunk to its first
    token's chunk, sent back to back: 0 s; see the module's note)."""
    gaps = _as_client_saw(result, itl_gaps(result, cost))
    if endpoint != CHAT_ENDPOINT:
        return gaps
    n = int(result.arrival_s.size)
    return gaps.then(np.zeros(1 if n else 0), np.full(1 if n else 0, n, np.int64))


def _as_client_saw(result, gaps: Gaps) -> Gaps:
    """The engine's gaps scaled to sum to the requests' own spans (first token to finish,
    as the client saw them). Without a front end they agree but for rounding and are kept
    as they are; a front end's queue delays tokens after the engine made them (a burst's
    first tokens wait behind the others' ingest), so the spans, and the client's mean
    ITL = Σ spans / Σ gaps, differ from the engine's step times. The mean is then exact,
    the spread the engine's."""
    g = result.output_tokens.astype(np.int64)
    spans = float(np.sum((result.finish_s - result.first_token_s)[g > 1]))
    engine = gaps.total()
    if engine <= 0 or abs(spans - engine) <= SAME_SUM * engine:
        return gaps
    f = spans / engine
    return replace(gaps, values=gaps.values * f, first=gaps.first * f, slope=gaps.slope * f, after=gaps.after * f)


def _run_gaps(dur, steps, rows, cost) -> Gaps:
    single = steps == 1
    gaps = [dur[single]]
    weights = [rows[single]]
    runs = ~single
    first = slope = np.zeros(0)
    kk = nn = np.zeros(0, np.int64)
    if np.any(runs):
        d, k, n = dur[runs], steps[runs], rows[runs]
        exact = _exact_steps(d, k, n, cost) if cost is not None else None
        if exact is None:
            gaps.append(d / k)
            weights.append(n * k)
        else:
            ok, first, slope = exact
            gaps.append(d[~ok] / k[~ok])
            weights.append(n[~ok] * k[~ok])
            first, slope, kk, nn = first[ok], slope[ok], k[ok], n[ok]
    return Gaps(np.concatenate(gaps), np.concatenate(weights).astype(np.int64), first, slope, kk, nn)


def _exact_steps(d, k, n, cost):
    """Per run: (the roofline's one line bounds every step, first step's time, slope).
    Step j of n lockstep decodes from contexts summing to C lasts
    overhead + max(a_m(C) + b_m·j, a_c(C) + b_c·j), each a linear in C (decode_lines)."""
    lines0 = cost.decode_lines(n.astype(float), 0.0)
    lines1 = cost.decode_lines(n.astype(float), 1.0)
    a_m0, b_m, a_c0, b_c = (np.asarray(x, dtype=float) for x in lines0)
    da_m = np.asarray(lines1[0], dtype=float) - a_m0
    da_c = np.asarray(lines1[2], dtype=float) - a_c0
    kf = k.astype(float)
    body = (d - cost.overhead_s * kf) / kf  # mean of max(...) over the run
    ok = np.zeros(d.size, dtype=bool)
    first = np.zeros(d.size)
    slope = np.zeros(d.size)
    for a0, da, b, other_a0, other_da, other_b in ((a_m0, da_m, b_m, a_c0, da_c, b_c),
                                                   (a_c0, da_c, b_c, a_m0, da_m, b_m)):
        a = body - b * (kf + 1) / 2  # Σ_{j=1..k} (a + b j) = k·body
        with np.errstate(divide="ignore", invalid="ignore"):
            c = np.where(da > 0, (a - a0) / da, np.nan)
        other = other_a0 + other_da * c
        bound = (c >= -1e-6) & (a + b >= other + other_b - 1e-12) & (a + b * kf >= other + other_b * kf - 1e-12)
        new = bound & ~ok & (a + b > 0)
        first[new] = cost.overhead_s + a[new] + b[new]
        slope[new] = b[new]
        ok |= new
    return ok, first, slope


def _resume_gaps(result, missing: int, total_s: float) -> np.ndarray:
    """`missing` gaps summing to total_s: each preemption after a request's first token
    waits from preempted to rescheduled (repeated preemptions of one request closest in
    time merged until the count matches), plus an equal share of what is left.

    Merging two neighbours leaves every other pair's distance as it was, so merging the
    closest pair again and again merges the (spans − missing) closest pairs at once
    (ties by position); with too few pairs, all are merged and the first `missing` kept."""
    log = np.asarray(result.preempt_log, dtype=float).reshape(-1, 3)
    r = log[:, 0].astype(np.int64)
    keep = np.isfinite(log[:, 2]) & (log[:, 1] >= result.first_token_s[r]) if r.size else np.zeros(0, bool)
    r, t0, t1 = r[keep], log[keep, 1], log[keep, 2]
    order = np.lexsort((t1, t0, r))  # as sorting [request, t0, t1] lists
    r, t0, t1 = r[order], t0[order], t1[order]
    excess = r.size - missing
    if excess > 0:
        same = np.flatnonzero(r[1:] == r[:-1])  # pair (i, i+1) of one request
        chosen = same[np.lexsort((same, t0[same + 1] - t1[same]))[:excess]]
        merge = np.zeros(r.size, bool)
        merge[chosen + 1] = True  # span i+1 joins span i
        starts = np.flatnonzero(~merge)
        ends = np.append(starts[1:], r.size) - 1
        t0, t1 = t0[starts][:missing], t1[ends][:missing]
    waits = np.concatenate([t1 - t0, np.zeros(max(missing - t0.size, 0))])
    rest = total_s - float(waits.sum())
    if rest >= 0:
        return waits + rest / missing
    return waits * (total_s / float(waits.sum()))


# -- the whole set ----------------------------------------------------------------------
def bench_metrics(result, workload=None, slo_ttft_ms=None, slo_tpot_ms=None, slo_e2el_ms=None, cost=None,
                  endpoint: str | None = None) -> dict:
    """vLLM bench serve's result keys (NAMES) for one replay. Every request of a replay
    completes (failed = 0). cost: the engine's StepCost, for exact step times within
    skipped decode runs (see itl_samples). endpoint: the API the client streamed from (its
    ITL counting, client_itl_gaps); by default the workload's meta["endpoint"], else
    /v1/completions."""
    if endpoint is None:
        endpoint = dict(getattr(workload, "meta", None) or {}).get("endpoint")
    check_slos(slo_ttft_ms, slo_tpot_ms, slo_e2el_ms)
    dur = duration_s(result)
    n = int(result.arrival_s.size)
    total_in = int(np.sum(result.input_tokens))
    total_out = int(np.sum(result.output_tokens))
    out = {"completed": n, "failed": 0, "total_input_tokens": total_in, "total_output_tokens": total_out,
           "duration": dur, "request_throughput": n / dur,
           "request_goodput": goodput(result, slo_ttft_ms, slo_tpot_ms, slo_e2el_ms),
           "output_throughput": total_out / dur, "total_token_throughput": (total_in + total_out) / dur}
    tpot = tpot_s(result)
    samples = {"ttft": Gaps.explicit(result.ttft_s, np.ones(n, np.int64)),
               "tpot": Gaps.explicit(tpot[np.isfinite(tpot)], np.ones(int(np.isfinite(tpot).sum()), np.int64)),
               "itl": client_itl_gaps(result, cost, endpoint), "e2el": Gaps.explicit(result.request_s, np.ones(n, np.int64))}
    for name in LATENCIES:
        for stat, value in gap_stats(samples[name], weighted_stats, PERCENTILES).items():
            out[f"{stat}_{name}_ms"] = value * 1000.0
    return out


def measured_metrics(measured, output_tokens) -> dict:
    """The same latency keys for a measured `vllm bench serve` run (a trace's
    meta["measured"]: per-request ttfts_s and itls_s lists) to lay beside the replay's:
    e2el = ttft + Σ its gaps (the last chunk's time), tpot = Σ gaps / (output − 1) with the
    run's own output lengths, itl = every gap."""
    ttft = np.asarray(measured["ttfts_s"], dtype=float)
    itls = [np.asarray(x, dtype=float) for x in measured["itls_s"]]
    decode = np.array([x.sum() for x in itls]) if itls else np.zeros(0)
    g = np.asarray(output_tokens, dtype=float)[: ttft.size]
    with np.errstate(divide="ignore", invalid="ignore"):
        tpot = np.where(g > 1, decode / (g - 1), np.nan)
    gaps = np.concatenate(itls) if itls else np.zeros(0)
    samples = {"ttft": ttft, "tpot": tpot[np.isfinite(tpot)], "itl": gaps, "e2el": ttft + decode}
    return {f"{stat}_{name}_ms": value * 1000.0 for name in LATENCIES
            for stat, value in weighted_stats(samples[name]).items()}


# -- AIPerf's per-request records ---------------------------------------------------------
def aiperf_records(result, workload=None) -> list[dict]:
    """One record per request in AIPerf's profile_export.jsonl layout (metadata, metrics
    with value and unit, error). Times are nanoseconds since the replay's start (AIPerf
    writes epoch ns); the worker is "simulated". Streaming per-chunk measures the replay
    does not keep per request (inter_chunk_latency, time_to_second_token) are left out."""
    sessions = getattr(workload, "sessions", None) if workload is not None else None
    tpot = tpot_s(result)
    records = []
    for i in range(result.arrival_s.size):
        start, finish = float(result.arrival_s[i]), float(result.finish_s[i])
        session = int(sessions.session[i]) if sessions is not None else i
        turn = int(sessions.turn[i]) if sessions is not None else 0
        g = int(result.output_tokens[i])
        metrics = {
            "input_sequence_length": {"value": int(result.input_tokens[i]), "unit": "tokens"},
            "time_to_first_token": {"value": (float(result.first_token_s[i]) - start) * 1e3, "unit": "ms"},
            "request_latency": {"value": (finish - start) * 1e3, "unit": "ms"},
            "output_token_count": {"value": g, "unit": "tokens"},
            "output_sequence_length": {"value": g, "unit": "tokens"},
        }
        if g > 1 and tpot[i] > 0:
            metrics["inter_token_latency"] = {"value": float(tpot[i]) * 1e3, "unit": "ms"}
            metrics["output_token_throughput_per_user"] = {"value": 1.0 / float(tpot[i]), "unit": "tokens/sec/user"}
        records.append({
            "metadata": {"session_num": session, "x_request_id": f"request-{i}",
                         "x_correlation_id": f"session-{session}", "conversation_id": f"session-{session}",
                         "turn_index": turn, "request_start_ns": round(start * 1e9), "request_ack_ns": None,
                         "request_end_ns": round(finish * 1e9), "worker_id": "simulated",
                         "record_processor_id": "lab", "benchmark_phase": "profiling", "was_cancelled": False,
                         "cancellation_time_ns": None},
            "metrics": metrics,
            "error": None,
        })
    return records
