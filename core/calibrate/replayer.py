"""One measured run's replay, set up once and priced many times: a fit evaluates hundreds
of coefficient sets, and each is only a new step-time model on the same engine config and
the same workload (no keys parsed, no file read, no deployment planned again).

The setup is `lab simulate serving trace=RUN.json model=... hardware=... [keys]`'s
(core/serving/simulate_keys.expand_checked, serving.replay's values, the client's
--max-concurrency from the result, the front end as simulate has it), so a replay here
equals that command's for the same coefficients, bit for bit. The server's KV pool is
mirrored by blocks: the blocks a request can take of the result's num_gpu_blocks
(vllm:cache_config_info, scraped by lab observe; all but vLLM's null block), × block_size
tokens at the lab's own KV bytes per token (the CPU server keeps float32 KV; the lab's bytes
per token may differ), and its prefix caching switch; keys given win.
No Qt here.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from core.registry import ParamError, get
from core.serving import bench_keys
from core.serving import replay as rp
from core.serving import simulate_keys as keys
from core.serving.engine import replay, validate
from core.serving.engine.frontend import FrontEnd
from core.serving.headless import trace_values
from core.serving.profile import COEF_KEYS
from core.serving.step_basis import from_deployment
from core.serving.step_defaults import DEFAULTS as STEP_DEFAULTS
from core.serving.vllm_metrics import itl_samples, weighted_percentile

# Keys a calibration does not take: the run is the workload, replayed as it was measured.
REFUSED = ("trace", "dataset", "scenario", "seeds", "replicas", "step_model", "profile") + keys.TRACE_KEYS
EPS_S = 1e-6  # latencies are compared in log; a zero (a token in the same ms) counts as 1 µs
# Half a block more than the server's blocks: the engine floors pool / block bytes.
POOL_MARGIN_BLOCKS = 0.5
# vLLM V1's BlockPool takes one block of num_gpu_blocks as its null block (block_pool.py:
# `self.null_block = self.free_block_queue.popleft()`), never given to a request: its KV
# usage is of the others (16 blocks of a 32-block server read 51.6%, 16 / 31).
NULL_BLOCKS = 1


def usable_blocks(num_gpu_blocks: int) -> int:
    """The blocks of a vLLM server's pool its requests can hold."""
    return max(int(num_gpu_blocks) - NULL_BLOCKS, 1)


@dataclass
class Prediction:
    """Per-request predicted latencies (the run's request order) and the ITL samples. The
    ITL samples of a replay are computed when first read (a fit reads only TTFT, TPOT and
    E2E: they cost as much as the replay itself)."""

    ttft_s: np.ndarray
    tpot_s: np.ndarray  # nan where output <= 1
    e2e_s: np.ndarray
    gaps: np.ndarray | None  # the ITL samples (None: from `source` when read)
    weights: np.ndarray | None
    preemptions: int
    engine_steps: int
    source: tuple | None = None  # (result, cost) the samples come from

    @property
    def itl_gaps_s(self) -> np.ndarray:
        self._itl()
        assert self.gaps is not None
        return self.gaps

    @property
    def itl_weights(self) -> np.ndarray:
        self._itl()
        assert self.weights is not None
        return self.weights

    def _itl(self) -> None:
        if self.gaps is None or self.weights is None:
            assert self.source is not None  # made by RunReplay.predict
            self.gaps, self.weights = itl_samples(*self.source)
            self.source = None


def mirrored_keys(run, raw: dict) -> dict:
    """raw plus what the run says of its server (block size, prefix caching, seats and
    budget when lab observe recorded them); raw's own keys win."""
    out = dict(raw)
    s = run.settings
    if isinstance(s.get("block_size"), int) and "block_size" not in raw:
        out["block_size"] = str(s["block_size"])
    if isinstance(s.get("enable_prefix_caching"), bool) and "prefix_caching" not in raw:
        out["prefix_caching"] = "true" if s["enable_prefix_caching"] else "false"
    for ours, theirs in (("max_num_seqs", "max_num_seqs"), ("token_budget", "max_num_batched_tokens")):
        if isinstance(s.get(theirs), int) and ours not in raw:
            out[ours] = str(s[theirs])
    return out


class RunReplay:
    """The run's engine config and workload, checked once; predict(coefs) replays it."""

    def __init__(self, run, raw: dict):
        for key in raw:
            if key in REFUSED:
                raise ParamError(key, "lab calibrate replays each run as it was measured; valid: without " + key + "=")
        self.run = run
        calc = get("serving.replay")

        def unknown() -> str:
            return ("unknown key of lab calibrate; valid: serving.replay's parameters, model=, hardware=, deployment "
                    "and coef_* keys (lab simulate serving --help)")

        base = mirrored_keys(run, raw)
        base["trace"] = run.path
        expanded = keys.expand_checked(base, unknown)
        blocks = run.settings.get("num_gpu_blocks")
        if isinstance(blocks, int) and blocks > 0 and "kv_pool_bytes" not in raw and expanded.deployment is not None:
            blocks = usable_blocks(blocks)
            first = trace_values(calc, expanded.raw)
            kv, block_size = float(first["kv_bytes_per_token"]), int(first["block_size"])
            base["kv_pool_bytes"] = repr((blocks + POOL_MARGIN_BLOCKS) * block_size * kv)
            # The engine refuses more seats than blocks (each running sequence holds one);
            # the server takes them and never fills them: the same runs either way.
            if int(first["max_num_seqs"]) > blocks:
                base["max_num_seqs"] = str(blocks)
            expanded = keys.expand_checked(base, unknown)
        if expanded.deployment is None or expanded.step_coefs is None:
            raise ParamError("model", "a calibration fits the basis step-time model of a deployment; valid: model= "
                             "and hardware= (a catalog key or file)")
        self.expanded = expanded
        self.values = trace_values(calc, expanded.raw)
        work = run.workload
        got = expanded.got
        cost = expanded.step_cost(self.values)
        config = rp.config_from(self.values, cost)
        config = bench_keys.with_client(config, bench_keys.with_trace_limit(got, work, 1),
                                        True, 1, getattr(work, "sessions", None) is not None)
        validate(config, work)
        self.config = config
        self.work = work
        # The coefficients as the replay has them before any fit (keys given, else defaults).
        self.defaults = {k: float(expanded.step_coefs[k]) for k in STEP_DEFAULTS}
        self.defaults["bandwidth_efficiency"] = float(self.values["bandwidth_efficiency"])
        self.defaults["prefill_mfu"] = float(self.values["prefill_mfu"])
        fe = config.frontend
        self.frontend_on = fe is not None
        fe = fe if fe is not None else FrontEnd()  # off: its defaults stand in the profile, unused
        self.defaults.update(frontend_request_ms=fe.request_s * 1e3, frontend_input_token_us=fe.input_token_s * 1e6,
                             frontend_output_token_us=fe.output_token_s * 1e6)
        self.given = {k for k in COEF_KEYS if k in raw}

    @property
    def num_blocks(self) -> int:
        return int(self.config.num_blocks)

    def cost(self, coefs: dict):
        c = dict(self.defaults, **coefs)
        values = dict(self.values, bandwidth_efficiency=c["bandwidth_efficiency"], prefill_mfu=c["prefill_mfu"])
        return from_deployment(self.expanded.deployment, values, {k: c[k] for k in STEP_DEFAULTS})

    def frontend(self, coefs: dict) -> FrontEnd | None:
        if not self.frontend_on:
            return None
        c = dict(self.defaults, **coefs)
        return FrontEnd(request_s=c["frontend_request_ms"] * 1e-3, input_token_s=c["frontend_input_token_us"] * 1e-6,
                        output_token_s=c["frontend_output_token_us"] * 1e-6)

    def predict(self, coefs: dict) -> Prediction:
        cost = self.cost(coefs)
        config = dataclasses.replace(self.config, cost=cost, frontend=self.frontend(coefs))
        result = replay(self.work, config)
        g = result.output_tokens.astype(float)
        e2e = result.finish_s - result.arrival_s
        with np.errstate(divide="ignore", invalid="ignore"):
            tpot = np.where(g > 1, (result.finish_s - result.first_token_s) / (g - 1), np.nan)
        return Prediction(np.asarray(result.ttft_s, dtype=float), tpot, e2e, None, None,
                          int(result.preemptions.sum()), int(result.engine_steps), (result, cost))


# -- the metrics each run is judged on -------------------------------------------------
LATENCIES = ("ttft", "tpot", "itl", "e2el")
METRICS = tuple(f"{s}_{m}_ms" for s in ("median", "p90") for m in LATENCIES)


def _stats(values, weights, name: str, out: dict) -> None:
    values = np.asarray(values, dtype=float)
    weights = np.asarray(weights, dtype=np.int64)
    keep = np.isfinite(values)
    for stat, q in (("median", 50), ("p90", 90)):
        out[f"{stat}_{name}_ms"] = weighted_percentile(values[keep], weights[keep], q) * 1000.0


def predicted_metrics(p: Prediction) -> dict:
    out: dict = {}
    ones = np.ones(p.ttft_s.size, np.int64)
    _stats(p.ttft_s, ones, "ttft", out)
    _stats(p.tpot_s, ones, "tpot", out)
    _stats(p.itl_gaps_s, p.itl_weights, "itl", out)
    _stats(p.e2e_s, ones, "e2el", out)
    return {m: out[m] for m in METRICS}


def measured_metrics(run) -> dict:
    """vllm bench's definitions (np.percentile, linear) over the run's completed requests."""
    out: dict = {}
    ones = np.ones(len(run), np.int64)
    _stats(run.ttft_s, ones, "ttft", out)
    _stats(run.tpot_s, ones, "tpot", out)
    gaps = np.concatenate(run.itl_s) if run.itl_s else np.zeros(0)
    _stats(gaps, np.ones(gaps.size, np.int64), "itl", out)
    _stats(run.e2e_s, ones, "e2el", out)
    return {m: out[m] for m in METRICS}


def compare(measured: dict, predicted: dict) -> dict:
    """{metric: {measured, predicted, error_pct}}: error = (predicted − measured) / measured."""
    out = {}
    for m in METRICS:
        a, b = float(measured[m]), float(predicted[m])
        err = (b - a) / a * 100.0 if a > 0 else (0.0 if b == a else math.inf)
        out[m] = {"measured": a, "predicted": b, "error_pct": err}
    return out
