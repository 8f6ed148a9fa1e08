"""Per-step records from a vLLM V1 server's log (`--enable-logging-iteration-details`), and
their measured times against the lab's step-time model.

vLLM 0.32 (vllm/v1/metrics/loggers.py, _log_iteration_details) logs one line per engine
step, through its API server's logger:

    (APIServer pid=6710) INFO 12-01 19:35:21.412 [loggers.py:199] Engine 000: Iteration(17):
    2 context requests, 256 context tokens, 3 generation requests, 3 generation tokens,
    iteration elapsed time: 41.27 ms, CPU KV cache usage: 1.6%

(one line in the log). A "context request" is one whose output is still empty (a prompt,
or a chunk of one); the others decode. The elapsed time is the engine core's wait for the
model's forward pass and sampling (vllm/v1/engine/core.py, capture_iteration_details):
the scheduler's own work and the outputs' processing fall outside it. The clock is the
API server's when it logged the line (milliseconds with scripts/vllm_cpu/logging.json,
whole seconds with vLLM's own format; no year). KV cache usage is the share of the pool's
blocks held by requests after the step was scheduled.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

LINE = re.compile(
    r"(?:(?P<date>\d\d-\d\d) (?P<clock>\d\d:\d\d:\d\d)(?:[.,](?P<frac>\d+))? .*?)?"
    r"Engine (?P<engine>\d+): Iteration\((?P<index>\d+)\): "
    r"(?P<ctx_requests>\d+) context requests, (?P<ctx_tokens>\d+) context tokens, "
    r"(?P<gen_requests>\d+) generation requests, (?P<gen_tokens>\d+) generation tokens, "
    r"iteration elapsed time: (?P<elapsed_ms>[0-9.]+) ms(?P<dummy> \(dummy\))?, "
    r"(?:\S+ )?KV cache usage: (?P<kv_percent>[0-9.]+)%")
POOL = re.compile(r"KV cache size: (?P<tokens>[0-9,]+) tokens")
COLUMNS = ("index", "engine", "ctx_requests", "ctx_tokens", "gen_requests", "gen_tokens")


@dataclass(frozen=True)
class Steps:
    """One row per logged step, as columns (numpy arrays of one length)."""

    index: np.ndarray  # Iteration(N): the engine's step counter
    engine: np.ndarray
    ctx_requests: np.ndarray  # prompts (or chunks of them) in the step
    ctx_tokens: np.ndarray
    gen_requests: np.ndarray  # requests decoding one token
    gen_tokens: np.ndarray
    elapsed_ms: np.ndarray  # the forward pass and sampling, as the engine core timed them
    kv_usage: np.ndarray  # share of the pool's blocks in use, 0..1
    clock_s: np.ndarray  # seconds since midnight when the API server logged it (nan: none)
    pool_tokens: int | None = None  # the log's "KV cache size: N tokens", when it has one

    def __len__(self) -> int:
        return len(self.index)

    @property
    def rows(self) -> np.ndarray:
        """Tokens the step processed."""
        return self.ctx_tokens + self.gen_tokens

    @property
    def period_ms(self) -> np.ndarray:
        """The API server's clock from the step before to this one (ms): the step's whole
        cadence (the scheduler's work and the outputs' processing included, which elapsed_ms
        leaves out) where the engine ran the two back to back; nan for a step whose previous
        one is not in the records. It carries the API server's own lateness in logging, and
        vLLM's own log format (whole seconds) makes it that coarse."""
        out = np.full(len(self), np.nan)
        if len(self) > 1:
            gap = np.diff(self.clock_s) * 1e3
            follows = (np.diff(self.index) == 1) & (np.diff(self.engine) == 0)
            out[1:] = np.where(follows, gap, np.nan)
        return out

    @property
    def kinds(self) -> np.ndarray:
        """'prefill' (prompts only), 'decode' (decodes only) or 'mixed', per step."""
        out = np.full(len(self), "mixed", dtype=object)
        out[(self.ctx_requests > 0) & (self.gen_requests == 0)] = "prefill"
        out[(self.ctx_requests == 0) & (self.gen_requests > 0)] = "decode"
        return out

    def select(self, mask) -> Steps:
        keep = np.asarray(mask, dtype=bool)
        cols = {name: getattr(self, name)[keep] for name in (*COLUMNS, "elapsed_ms", "kv_usage", "clock_s")}
        return Steps(**cols, pool_tokens=self.pool_tokens)


def parse_steps(lines: str | Iterable[str]) -> Steps:
    """The step records of a server log (text or lines); other lines are skipped, and so are
    a data-parallel engine's dummy steps (no work)."""
    if isinstance(lines, str):
        lines = lines.splitlines()
    rows: list[tuple] = []
    pool = None
    for line in lines:
        if "Iteration(" not in line:
            if pool is None and "KV cache size" in line and (p := POOL.search(line)):
                pool = int(p["tokens"].replace(",", ""))
            continue
        m = LINE.search(line)
        if m is None or m["dummy"]:
            continue
        clock = float("nan")
        if m["clock"]:
            h, mi, s = (int(x) for x in m["clock"].split(":"))
            clock = h * 3600 + mi * 60 + s + (float("0." + m["frac"]) if m["frac"] else 0.0)
        rows.append((*(int(m[c]) for c in COLUMNS), float(m["elapsed_ms"]), float(m["kv_percent"]) / 100, clock))
    table = np.array(rows, dtype=float).reshape(-1, len(COLUMNS) + 3)
    ints = {c: table[:, i].astype(np.int64) for i, c in enumerate(COLUMNS)}
    n = len(COLUMNS)
    return Steps(**ints, elapsed_ms=table[:, n], kv_usage=table[:, n + 1], clock_s=table[:, n + 2],
                 pool_tokens=pool)


def read_steps(path: str) -> Steps:
    with open(path, encoding="utf-8", errors="replace") as f:
        return parse_steps(f)


@dataclass(frozen=True)
class StepInputs:
    """What the lab's step-time model takes, per logged step (StepCost/BasisCost.step_time:
    rows, logit_rows, kv_tokens, pairs, seqs, new), as the engine's loop counts them."""

    rows: np.ndarray
    logit_rows: np.ndarray
    kv_tokens: np.ndarray
    pairs: np.ndarray
    seqs: np.ndarray
    new: np.ndarray


def step_inputs(steps: Steps, pool_tokens: int | None = None) -> StepInputs:
    """The model's inputs of each step, estimated from what the log says.

    The log gives counts, not contexts, so: each prompt in a step is a chunk of
    ctx_tokens / ctx_requests tokens, completing in the step (one logit row each). In a
    step of prompts only, the pool's tokens in use (kv_usage x pool_tokens, after the step
    was scheduled) past the chunks' own are context the chunks attend to (prefix-cache hits,
    a chunked prompt's earlier part), shared evenly; in a step with decodes they are the
    decodes' contexts (at least one token each), and its prompts start from nothing cached.
    The count is block-rounded: up to a block a sequence too many. pool_tokens: the log's
    own figure by default."""
    pool = pool_tokens or steps.pool_tokens
    if not pool:
        raise ValueError("the pool's size in tokens is needed: the log has no 'KV cache size: N tokens' line; "
                         "pass pool_tokens")
    ctx_r = steps.ctx_requests.astype(float)
    ctx_t = steps.ctx_tokens.astype(float)
    gen = steps.gen_requests.astype(float)
    chunk = np.divide(ctx_t, ctx_r, out=np.zeros_like(ctx_t), where=ctx_r > 0)
    in_use = steps.kv_usage * float(pool)
    dec_ctx = np.where(gen > 0, np.maximum(in_use - ctx_t, gen), 0.0)
    before = np.where((gen == 0) & (ctx_r > 0), np.maximum(in_use - ctx_t, 0.0), 0.0)
    prompt_pairs = ctx_t * np.divide(before, ctx_r, out=np.zeros_like(ctx_t), where=ctx_r > 0) \
        + ctx_r * chunk * (chunk + 1.0) / 2.0
    return StepInputs(rows=ctx_t + steps.gen_tokens, logit_rows=gen + ctx_r, kv_tokens=dec_ctx + ctx_t + before,
                      pairs=dec_ctx + prompt_pairs, seqs=gen + ctx_r, new=ctx_r)


def predicted_ms(steps: Steps, cost, pool_tokens: int | None = None) -> np.ndarray:
    """The step-time model's time of each logged step (ms). cost: a StepCost or BasisCost
    (core.serving.step_basis.from_deployment); a plain StepCost takes no seqs/new."""
    x = step_inputs(steps, pool_tokens)
    basis = "new" in cost.step_time.__code__.co_varnames
    out = np.empty(len(steps))
    for i in range(len(steps)):
        args = (float(x.rows[i]), float(x.logit_rows[i]), float(x.kv_tokens[i]), float(x.pairs[i]))
        if basis:
            out[i] = cost.step_time(*args, seqs=float(x.seqs[i]), new=float(x.new[i]))
        else:
            out[i] = cost.step_time(*args)
    return out * 1e3


def compare_steps(steps: Steps, predicted: np.ndarray) -> dict:
    """Measured against predicted step times (ms), per kind of step and over all of them:
    steps, medians of both, the error of the medians ((predicted - measured) / measured)
    and the median of each step's |error| (relative)."""
    predicted = np.asarray(predicted, dtype=float)
    if predicted.shape != steps.elapsed_ms.shape:
        raise ValueError(f"{predicted.shape[0]} predictions for {len(steps)} steps")
    kinds = steps.kinds
    out = {}
    for kind in ("all", "prefill", "decode", "mixed"):
        mask = np.ones(len(steps), bool) if kind == "all" else kinds == kind
        if not mask.any():
            continue
        meas, pred = steps.elapsed_ms[mask], predicted[mask]
        med_m, med_p = float(np.median(meas)), float(np.median(pred))
        out[kind] = {"steps": int(mask.sum()), "measured_median_ms": med_m, "predicted_median_ms": med_p,
                     "median_error": (med_p - med_m) / med_m if med_m > 0 else float("nan"),
                     "median_abs_step_error": float(np.median(np.abs(pred - meas) / np.maximum(meas, 1e-9)))}
    return out


def lab_cost(keys: dict):
    """The lab's basis step-time model for `lab simulate serving` keys (text values, e.g.
    {"model": "tiny-llama-cpu", "hardware": "core/data/hardware/cpu-2core.toml"}), as a
    replay of those keys prices its steps."""
    from core.registry import ParamError, get
    from core.serving import simulate_keys

    expanded = simulate_keys.expand_checked(dict(keys), lambda: "not a key of lab simulate serving")
    values = get("serving.replay").resolve(expanded.raw)
    cost = expanded.step_cost(values)
    if cost is None:
        raise ParamError("model", "the basis step-time model needs a deployment; valid: model= and hardware=")
    return cost
