"""§3.2: a measured agent trajectory replayed through the engine with prefix caching, so
the cached tokens the engine finds sit beside the ones vLLM reported, and what many such
agents sharing one engine see: the gaps between tokens (ITL) and goodput under an SLO.

The trajectory becomes one session per copy (core.serving.workload.Sessions), a turn per
round. The rule for each turn's shared prefix (what it keeps of the previous turn's prompt
+ output): the measured cached tokens, capped by that history. vLLM reports hits in whole
16-token blocks, so the true common prefix is between K and K + 15 tokens; K is the one
value the record fixes, and the engine, hashing 16-token blocks too, finds exactly K when
nothing was evicted. So on the book's pool the comparison checks the engine's cache rules;
dropping the KV during tools, turning caching off, a small pool or many copies show what
moves it. Turn 0 shares nothing (the replay starts cold). A later turn arrives when its
predecessor finished plus its tool wall clock (think time 0: the host's "other" time is
not split by round). Copies start `stagger_s` apart.
"""
from __future__ import annotations

import numpy as np

from core.agents.trajectory import Trajectory, load_trajectory, trace_param
from core.cancel import NEVER, CancelToken
from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError
from core.serving import vllm_metrics as vm
from core.serving.engine import EngineConfig, replay, validate
from core.serving.workload import Sessions, Workload
from core.units import GiB

MAX_COPIES = 256
MAX_REQUESTS = 200_000  # copies × rounds: a replay of a few seconds at most
ITL_BINS = 40


def sessions_workload(t: Trajectory, copies: int = 1, stagger_s: float = 0.0, keep_kv: bool = True) -> Workload:
    """`copies` sessions of the trajectory, the shared prefix of each turn by the rule above."""
    r = t.rounds
    history = np.concatenate([[0], (t.input_tokens + t.output_tokens)[:-1]])
    shared = np.minimum(t.cached_tokens, history)
    shared[0] = 0
    think = np.zeros(r)
    think[0] = np.nan  # turn 0 arrives at its session's start
    rep = lambda a: np.tile(a, copies)  # noqa: E731
    session = np.repeat(np.arange(copies, dtype=np.int64), r)
    sessions = Sessions(
        session=session, turn=rep(np.arange(r, dtype=np.int64)),
        new_input_tokens=rep(t.input_tokens - shared), shared_prefix_tokens=rep(shared),
        think_time_s=rep(think), tool_wait_s=rep(t.tool_s), keep_kv_during_tool=np.full(r * copies, keep_kv))
    return Workload(arrival_s=session * float(stagger_s), input_tokens=rep(t.input_tokens),
                    output_tokens=rep(t.output_tokens), label=f"{t.name} × {copies}", sessions=sessions)


def _config(values) -> EngineConfig:
    return EngineConfig(kv_pool_bytes=float(values["kv_pool_bytes"]), prefix_caching=bool(values["prefix_caching"]))


def _check(values: dict) -> None:
    t = load_trajectory(values["trace"])
    if t.rounds * values["copies"] > MAX_REQUESTS:
        raise ParamError("copies", f"got {values['copies']} copies of {t.rounds} rounds; valid: copies × rounds "
                         f"<= {MAX_REQUESTS:,}")
    try:
        validate(_config(values), sessions_workload(t, 1, 0.0, values["keep_kv_during_tool"]))
    except ParamError as err:  # the engine names its own fields; here the pool is what the user sets
        raise ParamError(err.param if err.param in ("trace", "kv_pool_bytes") else "kv_pool_bytes", err.message) from None


def itl_histogram(gaps_s: np.ndarray, weights: np.ndarray, bins: int = ITL_BINS) -> dict:
    """Share of gaps (%) per bin of ms, over the range the gaps span."""
    if gaps_s.size == 0 or weights.sum() == 0:
        return {"edges_ms": np.array([0.0, 1.0]), "share_pct": np.zeros(1)}
    ms = gaps_s * 1e3
    lo, hi = float(ms.min()), float(ms.max())
    pad = max(0.0, 0.1 * hi - (hi - lo)) / 2  # a narrow spike stays narrow on a readable axis
    lo, hi = lo - pad, hi + pad
    counts, edges = np.histogram(ms, bins=bins, range=(lo, hi), weights=weights)
    return {"edges_ms": edges, "share_pct": 100 * counts / counts.sum()}


def replay_trajectory(trace: str, copies: int, stagger_s: float, prefix_caching: bool, keep_kv_during_tool: bool,
                      kv_pool_bytes: float, slo_ttft_ms: float, slo_tpot_ms: float,
                      cancel: CancelToken = NEVER) -> dict:
    """The calculator's outputs, with what the panel draws under 'figure'."""
    t = load_trajectory(trace)
    values = {"kv_pool_bytes": kv_pool_bytes, "prefix_caching": prefix_caching}
    work = sessions_workload(t, copies, stagger_s, keep_kv_during_tool)
    result = replay(work, _config(values), cancel=cancel)
    cached = result.cached_tokens if result.cached_tokens is not None else np.zeros(len(work), np.int64)
    assert work.sessions is not None  # a sessions workload carries them
    first = work.sessions.session == 0
    engine_cached = cached[first]
    gaps, weights = vm.itl_samples(result)
    itl = vm.weighted_stats(gaps * 1e3, weights) if gaps.size else {"median": None, "p90": None, "p99": None}
    good = vm.meets_slo(result, slo_ttft_ms, slo_tpot_ms)
    duration = vm.duration_s(result)
    figure = {
        "rounds": np.arange(t.rounds), "measured_cached": t.cached_tokens, "engine_cached": engine_cached,
        "input_tokens": t.input_tokens, "first_session_request_s": result.request_s[first],
        "measured_model_s": t.model_s, "itl": itl_histogram(gaps, weights),
        "itl_median_ms": itl["median"], "itl_p99_ms": itl["p99"], "good_share": float(good.mean()),
    }
    return {
        "requests": len(work),
        "measured_cached_tokens": int(t.cached_tokens.sum()),
        "engine_cached_tokens": int(engine_cached.sum()),
        "rounds_matching": int(np.sum(engine_cached == t.cached_tokens)),
        "engine_hit_rate": float(cached.sum() / work.input_tokens.sum()),
        "first_session_s": float(result.finish_s[first].max() - result.arrival_s[first].min()),
        "makespan_s": float(result.finish_s.max() - result.arrival_s.min()),
        "itl_median_ms": itl["median"], "itl_p99_ms": itl["p99"],
        "request_goodput": int(good.sum()) / duration if duration > 0 else None,
        "good_requests": int(good.sum()),
        "tool_wait_kv_byte_s": result.extras.get("tool_wait_kv_byte_s"),
        "figure": figure,
    }


REPLAY = Calculator(
    name="agent.replay",
    title="同一轨迹回放:引擎的前缀缓存 · the trajectory through the engine",
    ref=BookRef("3.2.1", "前缀复用"),
    params=(
        trace_param(),
        Param("copies", "sessions", 16, "agents running this task at once, one session each (示意)", 1, MAX_COPIES,
              kind="int", illustrative=True),
        Param("stagger_s", "s", 2.0, "start of one copy after the previous (示意)", 0, 1e6, illustrative=True),
        Param("prefix_caching", "", True, "the engine's automatic prefix cache (vLLM default: on)", kind="bool"),
        Param("keep_kv_during_tool", "", True, "keep a session's KV cached while its tool runs (off: dropped)",
              kind="bool"),
        Param("kv_pool_bytes", "bytes", float(24 * GiB), "the engine's KV pool (the book's replay: 24 GiB)",
              1, 1e13),
        Param("slo_ttft_ms", "ms", 1000.0, "SLO: time to first token of each call (示意)", 0, 1e9,
              min_exclusive=True, illustrative=True),
        Param("slo_tpot_ms", "ms", 50.0, "SLO: time per output token of each call (示意)", 0, 1e9,
              min_exclusive=True, illustrative=True),
    ),
    outputs=(
        Output("requests", "calls", "model calls replayed", "copies × rounds"),
        Output("measured_cached_tokens", "tokens", "what vLLM reported for the run", "Σ K_i"),
        Output("engine_cached_tokens", "tokens", "what the engine's cache finds for the first copy"),
        Output("rounds_matching", "rounds", "rounds where the two agree exactly"),
        Output("engine_hit_rate", "ratio", "over every copy", "Σ cached / Σ prompt"),
        Output("first_session_s", "s", "the first copy from start to its last token (tools included)"),
        Output("makespan_s", "s", "every copy done"),
        Output("itl_median_ms", "ms", "gap between two tokens of a call, all calls"),
        Output("itl_p99_ms", "ms", "", "np.percentile, linear"),
        Output("request_goodput", "req/s", "calls meeting both SLOs per second (vLLM's request_goodput)"),
        Output("good_requests", "calls", "calls meeting both SLOs"),
        Output("tool_wait_kv_byte_s", "byte*s", "KV the engine keeps cached during tool waits"),
    ),
    compute=replay_trajectory,
    check=_check,
    book=(
        BookValue("engine_cached_tokens", 4480, "命中 4,480 (引擎的前缀缓存找到同样多)", params={"copies": 1}),
    ),
)

CALCULATORS = (REPLAY,)
