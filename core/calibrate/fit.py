"""`lab calibrate`'s fit: the basis step-time model's coefficients (core/serving/step_basis.py)
fitted to measured runs by replaying each run's requests through the engine.

    cal = calibrate(["low.json", "mid.json"], {"model": "tiny-llama-cpu", "hardware": "cpu.toml"})
    cal.coefficients, cal.bands, cal.per_run, cal.loo, cal.profile

The loss: core/calibrate/loss.py (robust least squares on per-request log(predicted /
measured) of TTFT, TPOT and E2E, plus their medians and p90s, each run weighing alike).
The optimiser: scipy.optimize.least_squares (trust-region reflective, bounded), in log
space (core/calibrate/problem.py), with finite differences: the engine is a discrete-event
loop, its latencies piecewise smooth in the coefficients, so the loss is a trend plus a
noise of about a step's time. Hence three searches from each start (fine differences;
coarse then fine: search.local_fit) and starts from a Latin hypercube scan as well as the defaults
(search.global_fit); a replay costs a fraction of a millisecond, so a fit of a thousand or two
replays takes about a second or two (bench/bench_calibrate.py).

What is fitted (FIT_KEYS, in this order of preference): what client-side latencies of one
card identify. coef_step_s (every step's fixed time: the whole of TPOT at small batches),
coef_seq_s (the part that grows with the batch: identified when the batch size varies),
coef_prefill_compute (prefill's matrix time: TTFT grows with prompt length),
coef_request_s (a fixed cost per prompt completed: TTFT's intercept), coef_decode_kv (the
KV read: TPOT grows with context). Left at their defaults: bandwidth_efficiency,
prefill_mfu and coef_decode_weights (each a factor on a term another fitted key already
scales: the same time, not separable), coef_layer_s (a constant per step, as coef_step_s
is), the attention, ramp and TP/PP/EP terms (zero or unseen at tp = pp = 1 with short
prompts). fit_keys= chooses others. Before fitting, a key whose effect on the residuals
is below search.SENSITIVITY_FLOOR there and at its far ends, or that is collinear with keys ahead
of it (its Jacobian column within search.COLLINEAR of their span), is kept at its default, and the
fit says so. The API server's terms (frontend_request_ms, frontend_output_token_us, ...)
and the others can be fitted by name.

With a server's step logs (steps=: each logged step's time, core/calibrate/step_log.py),
two stages. One: the engine's terms (every fitted coef_*) from the logs alone, no replay,
with a weak prior toward the start in log space (PRIOR_SD, _prior_weight; problem.py). A log times
the forward pass at the batches it saw, independent of the client and the API server; the
runs' latencies see those steps summed with everything around them, and fitted jointly
they let the per-prompt and per-sequence terms absorb what is not the engine's (a fit to
a run of one to three sequences in flight put 6 ms a prompt and 0.3 ms a sequence into
the steps, and a saturated run of 40 came out 2.4x too slow). The prior holds the
directions the log does not pin (how a step grows past the batches it saw) near the
card's measured figures. Then the cadence: what the log's elapsed time leaves out of each
step (the scheduler, the outputs' processing), read off the log's own clock
(step_log.cadence: per step and per sequence), added to those terms. Two: from there, the
runs (with the logs, each a run's weight) fit CLIENT_KEYS and any frontend_* asked: the
per-step time that the runs' latencies hold beyond the logs' (the cadence's share, measured,
is in the start; the rest lies outside the engine: the API server, HTTP, the client). The
per-sequence share stays as measured: the runs at one load do not identify it. The
bootstrap draws both stages (each draw: the logs' refit plus the cadence, then the runs'
refit from the point estimate).

Uncertainty: a bootstrap. Each draw resamples requests within each run and, with two or
more runs, the runs themselves (multinomial counts as weights in the loss), and refits from
the point estimate. Not a Laplace approximation: the loss is not smooth through a discrete
engine (a step more or less in a batch moves latencies by jumps), so its Hessian at the
optimum says little; a bootstrap needs only refits, which cost milliseconds here. The
samples feed the bands of simulate / sweep (core/calibrate/bands.py). No Qt here.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from core.calibrate import loss, step_log
from core.calibrate.problem import Problem
from core.calibrate.replayer import RunReplay, compare, measured_metrics, predicted_metrics
from core.calibrate.runs import load_runs, mean_concurrency
from core.calibrate.search import (
    FLOOR,
    SCAN_POINTS,
    bootstrap_draws,
    global_fit,
    identifiable,
    local_fit,
    outcome,
    refocus,
)
from core.calibrate.step_log import EPS_MS, StepLog
from core.registry import ParamError
from core.serving.profile import COEF_KEYS, Profile, card_table

FIT_KEYS = ("coef_step_s", "coef_seq_s", "coef_prefill_compute", "coef_request_s", "coef_decode_kv")
# With step logs, what the runs still fit after the logs fitted the engine's terms: the
# per-step time the logs' elapsed leaves out (the scheduler, the outputs' processing), and
# the front end's terms when asked for.
CLIENT_KEYS = ("coef_step_s",)
# Stage one's prior: a normal in log space about the start with this sd (a factor of e),
# weighed against the logs' own noise (_prior_weight), so a clean log is fitted as it is and
# a noisy one is held near the card's figures where it says little. Not in a fit to the runs
# alone: there the runs' TTFT pins the prefill term (a prior moved it by under 2% here),
# and it would bias a synthetic run's recovery of its own coefficients.
PRIOR_SD = 1.0
# The step log's one-off costs (core/calibrate/step_log.py: a step after the engine waited
# for work, a step of a token count run for the first time): fitted in stage one, with the
# default keys, once the step-time model has them (step_defaults.DEFAULTS); their default 0
# is no start in log space, so they start at the logs' median step time (the scale of a
# step's fixed costs) and go back to 0 where the logs do not identify them.
ONE_OFF_KEYS = ("coef_wake_s", "coef_shape_s")
# Of those, fitted from the logs but not replayed (the profile keeps the default): a first
# size is paid once per size in a server's life, and the log's server had run only some
# sizes (CI's: the tests and the low run before the medium one), while a replay starts with
# none run, so it would charge every prompt's size in every run predicted (on CI's quiet
# 21:43 runs: held-out median TPOT 21% against 14% with it left out). The prediction is of a
# server past its warm-up; fitted here so that the engine's other terms do not absorb it.
LOG_ONLY_KEYS = ("coef_shape_s",)
MAX_NFEV = 200
DEFAULT_BOOTSTRAP = 20


@dataclass
class StepFit:
    """Stage one of a calibration with step logs: the engine's terms fitted to the logs."""

    keys: tuple
    values: dict
    samples: list
    frozen: dict
    converged: bool
    message: str


def _fit_steps(replays, logs, keys, start, bootstrap, seed, progress, cancel, planned) -> StepFit:
    """The logs' steps alone (the runs weigh 0: no replay), with the prior toward the start:
    a log of one to five sequences a step pins the per-step time and a prompt's cost, not
    how a step grows to the batches a saturated run reaches; the prior keeps those terms
    near the card's figures instead of wherever the log's noise puts them."""
    problem = Problem(replays, keys, start, progress, cancel, planned, logs)
    counts, _ = problem.ones()
    off = np.zeros(len(replays))
    x0 = np.zeros(len(keys))
    kept, why = identifiable(problem, x0, counts, off)
    why = {k: v.replace("these runs", "the step logs") for k, v in why.items()}
    if not kept:
        return StepFit((), {}, [], why, True, "the step logs identify none of the engine's terms")
    problem = refocus(problem, kept, start)
    x0 = np.zeros(len(kept))
    before = loss.robust_cost(problem.residuals(x0, counts, off))
    fit = global_fit(problem, x0, counts, off, MAX_NFEV, seed)
    weight = _prior_weight(logs, replays[0].cost(problem.coefs(fit.x)))
    if weight > 0 and fit.status > 0:
        problem.prior_weight = weight
        before = loss.robust_cost(problem.residuals(x0, counts, off))
        fit = global_fit(problem, x0, counts, off, MAX_NFEV, seed)
    if fit.status <= 0 or fit.cost > before * (1 + 1e-9):
        return StepFit((), {}, [], why, False, f"the step logs' fit did not converge ({fit.message.rstrip('.')})")
    values = problem.coefs(fit.x)
    samples: list[dict] = []
    if bootstrap:
        problem.stage = "bootstrap (step logs)"
        samples, _ = bootstrap_draws(problem, fit.x, bootstrap, seed, run_weights=off)
    return StepFit(kept, {k: values[k] for k in kept}, samples, why, True,
                   f"engine terms from the step logs ({fit.nfev} evaluations)")


def _prior_weight(logs, cost) -> float:
    """The prior's weight beside the logs' residuals (each log's part a mean over its N steps,
    times STEP_WEIGHT): for steps of log-normal noise σ, a normal prior of sd PRIOR_SD is
    STEP_WEIGHT·σ/(√N·PRIOR_SD) per log unit. σ: the steps' spread about the fit without
    the prior (1.4826 × the median absolute deviation of log(predicted/measured): a stalled
    step on a busy host does not widen it); N: the logs' mean length."""
    errors = np.concatenate([np.log(np.maximum(log.predicted_ms(cost), EPS_MS) / log.measured_ms) for log in logs])
    sigma = 1.4826 * float(np.median(np.abs(errors - np.median(errors))))
    steps = float(np.mean([len(log) for log in logs]))
    return step_log.STEP_WEIGHT * sigma / (np.sqrt(steps) * PRIOR_SD)  # read here: a test may set it


@dataclass
class Calibration:
    coefficients: dict  # every coefficient as the profile writes it (fitted and kept)
    defaults: dict  # before the fit
    samples: list  # bootstrap draws: the fitted keys only
    bands: dict  # {key: (p5, p50, p95)} over the samples
    per_run: list
    loo: list
    converged: bool
    message: str
    profile: Profile
    fit_keys: tuple = ()
    frozen: dict = field(default_factory=dict)  # key -> why it was not fitted
    timings: dict = field(default_factory=dict)
    cost_before: float = 0.0
    cost_after: float = 0.0
    steps: list = field(default_factory=list)  # per step log: compare_steps before and after
    from_steps: tuple = ()  # the keys stage one fitted to the step logs alone
    log_only: dict = field(default_factory=dict)  # fitted to the logs, not replayed (LOG_ONLY_KEYS)
    cadence: dict = field(default_factory=dict)  # added to the logs' fit: what their elapsed leaves out


def calibrate(paths, raw: Mapping[str, str], *, fit_keys=None, bootstrap: int = DEFAULT_BOOTSTRAP, seed: int = 0,
              progress: Callable[[float, str], None] | None = None,
              cancel: Callable[[], bool] | None = None, steps=()) -> Calibration:
    """Fit, bootstrap and validate; ParamError naming the field for bad input. steps: server
    logs with vLLM's iteration details (core/calibrate/step_log.py), fitted beside the runs."""
    raw = {str(k): str(v) for k, v in dict(raw).items()}
    _check_names(raw)
    for key in ("model", "hardware"):
        if key not in raw:
            raise ParamError(key, "a calibration is of one model on one card; valid: model=KEY|config.json and "
                             "hardware=KEY|card.toml")
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or not 0 <= bootstrap <= 1000:
        raise ParamError("bootstrap", f"got {bootstrap!r}; valid: a whole number in [0, 1000]")
    runs = load_runs(paths)
    replays = [RunReplay(run, raw) for run in runs]
    logs = [StepLog(str(p)) for p in steps]
    defaults = dict(replays[0].defaults)
    asked = _check_keys(fit_keys)
    frontend_off = not replays[0].frontend_on
    keys = tuple(k for k in asked if k not in replays[0].given and not (frontend_off and k.startswith("frontend_")))
    frozen = {k: "given as a key (explicit keys win)" for k in asked if k in replays[0].given}
    frozen.update({k: "the front end is off (frontend=off)" for k in asked
                   if frontend_off and k.startswith("frontend_") and k not in frozen})
    extra = tuple(k for k in one_off_keys() if k not in replays[0].given) if logs and fit_keys is None else ()
    log_only = tuple(k for k in LOG_ONLY_KEYS if k in extra)
    # A fitted key starts above 0 (log space); the others replay at their defaults exactly
    # (a one-off cost of 1e-9 s is still one the engine charges).
    start = {k: max(defaults[k], FLOOR) if k in keys or k in extra else defaults[k] for k in COEF_KEYS}
    planned = _planned(len(keys) + len(extra), len(runs), bootstrap)
    t0 = time.perf_counter()
    stage1, cadence = None, None
    if logs:
        stage1, cadence, keys = _stage_one(replays, logs, keys, extra, log_only, start, frozen,
                                           (bootstrap, seed, progress, cancel, planned))
    problem = Problem(replays, keys, start, progress, cancel, planned, logs)
    counts, weights = problem.ones()
    x0 = np.zeros(len(keys))
    r0 = problem.residuals(x0, counts, weights)
    cost_before = loss.robust_cost(r0)
    keys, why = identifiable(problem, x0, counts, weights)
    frozen.update(why)
    problem = refocus(problem, keys, start)
    x0 = np.zeros(len(keys))
    converged, message, x_hat, cost_after = True, "", x0, cost_before
    if stage1 is not None and not stage1.converged:
        converged, message, keys = False, stage1.message + "; kept the defaults", ()
    elif keys:
        x_hat, converged, message, cost_after = outcome(global_fit(problem, x0, counts, weights, MAX_NFEV, seed),
                                                        x0, cost_before)
    elif stage1 is None or not stage1.keys:
        message = "nothing to fit: no key these runs identify; kept the defaults"
    if stage1 is not None and converged:
        message = f"{stage1.message}; then the runs: {message or 'nothing more to fit'}"
    fit_s = time.perf_counter() - t0
    fitted = problem.coefs(x_hat)
    done = stage1 if stage1 is not None and converged else None
    from_steps = done.keys if done is not None else ()
    cadence = cadence if done is not None else None
    moved = set(keys) | set(from_steps) | set(cadence or ())
    coefficients = {k: (fitted[k] if k in moved and k not in log_only else defaults[k]) for k in COEF_KEYS}
    samples: list[dict] = []
    boot_s: list[float] = []
    if converged and keys and bootstrap:
        problem.stage = "bootstrap"
        samples, boot_s = bootstrap_draws(problem, x_hat, bootstrap, seed)
    if done is not None and from_steps and bootstrap:  # each draw: the logs' refit plus the cadence, then the runs'
        drawn = [{k: v + (cadence or {}).get(k, 0.0) for k, v in a.items()} for a in done.samples]
        samples = [dict(a, **b) for a, b in zip(drawn, samples or [{}] * len(done.samples))]
    keys = from_steps + tuple(k for k in keys if k not in from_steps)
    bands = {k: tuple(float(v) for v in np.percentile([s[k] for s in samples], (5, 50, 95))) for k in keys} \
        if samples else {}
    samples = [{k: v for k, v in s.items() if k not in log_only} for s in samples]  # replayed sets: not them
    per_run = [_run_table(r, defaults, coefficients) for r in replays]
    timed = less_cadence(coefficients, cadence)  # "after": the profile's steps as a log's elapsed times them
    step_tables = [{"log": log.path, "steps": len(log), "before": log.compare(replays[0].cost(defaults)),
                    "after": log.compare(replays[0].cost(timed))} for log in logs]
    if done is not None and from_steps:  # the logs' own fit: the engine's time as the log times it
        engine = dict(coefficients, **done.values)
        for table, log in zip(step_tables, logs):
            table["engine"] = log.compare(replays[0].cost(engine))
            table["engine_coefficients"] = dict(done.values)
    loo = _leave_one_out(problem, x_hat, replays, coefficients) if converged and problem.keys and len(runs) > 1 \
        else []
    timings = {"replay_s": list(problem.replay_s), "fit_s": fit_s, "bootstrap_s": boot_s,
               "replays": problem.replays_done}
    cal = Calibration(coefficients=coefficients, defaults=defaults, samples=samples, bands=bands, per_run=per_run,
                      loo=loo, converged=converged, message=message, profile=None, fit_keys=keys,  # type: ignore[arg-type]
                      frozen=frozen, timings=timings, cost_before=cost_before, cost_after=cost_after,
                      steps=step_tables, from_steps=from_steps, cadence=dict(cadence or {}),
                      log_only={k: done.values[k] for k in log_only if done is not None and k in done.values})
    cal.profile = _profile(cal, runs, replays, raw)
    if progress is not None:
        progress(1.0, "done")
    return cal


def _stage_one(replays, logs, keys, extra, log_only, start, frozen, how):
    """Stage one: the engine's terms from the step logs alone (no replays); start and frozen
    updated in place. Returns the logs' fit, the logs' cadence (step_log.cadence, of the
    terms asked for; None: the clocks cannot tell) and the keys the runs then fit."""
    defaults = replays[0].defaults
    scale = float(np.median(np.concatenate([log.measured_ms for log in logs]))) * 1e-3
    start.update({k: defaults.get(k, 0.0) or scale for k in extra})
    stage1 = _fit_steps(replays, logs, tuple(k for k in keys if not k.startswith("frontend_")) + extra, start, *how)
    frozen.update(stage1.frozen)
    start.update({k: defaults.get(k, 0.0) for k in extra})  # unless the logs fitted it (next line)
    start.update({k: max(stage1.values[k], FLOOR) for k in stage1.keys if k not in log_only})
    cadence = step_log.cadence(logs) if stage1.converged else None
    if cadence is not None:  # of the terms asked for, not given: added to the logs' fit
        cadence = {k: v for k, v in cadence.items() if k in keys}
        start.update({k: start[k] + v for k, v in cadence.items()})
    return stage1, cadence, tuple(k for k in keys if k in CLIENT_KEYS or k.startswith("frontend_"))


def less_cadence(coefficients: dict, cadence: dict | None) -> dict:
    """coefficients less the logs' cadence (each term at least 0): the step a log's elapsed
    time times, when the profile's step is the engine's whole cycle."""
    return {k: max(v - cadence[k], 0.0) if cadence and k in cadence else v for k, v in coefficients.items()}


def one_off_keys() -> tuple[str, ...]:
    """ONE_OFF_KEYS the step-time model has (none before the engine prices them)."""
    from core.serving.step_defaults import DEFAULTS

    return tuple(k for k in ONE_OFF_KEYS if k in DEFAULTS)


def _check_names(raw: dict) -> None:
    """A key neither lab simulate serving nor lab calibrate knows: refused, with the
    nearest known key (before model= and hardware= are asked for: a misspelt hardware=
    is named as such)."""
    from core.registry import get
    from core.serving import simulate_keys
    from core.serving.aliases import did_you_mean  # over vLLM's names too, as every command

    known = {p.name for p in get("serving.replay").params} | set(simulate_keys.names())
    for key in raw:
        if key not in known:
            raise ParamError(key, did_you_mean(key, known | {"fit_keys", "bootstrap"}) + "unknown key of lab calibrate; "
                             "valid: model=, hardware=, serving.replay's parameters, deployment and coef_* keys "
                             "(lab simulate serving --help)")


def _check_keys(fit_keys) -> tuple[str, ...]:
    if fit_keys is None:
        return FIT_KEYS
    keys = tuple(str(k).strip() for k in fit_keys if str(k).strip())
    for k in keys:
        if k not in COEF_KEYS:
            import difflib
            close = difflib.get_close_matches(k, COEF_KEYS, n=1)
            raise ParamError("fit_keys", f"{k!r} is no coefficient" + (f" (did you mean {close[0]}?)" if close else "")
                             + f"; valid: {', '.join(COEF_KEYS)}")
    if len(set(keys)) != len(keys) or not keys:
        raise ParamError("fit_keys", f"got {','.join(keys) or 'none'}; valid: one or more distinct coefficients")
    return keys


def _planned(k: int, runs: int, bootstrap: int) -> int:
    """Replays a calibration expects (for progress; measured on synthetic runs): the scan
    and three starts' fine and coarse searches, the draws (most of a refit's replays are
    the point estimate's, cached), the leave-one-outs."""
    per_fit = runs * (SCAN_POINTS * k + 200 * (k + 1))
    return per_fit + bootstrap * runs * 2 * (k + 1) + (per_fit // 4 if runs > 1 else 0)


def _run_table(replay: RunReplay, before: dict, after: dict) -> dict:
    measured = measured_metrics(replay.run)
    pb = replay.predict(before)
    pa = replay.predict(after)
    b, a = compare(measured, predicted_metrics(pb)), compare(measured, predicted_metrics(pa))
    return {"run": replay.run.label, "file": replay.run.path, "requests": len(replay.run), "before": b, "after": a,
            "fit_error_pct": median_abs_error(a), "preemptions": {"before": pb.preemptions, "after": pa.preemptions,
                                                                 "measured": replay.run.settings.get("num_preemptions")}}


def median_abs_error(table: dict) -> float:
    return float(np.median([abs(v["error_pct"]) for v in table.values()]))


def _leave_one_out(problem: Problem, x_hat, replays, coefficients: dict) -> list:
    """Each run predicted by a fit to the others (started from the point estimate)."""
    out = []
    problem.stage = "leave-one-out"
    counts, _ = problem.ones()
    for i, replay in enumerate(replays):
        weights = np.ones(len(replays))
        weights[i] = 0.0
        fit = local_fit(problem, x_hat, counts, weights, MAX_NFEV)
        coefs = dict(coefficients, **{k: v for k, v in problem.coefs(fit.x).items() if k in problem.keys})
        table = compare(measured_metrics(replay.run), predicted_metrics(replay.predict(coefs)))
        out.append({"run": replay.run.label, "errors": table, "median_abs_error_pct": median_abs_error(table)})
    return out


def _profile(cal: Calibration, runs, replays, raw: dict) -> Profile:
    first = replays[0]
    card = first.expanded.choice.card
    v = first.values
    settings = {"server": {k: val for k, val in runs[0].settings.items() if not isinstance(val, dict)},
                "replay": {"max_num_seqs": int(v["max_num_seqs"]), "block_size": int(v["block_size"]),
                           "token_budget": int(v["token_budget"]), "kv_pool_bytes": float(v["kv_pool_bytes"]),
                           "kv_pool_blocks": first.num_blocks, "prefix_caching": bool(v["prefix_caching"])}}
    run_rows = [{"file": r.path, "label": r.label, "sha256": r.sha256, "requests": len(r),
                 "mean_concurrency": mean_concurrency(r.arrival_s, r.e2e_s),
                 "fit_error_pct": t["fit_error_pct"], "error_before_pct": median_abs_error(t["before"])}
                for r, t in zip(runs, cal.per_run)]
    fit = {"loss": "soft_l1 least squares on per-request log(pred/measured) of TTFT, TPOT, E2E + their p50/p90 "
                   "(core/calibrate/loss.py)", "fit_keys": list(cal.fit_keys), "converged": cal.converged,
           "message": cal.message, "bootstrap": len(cal.samples), "frozen": dict(cal.frozen),
           "bands": {k: list(b) for k, b in cal.bands.items()}, "loss_before": cal.cost_before,
           "from_step_logs": list(cal.from_steps), "step_logs_only": dict(cal.log_only),
           "step_logs_cadence": dict(cal.cadence),
           "loss_after": cal.cost_after}
    engine = next((r.engine for r in runs if r.engine), None)
    return Profile(model=raw["model"], hardware=raw["hardware"], card=card_table(card) if card is not None else {},
                   engine=engine, settings=settings, coefficients=dict(cal.coefficients), samples=list(cal.samples),
                   runs=run_rows, fit=fit)
