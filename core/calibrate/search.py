"""The fit's search (core/calibrate/fit.py's calibrate runs it): which keys the runs
identify, a global scan and local least-squares searches from its best starts, restarts,
and the bootstrap's refits. The reasons for each are in fit.py's docstring; the ranges here
are the physical bounds of each coefficient (the time terms in seconds).
"""
from __future__ import annotations

import time

import numpy as np
from scipy.optimize import least_squares  # type: ignore[import-untyped]

from core.calibrate import loss
from core.calibrate.problem import Problem

# Physical ranges (the time terms in seconds): wide, so a fit is never pinned by a guess.
RANGES: dict[str, tuple[float, float]] = {
    "bandwidth_efficiency": (1e-3, 1.0), "prefill_mfu": (1e-3, 1.0),
    "coef_step_s": (1e-6, 1.0), "coef_seq_s": (1e-9, 0.05), "coef_layer_s": (1e-9, 0.01),
    "coef_request_s": (1e-9, 1.0), "coef_wake_s": (1e-9, 1.0), "coef_shape_s": (1e-9, 1.0),
    "frontend_request_ms": (1e-4, 1e3), "frontend_input_token_us": (1e-4, 1e3), "frontend_output_token_us": (1e-2, 1e5),
}
MULTIPLIER_RANGE = (0.01, 100.0)
FLOOR = 1e-9  # a start of 0 (a time term switched off) starts here instead: log space
DIFF_STEP = 1e-3
COARSE_STEP = 0.05
SCAN_POINTS = 16  # starts per fitted key in the global scan
SCAN_SPAN = 3.0  # log units either side of the start: a factor of 20
SCAN_STARTS = 2  # the best starts of the scan that a local fit is run from
BOOT_NFEV = 40
RESTARTS = 4
RESTART_GAIN = 1e-3  # a restart that lowers the loss by less than this share ends the fit
SENSITIVITY_FLOOR = 1e-3  # residual change per unit of log(coefficient): below, not identified
COLLINEAR = 0.03  # share of a column left outside the span of the columns before it


def ranges_of(key: str) -> tuple[float, float]:
    return RANGES.get(key, MULTIPLIER_RANGE)


def identifiable(problem: Problem, x0, counts, weights) -> tuple[tuple[str, ...], dict]:
    """The keys whose Jacobian column at the start is large enough and not in the span of
    the kept ones before it (a QR in key order), and why each other one is left out. The
    prior is off here: it would make every key look pinned."""
    prior, problem.prior_weight = problem.prior_weight, 0.0
    try:
        return _identifiable(problem, x0, counts, weights)
    finally:
        problem.prior_weight = prior


def _identifiable(problem: Problem, x0, counts, weights) -> tuple[tuple[str, ...], dict]:
    f0 = problem.residuals(x0, counts, weights)
    cols = []
    for i in range(len(problem.keys)):
        x = x0.copy()
        x[i] += DIFF_STEP
        cols.append((problem.residuals(x, counts, weights) - f0) / DIFF_STEP)
    kept: list[int] = []
    basis: list[np.ndarray] = []
    why = {}
    for i, col in enumerate(cols):
        norm = float(np.linalg.norm(col))
        key = problem.keys[i]
        if norm < SENSITIVITY_FLOOR:
            # Inert here is not inert everywhere (an API server's time per token matters only
            # once it is the bottleneck): the key's far ends are tried before it is left out.
            far = far_effect(problem, x0, i, f0, counts, weights)
            if far < SENSITIVITY_FLOOR:
                why[key] = (f"not identified by these runs (effect {max(norm, far):.2g} < {SENSITIVITY_FLOOR:g} per "
                            "log unit)")
                continue
            kept.append(i)  # its local column says nothing of its direction: no collinearity test
            continue
        rest = col.copy()
        for b in basis:
            rest -= float(rest @ b) * b
        if np.linalg.norm(rest) < COLLINEAR * norm:
            ahead = ", ".join(problem.keys[j] for j in kept)
            why[key] = f"collinear with {ahead} in these runs (not separable)"
            continue
        kept.append(i)
        basis.append(rest / np.linalg.norm(rest))
    return tuple(problem.keys[i] for i in kept), why


def far_effect(problem: Problem, x0, i: int, f0, counts, weights) -> float:
    """The largest residual change per log unit at x0 ± SCAN_SPAN in key i (inside its bounds)."""
    lo, hi = problem.bounds({k: ranges_of(k) for k in problem.keys})
    out = 0.0
    for end in (lo[i], hi[i]):
        x = x0.copy()
        x[i] = float(np.clip(x0[i] + np.sign(end - x0[i]) * SCAN_SPAN, lo[i], hi[i]))
        if x[i] != x0[i]:
            out = max(out, float(np.linalg.norm(problem.residuals(x, counts, weights) - f0)) / abs(x[i] - x0[i]))
    return out


def refocus(problem: Problem, keys: tuple[str, ...], start: dict) -> Problem:
    """The problem over fewer keys, keeping its replays' timings and counts."""
    new = Problem(problem.replays, keys, start, problem.progress, problem.cancel, problem.planned, problem.logs,
                  problem.prior_weight)
    new.replays_done, new.replay_s = problem.replays_done, problem.replay_s
    return new


def outcome(fit, x0, cost_before: float) -> tuple[np.ndarray, bool, str, float]:
    """(x, converged, message, cost after) of a least-squares fit from x0: converged only if
    the solver says so and the loss did not grow; otherwise x0 (the defaults) is kept."""
    cost_after = float(fit.cost)
    converged = bool(fit.status > 0 and cost_after <= cost_before * (1 + 1e-9))
    message = (f"converged ({fit.message.rstrip('.')}; {fit.nfev} evaluations)" if converged else
               f"did not converge ({fit.message.rstrip('.')}; loss {cost_before:.4g} -> {cost_after:.4g}); "
               "kept the defaults")
    return (fit.x if converged else x0), converged, message, cost_after


def global_fit(problem: Problem, x0, counts, weights, nfev: int, seed: int = 0):
    """local_fit from x0 and from the best few of a Latin hypercube of starts (SCAN_POINTS per
    key, log-uniform within SCAN_SPAN of x0 in every key, inside the bounds): a local
    search from the defaults can settle in a valley that a start a factor of ten away
    does not (the API server's per-token time against the steps' per-sequence time)."""
    from scipy.stats import qmc  # type: ignore[import-untyped]

    lo, hi = problem.bounds({k: ranges_of(k) for k in problem.keys})
    k = len(problem.keys)
    unit = qmc.LatinHypercube(d=k, seed=seed).random(SCAN_POINTS * k)
    starts = np.clip(x0 + (2.0 * unit - 1.0) * SCAN_SPAN, lo, hi)
    scores = [loss.robust_cost(problem.residuals(x, counts, weights)) for x in starts]
    best = local_fit(problem, x0, counts, weights, nfev)
    total = best.nfev
    for i in np.argsort(scores)[:SCAN_STARTS]:
        fit = local_fit(problem, starts[i], counts, weights, nfev)
        total += fit.nfev
        if fit.cost < best.cost:
            best = fit
    best.nfev = total + len(starts)
    return best


def local_fit(problem: Problem, x0, counts, weights, nfev: int):
    """The point fit: the better of two searches from x0. Fine: finite differences of
    DIFF_STEP from the start. Coarse then fine: COARSE_STEP first, then fine from where it
    stopped. Why both: a replay's latencies jump where a request lands a step earlier or
    later (a send after a finish, a front end's delay across a step boundary), so the loss
    is a smooth trend plus a noise of about a step's time; small differences follow the
    trend only near its minimum, large ones see the trend through the noise but stop
    short of an exact match (a synthetic run's, recovered only with small steps)."""
    fine = solve(problem, x0, counts, weights, nfev)
    coarse = solve(problem, x0, counts, weights, nfev, COARSE_STEP)
    refined = solve(problem, coarse.x, counts, weights, nfev)
    best = min((fine, refined), key=lambda f: f.cost)
    best.nfev = fine.nfev + coarse.nfev + refined.nfev
    if min(fine.status, refined.status) > 0:
        best.status = max(best.status, 1)
    return best


def solve(problem: Problem, x0, counts, weights, nfev: int, step: float | None = None, step_counts=None):
    """least_squares, restarted from where it stopped while a restart still lowers the
    loss (RESTARTS at most): through a discrete engine the trust region can shrink on a
    jump of the loss and stop short; a fresh region steps over it. nfev: per start."""
    lo, hi = problem.bounds({k: ranges_of(k) for k in problem.keys})
    x = np.clip(x0, lo + 1e-12, hi - 1e-12)
    best = None
    total = 0
    for _ in range(RESTARTS + 1):
        fit = least_squares(lambda v: problem.residuals(v, counts, weights, step_counts), x, jac="2-point",
                            bounds=(lo, hi),
                            method="trf", loss="soft_l1", f_scale=loss.ROBUST_SCALE, diff_step=step or DIFF_STEP,
                            x_scale=1.0, max_nfev=nfev, xtol=1e-6, ftol=1e-8, gtol=1e-8)
        total += fit.nfev
        improved = best is None or fit.cost < best.cost * (1 - RESTART_GAIN)
        if best is None or fit.cost < best.cost:
            best = fit
        if not improved or fit.status <= 0:
            break
        x = np.clip(fit.x, lo + 1e-12, hi - 1e-12)
    assert best is not None  # the loop runs at least once
    best.nfev = total
    return best


def bootstrap_draws(problem: Problem, x_hat, draws: int, seed: int, run_weights=None) -> tuple[list, list]:
    """run_weights: fixed weights of the runs (zeros: a fit to the step logs alone), else
    resampled with two or more runs."""
    rng = np.random.default_rng(seed)
    runs = problem.replays
    samples, times = [], []
    for _ in range(draws):
        t0 = time.perf_counter()
        if run_weights is not None:
            weights = np.asarray(run_weights, dtype=float)
        elif len(runs) > 1:
            weights = rng.multinomial(len(runs), np.full(len(runs), 1.0 / len(runs))).astype(float)
        else:
            weights = np.ones(1)
        counts = [rng.multinomial(len(r.run), np.full(len(r.run), 1.0 / len(r.run))).astype(float) for r in runs]
        step_counts = [rng.multinomial(len(g), np.full(len(g), 1.0 / len(g))).astype(float) for g in problem.logs]
        fit = solve(problem, x_hat, counts, weights, BOOT_NFEV, step_counts=step_counts)
        c = problem.coefs(fit.x)
        samples.append({k: c[k] for k in problem.keys})
        times.append(time.perf_counter() - t0)
    return samples, times
