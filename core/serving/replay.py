"""§3.1.3 真实回放: the book's two-minute replay (Qwen3-8B, one RTX PRO 6000, a 24 GiB KV
pool, 64 sequences, prefix caching off) through the continuous-batching engine model.

The book's observed values (vLLM 0.23) are kept in OBSERVED and shown beside the
simulated ones; the timing figures are `lab verify` rows with a 10% tolerance (the
model is a roofline with documented knobs, not the real engine).
"""
from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np

from core import catalog
from core.cancel import NEVER, CancelToken
from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError
from core.request.metrics import nearest_rank_value
from core.serving import workload as wl
from core.serving.decode_rate import decode_rate
from core.serving.engine import EngineConfig, ReplayResult, replay, validate
from core.serving.mix import class_params, classes_from
from core.serving.replicas import MAX_REPLICAS, check_routed_work, replay_replicas
from core.serving.routers import ROUTER_NOTES, ROUTERS
from core.serving.step_cost import BANDWIDTH_EFFICIENCY, PREFILL_MFU, STEP_OVERHEAD_S, StepCost, default_token_budget
from core.units import GiB

_HAS_PREFIX_CACHING = "prefix_caching" in getattr(EngineConfig, "__dataclass_fields__", {})
_QWEN = catalog.model("qwen3-8b")
BOOK_CARD_KEY = "rtx-pro-6000-blackwell"
_CARD = catalog.hardware(BOOK_CARD_KEY)
BOOK_CARD_PRICE_SOURCE = _CARD.price_source  # the default price_per_card_hour's note

# The two runs of the book and what vLLM 0.23 showed (真实回放 table).
SCENARIOS: dict[str, dict] = {
    "uniform": {"label": "均匀混合 1:1", "params": {"shares_long_input": (0.5, 0.5)}},
    "shift": {"label": "前 9:1、后 1:9", "params": {"shares_long_input": (0.9, 0.1)}},
}
OBSERVED: dict[str, dict[str, float]] = {
    "uniform": {"request_p95_s": 299.4, "ttft_p95_s": 242.9, "first_schedule_wait_p95_s": 242.4,
                "last_completion_s": 419.8, "preemptions": 62, "kv_peak_fraction": 1.0},
    "shift": {"request_p95_s": 299.4, "ttft_p95_s": 258.9, "first_schedule_wait_p95_s": 258.4,
              "last_completion_s": 418.7, "preemptions": 24, "kv_peak_fraction": 1.0},
}
METRICS = ("ttft_p95_s", "request_p95_s", "first_schedule_wait_p95_s", "last_completion_s",
           "preemptions", "kv_peak_fraction")


def nearest_rank_p95(values: np.ndarray, q: float = 0.95) -> float | None:
    """The ⌈q·n⌉-th smallest (1-based): the book's nearest-rank percentile (the one
    function of core.request.metrics, with its rounding guard: 0.95 · 480 is rank 456)."""
    return nearest_rank_value(values, q)


@lru_cache(maxsize=1)
def _book_inputs():
    return REPLAY.resolve()


def matching_scenario(values) -> str | None:
    """The key of the book's run these parameters are (all defaults but the scenario's
    shares; the seed does not matter for the even, interleaved arrivals), or None.
    values: serving.replay's checked inputs (compared as they are, not parsed again)."""
    defaults = _book_inputs()
    for key, scenario in SCENARIOS.items():
        expected = dict(defaults, **scenario["params"])
        if all(values.get(k) == v for k, v in expected.items() if k not in ("seed", "price_per_card_hour")):
            return key
    return None


def book_decode_bound_s() -> float:
    """The book's 至少 197.6 s (its verify row), shown beside the simulated bound."""
    return next(b.value for b in REPLAY.book if b.output == "decode_bound_s")


def config_from(values, cost: StepCost | None = None) -> EngineConfig:
    """The engine's config from serving.replay's values; cost: a step-time model built
    elsewhere (the basis model of a deployment, core.serving.simulate_keys.step_cost),
    else the roofline of the values' three knobs (the book's run and the replay's form)."""
    cost = cost if cost is not None else StepCost(
        weights_bytes=float(values["weights_bytes"]),
        kv_bytes_per_token=float(values["kv_bytes_per_token"]),
        bandwidth_bytes_per_s=float(values["bandwidth_bytes_per_s"]),
        peak_flops=float(values["peak_flops"]),
        bandwidth_efficiency=float(values["bandwidth_efficiency"]),
        prefill_mfu=float(values["prefill_mfu"]),
        overhead_s=float(values["step_overhead_s"]),
        matrix_flops_per_token=float(values["matrix_flops_per_token"]),
        lm_head_flops_per_row=float(values["lm_head_flops_per_row"]),
        attention_flops_per_pair=float(values["attention_flops_per_pair"]),
    )
    kwargs: dict[str, Any] = dict(max_num_seqs=int(values["max_num_seqs"]), block_size=int(values["block_size"]),
                  kv_pool_bytes=float(values["kv_pool_bytes"]), token_budget=int(values["token_budget"]),
                  reserve_full_prompt=bool(values["reserve_full_prompt"]), cost=cost)
    if _HAS_PREFIX_CACHING:  # an engine without a prefix cache has no switch for it
        kwargs["prefix_caching"] = bool(values["prefix_caching"])
    return EngineConfig(**kwargs)


def workload_from(values: Mapping[str, Any]) -> wl.Workload:
    return wl.windows(values["durations_s"], values["rates_per_s"], values["shares_long_input"],
                      classes_from(values), arrival=values["arrival"], cv=float(values["cv"]),
                      seed=int(values["seed"]), class_order=values["class_order"])


def summarize(result: ReplayResult, workload: wl.Workload, config: EngineConfig) -> dict:
    """The contract outputs of serving.replay from one run."""
    bound = decode_rate(config.cost.weights_bytes, config.cost.kv_bytes_per_token, config.max_num_seqs,
                        workload.decode_context_mean, config.cost.bandwidth_bytes_per_s, 1)
    steps_total = workload.decode_steps_total
    return {
        "ttft_p95_s": nearest_rank_p95(result.ttft_s),
        "request_p95_s": nearest_rank_p95(result.request_s),
        "first_schedule_wait_p95_s": nearest_rank_p95(result.first_schedule_wait_s),
        "last_completion_s": float(np.max(result.finish_s)),
        "preemptions": int(result.preemptions.sum()),
        "decode_steps_total": steps_total,
        "kv_peak_fraction": result.kv_peak_blocks / result.num_blocks,
        "decode_bound_s": steps_total / bound["steps_per_s_per_card"],
        "requests": len(workload),
        "last_arrival_s": float(np.max(workload.arrival_s)),
        "kv_pool_blocks": result.num_blocks,
        "engine_steps": result.engine_steps,
        "prefill_tokens_total": result.prefill_tokens,
        "wall_s": result.wall_s,
        "series_t_s": result.series_t.tolist(),
        "series_waiting": result.series_waiting.tolist(),
        "series_running": result.series_running.tolist(),
        "series_kv_fraction": result.series_kv_fraction.tolist(),
    }


def run_replay(values, cancel: CancelToken = NEVER, cost: StepCost | None = None,
               client=None) -> tuple[ReplayResult, wl.Workload, EngineConfig]:
    """serving.replay's checked inputs (Inputs, or plain values taken from them) ->
    (result, workload, config); used by the panel and the CLI. Not checked again.
    cost: as config_from's; client: config -> config with a client's limit and a front
    end (core.serving.bench_keys.with_client's), None: the engine alone."""
    config = config_from(values, cost)
    if client is not None:
        config = client(config)
    work = workload_from(values)
    return replay_workload(work, config, values, cancel), work, config


def replay_workload(work: wl.Workload, config: EngineConfig, values, cancel: CancelToken = NEVER) -> ReplayResult:
    """One engine, or values' replicas (> 1) behind values' router (a trace's replay too)."""
    replicas = int(values.get("replicas", 1))
    if replicas > 1:
        return replay_replicas(work, config, replicas, str(values.get("router", ROUTERS[0])), cancel)
    return replay(work, config, cancel=cancel)


def _compute(**values) -> dict:
    result, work, config = run_replay(values)
    return summarize(result, work, config)


def band(values, seeds, cancel: CancelToken = NEVER,
         cost: StepCost | None = None) -> dict[str, tuple[float, float, float]]:
    """(min, median, max) of each metric over seeds: a band, not one number."""
    runs = []
    for seed in seeds:
        cancel.check()
        v = dict(values, seed=int(seed))
        result, work, config = run_replay(v, cancel, cost) if cost is not None else run_replay(v, cancel)
        runs.append(summarize(result, work, config))
    return {m: (float(np.min([r[m] for r in runs])), float(np.median([r[m] for r in runs])),
                float(np.max([r[m] for r in runs]))) for m in METRICS}


def _check(values: dict) -> None:
    n = len(values["durations_s"])
    for name in ("rates_per_s", "shares_long_input"):
        if len(values[name]) != n:
            raise ParamError(name, f"got {len(values[name])} values for {n} windows; valid: one per window")
    if not any(r * d >= 1 for r, d in zip(values["rates_per_s"], values["durations_s"])):
        raise ParamError("rates_per_s", "no window brings a request; valid: rate · duration >= 1 in some window")
    expected = sum(r * d for r, d in zip(values["rates_per_s"], values["durations_s"]))
    if expected > MAX_REPLAY_REQUESTS:
        raise ParamError("rates_per_s", f"{expected:,.0f} requests over the windows; valid: Σ rate · duration "
                         f"<= {MAX_REPLAY_REQUESTS:,}")
    a, b = classes_from(values)
    # Prefill steps are events the engine takes one by one: at least Σ prompt tokens / budget.
    prompt_tokens = sum(r * d * (sh * a.input_tokens + (1 - sh) * b.input_tokens) for r, d, sh in
                        zip(values["rates_per_s"], values["durations_s"], values["shares_long_input"]))
    if prompt_tokens / values["token_budget"] > MAX_PREFILL_STEPS:
        least = int(prompt_tokens / MAX_PREFILL_STEPS) + 1
        raise ParamError("token_budget", f"got {values['token_budget']:,} for {prompt_tokens:,.0f} prompt tokens: over "
                         f"{MAX_PREFILL_STEPS:,} prefill steps; valid: >= {least:,} tokens per step here")
    # Decode tokens are the work that grows without bound: a pool too small for the batch's
    # contexts preempts and recomputes over and over, and the ITL gaps grow with them.
    decode_tokens = sum(r * d * (sh * a.output_tokens + (1 - sh) * b.output_tokens) for r, d, sh in
                        zip(values["rates_per_s"], values["durations_s"], values["shares_long_input"]))
    if decode_tokens > MAX_DECODE_TOKENS:
        raise ParamError("rates_per_s", f"{expected:,.0f} requests over the windows decode {decode_tokens:,.0f} tokens; "
                         f"valid: Σ rate · duration · output tokens <= {MAX_DECODE_TOKENS:,} (fewer requests or shorter "
                         "outputs: long_input_out_tokens, long_output_out_tokens)")
    check_routed_work(int(values["replicas"]), str(values["router"]), int(expected))
    config = config_from(values)
    largest = max(a.input_tokens + a.output_tokens, b.input_tokens + b.output_tokens)
    probe = wl.Workload(np.zeros(1), np.array([largest - 1]), np.array([1]))
    validate(config, probe)


# The work a replay implies grows with its requests; beyond this it is a job for a sweep.
# About a minute of engine work and a few hundred MB of series on the hard (preempting) path.
MAX_REPLAY_REQUESTS = 100_000
MAX_PREFILL_STEPS = 60_000  # prompt tokens / token budget: steps that cannot be skipped
MAX_DECODE_TOKENS = 250_000_000  # a few seconds of engine and metrics on the preempting path
_W = float(_QWEN["weights_read_per_decode_step_bytes"])
_COST = StepCost()  # today's model: Qwen3-8B on the book's card
PARAMS = (
    Param("durations_s", "s", (60.0, 60.0), "arrival windows (the book: two minutes)", 0, 1e6, kind="floats", min_exclusive=True, max_items=1000),
    Param("rates_per_s", "1/s", (4.0, 4.0), "requests per second in each window (4)", 0, 1e4, kind="floats", max_items=1000),
    Param("shares_long_input", "ratio", (0.5, 0.5), "share of long-input requests per window (均匀 0.5,0.5; 9:1→1:9 = 0.9,0.1)", 0, 1, kind="floats", max_items=1000),
) + class_params() + (
    Param("arrival", "", "even", "arrival process within each window: evenly spaced (the book's run), Poisson, or Gamma", kind="choice", choices=wl.ARRIVALS),
    Param("cv", "", 2.0, "coefficient of variation of Gamma gaps (burstiness; 1 = Poisson)", 0.05, 20),
    Param("seed", "", 0, "random seed for Poisson/Gamma arrivals and random class order", 0, 2**31 - 1, kind="int"),
    Param("class_order", "", "interleave", "classes interleaved by share (deterministic) or shuffled with the seed", kind="choice", choices=wl.CLASS_ORDERS),
    Param("max_num_seqs", "seqs", 64, "most requests running at once (the book's run: 64)", 1, 100_000, kind="int"),
    Param("kv_pool_bytes", "bytes", float(24 * GiB), "KV cache pool (the book's run: 24 GiB)", 0, 1e14, min_exclusive=True),
    Param("block_size", "tokens", 16, "tokens per KV block (vLLM: 16)", 1, 4096, kind="int"),
    Param("token_budget", "tokens", default_token_budget(_CARD.figure("memory_bytes")), "tokens one step may process (vLLM's default: 8192 on GPUs with ≥ 70 GiB other than A100, else 2048)", 1, 10_000_000, kind="int"),
    Param("reserve_full_prompt", "", True, "admit a waiting request only when its whole prompt's blocks are free (vLLM scheduler_reserve_full_isl, default on)", kind="bool"),
    Param("weights_bytes", "bytes", _W, "weights read per step (Qwen3-8B BF16 without the input embedding)", 0, 1e15),
    Param("kv_bytes_per_token", "bytes", float(_QWEN["kv_bytes_per_token"]), "KV per token over all layers (Qwen3-8B: 144 KiB)", 1, 1e9),
    Param("bandwidth_bytes_per_s", "bytes/s", _CARD.figure("bandwidth_bytes_per_s"), "datasheet bandwidth (RTX PRO 6000 Blackwell: 1.792 TB/s)", 1e6, 1e16),
    Param("peak_flops", "FLOP/s", _CARD.figure("bf16_dense_flops"), "datasheet dense BF16 peak (503.8 TFLOP/s)", 1e6, 1e19),
    Param("bandwidth_efficiency", "ratio", BANDWIDTH_EFFICIENCY, "achieved share of bandwidth in decode (knob; documented default)", 1e-3, 1, illustrative=True),
    Param("prefill_mfu", "ratio", PREFILL_MFU, "achieved share of peak FLOPs in prefill (knob; documented default)", 1e-3, 1, illustrative=True),
    Param("step_overhead_s", "s", STEP_OVERHEAD_S, "fixed time per engine step outside kernels (knob; documented default)", 0, 10, illustrative=True),
    Param("matrix_flops_per_token", "FLOPs", _COST.matrix_flops_per_token, "matrix FLOPs per processed token, 2 per weight without embedding and lm_head (Qwen3-8B)", 0, 1e16),
    Param("lm_head_flops_per_row", "FLOPs", _COST.lm_head_flops_per_row, "lm_head FLOPs per row that produces a token, 2 · hidden · vocab (Qwen3-8B)", 0, 1e15),
    Param("attention_flops_per_pair", "FLOPs", _COST.attention_flops_per_pair, "attention FLOPs per query-key pair over all layers, 4 · heads · head_dim · layers (Qwen3-8B)", 0, 1e12),
    Param("replicas", "engines", 1, "engines of this config behind a router, each with its own card(s) and KV pool "
          "(1: the book's one engine)", 1, MAX_REPLICAS, kind="int"),
    Param("router", "", ROUTERS[0], "which replica a request goes to: " + "; ".join(f"{k} = {v}" for k, v in ROUTER_NOTES.items()),
          kind="choice", choices=ROUTERS),
    Param("price_per_card_hour", "USD/h", _CARD.figure("price_per_card_hour"), "what one card costs per hour (cost per hour and "
          "per million output tokens); default: the book's card, " + BOOK_CARD_PRICE_SOURCE, 0, 1e4),
    Param("prefix_caching", "", True, "reuse cached full blocks of a shared prompt prefix (vLLM automatic prefix caching; only with prefix or session information)", kind="bool"),
)

_SHIFT = SCENARIOS["shift"]["params"]
_RUN = "vLLM 0.23 实测"


def _observed_rows(key: str, params: dict) -> tuple[BookValue, ...]:
    obs = OBSERVED[key]
    name = SCENARIOS[key]["label"]
    return (
        BookValue("ttft_p95_s", obs["ttft_p95_s"], f"{name} TTFT p95 {obs['ttft_p95_s']} s ({_RUN}; ±10%)", rel_tol=0.10, params=params),
        BookValue("request_p95_s", obs["request_p95_s"], f"{name} 完整请求 p95 约 {obs['request_p95_s']} s ({_RUN}; ±10%)", rel_tol=0.10, params=params),
        BookValue("first_schedule_wait_p95_s", obs["first_schedule_wait_p95_s"], f"{name} 初次调度等待 p95 {obs['first_schedule_wait_p95_s']} s ({_RUN}; ±10%)", rel_tol=0.10, params=params),
        BookValue("last_completion_s", obs["last_completion_s"], f"{name} 最后完成时刻 {obs['last_completion_s']} s ({_RUN}; ±10%)", rel_tol=0.10, params=params),
        BookValue("preemptions", obs["preemptions"], f"{name} 抢占事件 {obs['preemptions']} ({_RUN}; ±10%)", rel_tol=0.10, params=params),
        BookValue("kv_peak_fraction", 1.0, f"{name}: KV 池到过 100%", abs_tol=1e-9, params=params),
    )


REPLAY = Calculator(
    byte_system="si",  # the book prints 15.14 GB and 41.02 GB
    name="serving.replay",
    title="真实回放 · continuous batching with a KV pool and preemption",
    ref=BookRef("3.1.3", "真实回放"),
    params=PARAMS,
    outputs=(
        Output("ttft_p95_s", "s", "95th percentile time to first token (nearest rank)", "TTFT = t₁ − t_a; ⌈0.95n⌉-th"),
        Output("request_p95_s", "s", "95th percentile complete-request time", "T_request = t_G − t_a; ⌈0.95n⌉-th"),
        Output("first_schedule_wait_p95_s", "s", "95th percentile wait until first scheduled", "t_sched − t_a; ⌈0.95n⌉-th"),
        Output("last_completion_s", "s", "when the last request finishes", "max t_G"),
        Output("preemptions", "events", "preemptions by recompute (the most recently admitted request is evicted)", "count"),
        Output("decode_steps_total", "steps", "decode steps of all requests", "Σ (G − 1)"),
        Output("kv_peak_fraction", "ratio", "highest KV pool use", "max used blocks / pool blocks"),
        Output("decode_bound_s", "s", "the bandwidth bound on one card: decode alone takes at least this", "Σ(G − 1) / (B / ((W + B·(c̄+1)·kv) / BW))"),
        Output("requests", "requests", "requests replayed", "n"),
        Output("last_arrival_s", "s", "when the last request arrives", "max t_a"),
        Output("kv_pool_blocks", "blocks", "blocks in the pool", "⌊pool / (block · kv)⌋"),
        Output("engine_steps", "steps", "engine steps taken", "count"),
        Output("prefill_tokens_total", "tokens", "prompt tokens prefilled, recompute included", "Σ chunk sizes"),
        Output("wall_s", "s", "wall time of the simulation", "measured"),
        Output("series_t_s", "s", "event times", "", kind="series"),
        Output("series_waiting", "requests", "waiting queue length", "", kind="series"),
        Output("series_running", "seqs", "running sequences", "", kind="series"),
        Output("series_kv_fraction", "ratio", "KV pool use", "", kind="series"),
    ),
    compute=_compute,
    check=_check,
    note="Step times from a roofline with three knobs (示意 defaults, documented in core/serving/step_cost.py); the book's observed values are shown beside them.",
    book=(
        BookValue("decode_steps_total", 552480, "480 条共 552,480 步 decode"),
        BookValue("decode_bound_s", 197.6, "至少 197.6 s", rel_tol=3e-4),
    ) + _observed_rows("uniform", {}) + _observed_rows("shift", _SHIFT),
)

CALCULATORS = (REPLAY,)
