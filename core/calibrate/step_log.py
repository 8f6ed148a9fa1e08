"""A server's step log in the calibration: each logged engine step's measured time against
the step-time model's time for what the log says the step did (core/observe/steps.py:
parse_steps, step_inputs), as residuals beside the runs' per-request ones.

Why: client-side latencies mix the engine's steps with everything around them (the API
server, the client, a busy host); a step log times the engine's forward pass and sampling
alone, step by step, so it pins the step-time terms (per step, per sequence, prefill)
that the runs' latencies only see summed. What the log leaves out (the scheduler's own
work and the outputs' processing, vLLM's capture_iteration_details) the model's
per-step time then misses too: the fit weighs the two sources (STEP_WEIGHT: a log counts
as one run).

Two one-off costs per step, read from the log and priced when the step-time model has
their coefficients (coef_wake_s, coef_shape_s: 0 or absent, nothing is added; why and
what they measure: docs/vllm_cpu.md): `woke`, a step of
prompts only that the engine started after waiting for work (its clock's gap past the step
before, period_ms - elapsed_ms, over WAKE_GAP_MS; a step with decodes never follows a
wait: its sequences ran in the step before), and `first_size`, a step of a token count
the server had not run before (in this log, or among the sizes a `# load-lab: sizes run
before:` line lists: the server's steps before the log began; vLLM CPU builds a GEMM's
kernel for each new size once).

The cadence (cadence()): the API server's clock between two steps run back to back is the
engine's whole cycle, the log's elapsed time plus what it leaves out (the scheduler, the
outputs' processing): over the steps of decodes only (a step with decodes never follows a
wait; one with a prompt also carries the API server's work on that request, which the
front end's terms price) the gap period - elapsed is fitted as a + b·sequences (robust
least squares, each term >= 0), the per-step and per-sequence terms of the lab's model
(coef_step_s, coef_seq_s) beyond the log's fit. A log of whole seconds on its clock has
none.

Residuals: log(predicted / measured) per step, scaled by √(w_i / Σw) (w: a bootstrap
count), so the log's part is the mean of its squared log errors, and the median's log
error per kind of step (prefill, decode, mixed), the figures compare_steps reports. The
model's times are computed in one vectorised pass for a dense model on one stage (pp = 1,
no MoE: the CPU server's case), else step by step through BasisCost.step_time. No Qt.
"""
from __future__ import annotations

import re

import numpy as np

from core.observe.steps import Steps, compare_steps, read_steps, step_inputs
from core.registry import ParamError
from core.serving.step_basis import BasisCost

STEP_WEIGHT = 1.0
KINDS = ("prefill", "decode", "mixed")
MIN_STEPS = 5
EPS_MS = 1e-3
# Back-to-back steps: the API server's clock moves 0.1-0.8 ms past the engine's elapsed
# time (median; 1 ms resolution, a few ms when it is busy); a wait for a request is longer.
WAKE_GAP_MS = 5.0
# The API server's clock in scripts/vllm_cpu/logging.json's format: milliseconds. The
# cadence's fit counts a step more than this off linearly (a step the API server logged
# late is one outlier, not a square).
CLOCK_RESOLUTION_MS = 1.0
CADENCE_TERMS = ("coef_step_s", "coef_seq_s")
SIZES_BEFORE = re.compile(r"# load-lab: sizes run before: (?P<sizes>[0-9, ]*)")


class StepLog:
    """One log's steps and the model's inputs for each, read once."""

    def __init__(self, path: str, pool_tokens: int | None = None):
        try:
            self.steps: Steps = read_steps(path)
        except OSError as err:
            raise ParamError("steps", f"{path}: {err.strerror}; valid: a vLLM server log with "
                             "--enable-logging-iteration-details lines") from None
        if len(self.steps) < MIN_STEPS:
            raise ParamError("steps", f"{path}: {len(self.steps)} Iteration(...) lines; valid: a log of at least "
                             f"{MIN_STEPS} engine steps (vllm serve --enable-logging-iteration-details)")
        try:
            self.inputs = step_inputs(self.steps, pool_tokens)
        except ValueError as err:
            raise ParamError("steps", f"{path}: {err}") from None
        self.path = path
        self.kinds = self.steps.kinds
        self.measured_ms = np.maximum(self.steps.elapsed_ms.astype(float), EPS_MS)
        self.woke = woke(self.steps)
        self.first_size = first_size(self.steps, sizes_before(path))

    def __len__(self) -> int:
        return len(self.steps)

    def size(self) -> int:
        return len(self) + len(KINDS)

    def predicted_ms(self, cost: BasisCost) -> np.ndarray:
        x = self.inputs
        if cost.pp == 1 and cost.moe is None:
            rows = x.rows
            memory = (cost.coef_decode_weights * cost.weights_bytes
                      + cost.coef_decode_kv * cost.kv_bytes_per_token * x.kv_tokens) * cost.seconds_per_byte
            compute = (cost.coef_prefill_compute * cost.matrix_flops_per_token * (rows + cost.ramp_rows)
                       + cost.lm_head_flops_per_row * x.logit_rows
                       + cost.coef_attention * cost.attention_flops_per_pair * x.pairs) * cost.seconds_per_flop
            t = (cost.overhead_s + np.maximum(memory, compute) + cost.constant_terms(rows, x.seqs, rows)
                 + x.new * cost.coef_request_s)
            return self._one_off(np.asarray(t, dtype=float), cost) * 1e3
        t = np.array([cost.step_time(float(x.rows[i]), float(x.logit_rows[i]), float(x.kv_tokens[i]),
                                     float(x.pairs[i]), seqs=float(x.seqs[i]), new=float(x.new[i]))
                      for i in range(len(self))])
        return self._one_off(t, cost) * 1e3

    def _one_off(self, t: np.ndarray, cost) -> np.ndarray:
        """t (s) plus the one-off costs the model has coefficients for, added last (as the
        engine adds them); with none, t itself."""
        wake = float(getattr(cost, "coef_wake_s", 0.0))
        shape = float(getattr(cost, "coef_shape_s", 0.0))
        if wake:
            t = t + np.where(self.woke, wake, 0.0)
        if shape:
            t = t + np.where(self.first_size, shape, 0.0)
        return t

    def residuals(self, cost: BasisCost, counts: np.ndarray | None = None) -> np.ndarray:
        pred = np.maximum(self.predicted_ms(cost), EPS_MS)
        w = np.ones(len(self)) if counts is None else np.asarray(counts, dtype=float)
        r = np.log(pred / self.measured_ms) * np.sqrt(w / w.sum())
        med = np.zeros(len(KINDS))
        for i, kind in enumerate(KINDS):
            mask = (self.kinds == kind) & (w > 0)
            if mask.any():
                med[i] = np.log(_weighted_median(pred[mask], w[mask]) / _weighted_median(self.measured_ms[mask],
                                                                                         w[mask]))
        return STEP_WEIGHT * np.concatenate([r, med])

    def compare(self, cost: BasisCost) -> dict:
        """compare_steps' table (per kind: steps, medians, median error, median |step error|)."""
        return compare_steps(self.steps, self.predicted_ms(cost))


def cadence(logs) -> dict[str, float] | None:
    """What the logs' elapsed times leave out of each step, as seconds per CADENCE_TERMS
    term (a per step, b per sequence), from the steps of decodes only whose step before is
    logged; None when the logs' clocks cannot tell (whole seconds, or a clock that lags the
    steps it logs: back to back, the median period under the elapsed by more than the clock's
    resolution, an API server too busy to log each step as it ends) or no log has MIN_STEPS
    such steps."""
    from scipy.optimize import least_squares  # type: ignore[import-untyped]

    cols, gaps = [], []
    for log in logs:
        steps = log.steps
        clock = steps.clock_s[np.isfinite(steps.clock_s)]
        if not clock.size or np.all(clock == np.round(clock)):
            continue
        gap = steps.period_ms - steps.elapsed_ms
        keep = np.isfinite(gap) & (steps.gen_requests > 0) & (steps.ctx_requests == 0)
        if keep.sum() < MIN_STEPS or np.median(gap[keep]) < -CLOCK_RESOLUTION_MS:
            continue
        cols.append(np.c_[np.ones(int(keep.sum())), log.inputs.seqs[keep]])
        gaps.append(gap[keep])
    if not gaps:
        return None
    x, y = np.concatenate(cols), np.concatenate(gaps)
    start = np.array([max(float(np.median(y)), 0.0), 0.0])
    fit = least_squares(lambda c: x @ c - y, start, bounds=(0.0, np.inf), loss="soft_l1",
                        f_scale=CLOCK_RESOLUTION_MS)
    return {k: float(v) * 1e-3 for k, v in zip(CADENCE_TERMS, fit.x)}


def woke(steps: Steps) -> np.ndarray:
    """Steps of prompts only that the engine started after waiting for work: the clock's gap
    past the step before over WAKE_GAP_MS, or the log's first step (a run's log starts at
    an engine with nothing to do). A clock of whole seconds (vLLM's own log format) cannot
    tell a wait: then only the first step."""
    gap = steps.period_ms - steps.elapsed_ms
    clock = steps.clock_s[np.isfinite(steps.clock_s)]
    if clock.size and np.all(clock == np.round(clock)):
        gap = np.full(len(steps), np.nan)
    waited = np.isfinite(gap) & (gap > WAKE_GAP_MS)  # nan: a predecessor not in the log
    if len(steps):
        waited[0] = True
    return waited & (steps.gen_requests == 0) & (steps.ctx_requests > 0)


def first_size(steps: Steps, before: set[int] | None = None) -> np.ndarray:
    """Steps whose token count (rows) neither an earlier step of the log nor `before` had."""
    seen = set(before or ())
    out = np.zeros(len(steps), dtype=bool)
    for i, rows in enumerate(steps.rows.tolist()):
        out[i] = rows not in seen
        seen.add(rows)
    return out


def sizes_before(path: str) -> set[int] | None:
    """The token counts a `# load-lab: sizes run before: 1,2,64,...` line of the log lists
    (scripts/vllm_cpu/end_to_end.sh writes it: the server's steps before the log began);
    None without one."""
    out = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = SIZES_BEFORE.match(line)
            if m:
                out = (out or set()) | {int(v) for v in m["sizes"].replace(" ", "").split(",") if v}
    return out


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    order = np.argsort(values, kind="stable")
    v, c = values[order], np.cumsum(weights[order])
    return float(v[np.searchsorted(c, 0.5 * c[-1])])
