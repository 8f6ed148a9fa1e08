"""Calibration on summary figures: runs that report only a benchmark's summary (mean and
median TTFT, TPOT, ITL, E2E, throughput; a published table, not per-request data), each
replayed as `lab simulate serving` replays its keys (core/serving/headless.serving_report's
dataset path, the one bench/fidelity_public.py scores), fitted together.

    runs = [SummaryRun("a100/4K", {"model": "qwen3-14b", "hardware": "a100-80gb", "dataset": "random", ...},
                       {"mean_ttft_ms": 197625.0, "output_throughput": 245.13, ...})]
    cal = calibrate_summaries(runs)
    cal.coefficients, cal.fit_keys, cal.frozen, cal.per_run, cal.bands

Residuals: per run, per scored figure it measured, log(predicted / measured), scaled by
1/√(the run's scored figures) so each run weighs alike (a run of one throughput figure as
much as one of six latencies), × √(its bootstrap count). Fitted as core/calibrate/fit.py
fits per-request runs: coefficients in log space, bounded by search.RANGES, scipy's
least_squares with the soft-L1 loss at loss.ROBUST_SCALE (a run the model cannot follow
counts linearly), search.global_fit's scan and restarts. One coefficient set for all the
runs given: the runs of one source share an engine and a client, and the coefficients are
multipliers on the card's roofline lines and the engine's time terms, meant to carry over
to another model or card of that source (the card's own achieved compute is already in
step_defaults.CARD_COMPUTE_EFFICIENCY); a held-out half checks whether they do
(bench/calibrate_public.py). A fit key NAME@card is fitted once per card of the runs
(card_keys.py: each card's own achieved bandwidth or compute, the shared terms beside it).

What is tried (FIT_KEYS, in this order of preference), what summaries of saturated runs
can move: coef_prefill_compute (TTFT and the mixed steps' TPOT of long prompts),
coef_decode_weights (the decode steps' weight read: TPOT where decode runs alone, the
throughput of long outputs), coef_attention (the attention FLOPs: long prompts),
frontend_request_ms (the API server's per-request time: a thousand short requests at once
queue on it), coef_seq_s (the per-sequence step time: large batches). Not tried unless
fit_keys= names them: coef_step_s (a step's fixed time, a small share of a step at these
batches), coef_decode_kv (a second factor on decode's memory time beside
coef_decode_weights), bandwidth_efficiency and prefill_mfu (the same factors as the two
multipliers), the ramp, layer, request and TP/PP/EP terms (small, or seen only in the runs
of one parallelism), the front end's per-token terms (beside its per-request one at one
prompt length a run) and the one-off costs (0 on a GPU). Of those tried, a key whose
effect is below search.SENSITIVITY_FLOOR or collinear with the keys before it is kept at
its default and said so (search.identifiable), as in lab calibrate. summary_select.py
chooses among them (shared or per card) by held-out folds of the fit runs alone (forward
selection), for a set of runs too few or too alike to pin every key.

Uncertainty: a bootstrap over runs (multinomial counts as run weights; each draw refits
from the point estimate, search.solve with BOOT_NFEV), when bootstrap= > 0. It also shows
what the local identifiability test cannot: a key whose band spans most of its range is
one the runs do not pin, though its Jacobian column at the start was large. No Qt here.
"""
from __future__ import annotations

import dataclasses
import math
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from core.calibrate import card_keys, loss, search
from core.registry import ParamError, get
from core.serving import bench_keys
from core.serving import replay as rp
from core.serving import simulate_keys as keys
from core.serving.engine import validate
from core.serving.profile import COEF_KEYS
from core.serving.step_basis import from_deployment
from core.serving.step_defaults import DEFAULTS as STEP_DEFAULTS
from core.serving.vllm_metrics import bench_metrics

# The figures a fit and a score read (bench/fidelity_public.py's SCORED, the same list: the
# duration is throughput's reciprocal, and a burst's median ITL falls on either side of the
# jump between prefill-mixed and decode-only steps).
SCORED = ("output_throughput", "mean_ttft_ms", "median_ttft_ms", "mean_tpot_ms", "median_tpot_ms",
          "mean_itl_ms", "mean_e2el_ms", "median_e2el_ms")
REPORT_NAME = {"duration_s": "duration"}  # a measured figure's name -> bench_metrics'
FIT_KEYS = ("coef_prefill_compute", "coef_decode_weights", "coef_attention", "frontend_request_ms", "coef_seq_s")
MAX_NFEV = 200
BOOT_NFEV = 40
CACHE_ENTRIES = 512


@dataclass(frozen=True)
class SummaryRun:
    """One measured run: its `lab simulate serving` text keys (model, hardware, the
    deployment, a dataset= workload) and the figures measured, by vllm bench serve's names."""

    id: str
    keys: Mapping[str, str]
    measured: Mapping[str, float]


class SummaryReplay:
    """A run's engine config and workload, checked once; predict(coefs) replays it."""

    def __init__(self, run: SummaryRun):
        self.run = run
        self.card = str(run.keys.get("hardware", ""))
        calc = get("serving.replay")
        raw = {str(k): str(v) for k, v in run.keys.items()}
        for key in raw:
            if key in COEF_KEYS:
                raise ParamError(key, f"{run.id}: a coefficient given with a run; valid: the run's workload and "
                                 "deployment keys (coefficients are what the calibration fits)")
        expanded = keys.expand_checked(raw, lambda: "unknown key of a summary run; valid: lab simulate serving's")
        got = expanded.got
        if "dataset" not in got:
            raise ParamError("dataset", f"{run.id}: a summary run is replayed from its workload; valid: dataset=...")
        if expanded.deployment is None or expanded.step_coefs is None:
            raise ParamError("model", f"{run.id}: a calibration fits the basis step-time model of a deployment; "
                             "valid: model= and hardware=")
        self.expanded = expanded
        # headless._replay_windows' dataset path, step for step (so a replay at the defaults
        # equals serving_report's bit for bit).
        self.values = calc.resolve(expanded.raw)
        cost = expanded.step_cost(self.values)
        config = bench_keys.with_client(rp.config_from(self.values, cost), got, True,
                                        int(self.values["replicas"]), False)
        self.work = bench_keys.workload(got, int(self.values["seed"]))
        validate(config, self.work)  # a run the pool cannot hold: ParamError (kv_pool_bytes)
        self.config = config
        self.defaults = {k: float(expanded.step_coefs[k]) for k in STEP_DEFAULTS}
        self.defaults["bandwidth_efficiency"] = float(self.values["bandwidth_efficiency"])
        self.defaults["prefill_mfu"] = float(self.values["prefill_mfu"])
        fe = config.frontend
        self.frontend_on = fe is not None
        if fe is not None:
            self.defaults.update(frontend_request_ms=fe.request_s * 1e3, frontend_input_token_us=fe.input_token_s * 1e6,
                                 frontend_output_token_us=fe.output_token_s * 1e6)
        self.scored = tuple(m for m in SCORED if m in run.measured)
        if not self.scored:
            raise ParamError("measured", f"{run.id}: no scored figure; valid: one or more of {', '.join(SCORED)}")

    def predict(self, coefs: Mapping[str, float]) -> dict[str, float]:
        """Every measured figure's prediction (by the measured names); coefs may hold
        per-card keys (card_keys: this run's card's, or the others' mean)."""
        c = dict(self.defaults, **card_keys.for_card(coefs, self.card))
        values = dict(self.values, bandwidth_efficiency=c["bandwidth_efficiency"], prefill_mfu=c["prefill_mfu"])
        cost = from_deployment(self.expanded.deployment, values, {k: c[k] for k in STEP_DEFAULTS})
        fe = self.config.frontend
        if fe is not None:
            fe = dataclasses.replace(fe, request_s=c["frontend_request_ms"] * 1e-3,
                                     input_token_s=c["frontend_input_token_us"] * 1e-6,
                                     output_token_s=c["frontend_output_token_us"] * 1e-6)
        config = dataclasses.replace(self.config, cost=cost, frontend=fe)
        result = rp.replay_workload(self.work, config, self.values)
        report = bench_metrics(result, self.work, cost=cost)
        return {m: float(report[REPORT_NAME.get(m, m)]) for m in self.run.measured
                if REPORT_NAME.get(m, m) in report}


def residuals_of(predicted: Mapping[str, float], measured: Mapping[str, float], scored: Sequence[str],
                 weight: float = 1.0) -> np.ndarray:
    """One run's residuals: √(weight / n) · log(predicted / measured) per scored figure."""
    n = len(scored)
    r = np.array([math.log(max(predicted[m], 1e-12) / measured[m]) for m in scored])
    return math.sqrt(weight / n) * r


class SummaryProblem:
    """The objective over the runs, in search.py's terms (keys, coefs, bounds, residuals):
    x_i = log(c_i / start_i); a run of weight 0 is not replayed (its residuals are 0)."""

    prior_weight = 0.0  # search.identifiable switches it off and on again

    def __init__(self, replays: Sequence[SummaryReplay], keys_: Sequence[str], start: Mapping[str, float]):
        self.replays = list(replays)
        self.keys = tuple(keys_)
        self.start = {k: float(start[k]) for k in self.keys}
        self.replays_done = 0
        self._cache: list[OrderedDict] = [OrderedDict() for _ in self.replays]

    def coefs(self, x) -> dict[str, float]:
        """The fitted keys' values at x; every other coefficient is each run's own default
        (a card's own, step_defaults.for_card: not the first run's)."""
        out: dict[str, float] = {}
        for k, xi in zip(self.keys, np.asarray(x, dtype=float)):
            out[k] = self.start[k] * math.exp(float(xi))
        return out

    def bounds(self, ranges: Mapping[str, tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
        # A per-card key has its coefficient's range (search's ranges are by plain name).
        rng = {k: ranges[k] if card_keys.SEP not in k else search.ranges_of(card_keys.base(k)) for k in self.keys}
        lo = np.array([math.log(rng[k][0] / self.start[k]) for k in self.keys])
        hi = np.array([math.log(rng[k][1] / self.start[k]) for k in self.keys])
        return lo, hi

    def predicted(self, i: int, x) -> dict[str, float]:
        key = tuple(np.round(np.asarray(x, dtype=float), 15).tolist())
        cache = self._cache[i]
        hit = cache.get(key)
        if hit is None:
            hit = cache[key] = self.replays[i].predict(self.coefs(x))
            self.replays_done += 1
            if len(cache) > CACHE_ENTRIES:
                cache.popitem(last=False)
        return hit

    def residuals(self, x, counts=None, run_weights=None, step_counts=None) -> np.ndarray:
        """counts and step_counts: per-request and step-log bootstrap counts in fit.py's
        Problem; summaries have neither (ignored)."""
        weights = np.ones(len(self.replays)) if run_weights is None else np.asarray(run_weights, dtype=float)
        parts = []
        for i, r in enumerate(self.replays):
            if weights[i] <= 0:
                parts.append(np.zeros(len(r.scored)))
                continue
            parts.append(residuals_of(self.predicted(i, x), r.run.measured, r.scored, float(weights[i])))
        return np.concatenate(parts)


@dataclass
class SummaryCalibration:
    coefficients: dict  # every coefficient (fitted, and the first run's defaults; each run replays its own)
    defaults: dict
    fit_keys: tuple
    frozen: dict  # key -> why it was not fitted
    converged: bool
    message: str
    per_run: list  # {run, figures: {metric: measured, before, after, error %s}}
    refused: dict = field(default_factory=dict)  # run id -> why it cannot be replayed
    samples: list = field(default_factory=list)  # bootstrap draws: the fitted keys only
    bands: dict = field(default_factory=dict)  # key -> (p5, p50, p95)
    cost_before: float = 0.0
    cost_after: float = 0.0
    replays: int = 0
    cpu_s: float = 0.0

    @property
    def fitted(self) -> dict:
        """The fitted keys' values only: what a run replays over its own defaults."""
        return {k: self.coefficients[k] for k in self.fit_keys}


def replays_of(runs: Sequence[SummaryRun]) -> tuple[list[SummaryReplay], dict[str, str]]:
    """The runs set up for replay, and those refused (id -> why: a prompt the pool cannot hold)."""
    out, refused = [], {}
    for run in runs:
        try:
            out.append(SummaryReplay(run))
        except ParamError as err:
            if err.param in ("kv_pool_bytes", "max_num_seqs", "token_budget"):
                refused[run.id] = str(err)
                continue
            raise
    return out, refused


def checked_keys(fit_keys: Sequence[str], replays: Sequence[SummaryReplay]) -> tuple[str, ...]:
    """fit_keys with "key@card" expanded to the runs' cards (card_keys), and a shared key
    whose default is the card's own (step_defaults.CARD_DECODE_READ: one value on each card,
    not the same on all) fitted per card too; ParamError for a name that is no coefficient,
    or one asked both shared and per card."""
    cards = tuple(dict.fromkeys(r.card for r in replays))
    per_card = []
    for k in fit_keys:
        by_card = {r.card: r.defaults.get(k) for r in replays}
        one_each = all(len({r.defaults.get(k) for r in replays if r.card == c}) == 1 for c in cards)
        per_card.append(f"{k}{card_keys.SEP}{card_keys.EVERY_CARD}" if card_keys.SEP not in k and one_each
                        and len(set(by_card.values())) > 1 and None not in by_card.values() else k)
    asked = card_keys.expand(tuple(per_card), cards)
    for k in asked:
        if card_keys.base(k) not in COEF_KEYS:
            raise ParamError("fit_keys", f"{k!r} is no coefficient; valid: {', '.join(COEF_KEYS)}, each optionally "
                             f"per card as NAME@card or NAME@<hardware> ({', '.join(cards)})")
    both = {card_keys.base(k) for k in asked if card_keys.SEP in k} & {k for k in asked if card_keys.SEP not in k}
    if both:
        raise ParamError("fit_keys", f"{', '.join(sorted(both))} asked both shared and per card; valid: one of the two")
    return asked


def calibrate_summaries(runs: Sequence[SummaryRun], *, fit_keys: Sequence[str] | None = None, bootstrap: int = 0,
                        seed: int = 0, nfev: int = MAX_NFEV, scan: bool = True) -> SummaryCalibration:
    """Fit the coefficients to the runs' figures (ParamError for bad input); scan=False:
    the local searches from the defaults only (search.local_fit), no Latin hypercube."""
    t0 = time.process_time()
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or not 0 <= bootstrap <= 1000:
        raise ParamError("bootstrap", f"got {bootstrap!r}; valid: a whole number in [0, 1000]")
    replays, refused = replays_of(runs)
    if not replays:
        raise ParamError("runs", "no run to fit (every one refused: " + "; ".join(refused.values()) + ")")
    asked = checked_keys(fit_keys if fit_keys is not None else FIT_KEYS, replays)
    defaults = dict(replays[0].defaults)
    frozen: dict[str, str] = {}
    usable = []
    for k in asked:
        card = card_keys.card_of(k)
        on = [r for r in replays if card in (None, r.card)]  # the runs the key moves
        b = card_keys.base(k)
        if not on:
            frozen[k] = f"no run on {card} among these runs"
        elif any(b not in r.defaults for r in on):
            frozen[k] = "the front end is off in " + ("these runs" if all(b not in r.defaults for r in on)
                                                      else "some of these runs") + " (frontend=off)"
        elif len({r.defaults[b] for r in on}) > 1:
            frozen[k] = "its default differs between these runs (one value cannot stand for all)"
        else:
            usable.append(k)
        if card is not None and on:
            defaults[k] = on[0].defaults.get(b, defaults.get(b, 0.0))
    start = {k: max(defaults[k], search.FLOOR) if k in usable else defaults[k] for k in defaults}
    problem = SummaryProblem(replays, tuple(usable), start)
    x0 = np.zeros(len(usable))
    cost_before = loss.robust_cost(problem.residuals(x0))
    kept, why = search.identifiable(_duck(problem), x0, None, np.ones(len(replays))) if usable else ((), {})
    frozen.update(why)
    fitted = SummaryProblem(replays, kept, start)  # over the kept keys (a cache of its own: x is shorter)
    x_hat, converged, message, cost_after = np.zeros(len(kept)), True, "nothing to fit; kept the defaults", cost_before
    weights = np.ones(len(replays))
    if kept:
        x0 = np.zeros(len(kept))
        fit = (search.global_fit(_duck(fitted), x0, None, weights, nfev, seed) if scan
               else search.local_fit(_duck(fitted), x0, None, weights, nfev))
        x_hat, converged, message, cost_after = search.outcome(fit, x0, cost_before)
        if not converged:
            cost_after = cost_before
    coefficients = fitted.coefs(x_hat)
    coefficients = {k: (coefficients[k] if k in kept and converged else defaults[k]) for k in defaults}
    samples = _bootstrap(fitted, x_hat, bootstrap, seed) if converged and kept and bootstrap else []
    bands = {k: tuple(float(v) for v in np.percentile([s[k] for s in samples], (5, 50, 95))) for k in kept} \
        if samples else {}
    per_run = [run_table(r, {}, {k: coefficients[k] for k in kept} if converged else {}) for r in replays]
    return SummaryCalibration(coefficients=coefficients, defaults=defaults, fit_keys=tuple(kept) if converged else (),
                              frozen=frozen, converged=converged, message=message, per_run=per_run, refused=refused,
                              samples=samples, bands=bands, cost_before=cost_before, cost_after=cost_after,
                              replays=problem.replays_done + fitted.replays_done, cpu_s=time.process_time() - t0)


def _duck(problem: SummaryProblem) -> Any:
    """search.py types its argument as fit.py's Problem; a SummaryProblem has the methods it calls."""
    return cast(Any, problem)


def _bootstrap(problem: SummaryProblem, x_hat, draws: int, seed: int) -> list[dict]:
    """Runs resampled (multinomial counts as their weights), each draw refitted from x_hat."""
    rng = np.random.default_rng(seed)
    n = len(problem.replays)
    out = []
    for _ in range(draws):
        weights = rng.multinomial(n, np.full(n, 1.0 / n)).astype(float)
        fit = search.solve(_duck(problem), x_hat, None, weights, BOOT_NFEV)
        c = problem.coefs(fit.x)
        out.append({k: c[k] for k in problem.keys})
    return out


def run_table(replay: SummaryReplay, before: Mapping[str, float], after: Mapping[str, float]) -> dict:
    """Per measured figure: measured, predicted before and after, error % of each
    (100 · (predicted − measured) / measured), and whether it is scored."""
    b, a = replay.predict(before), replay.predict(after)
    figures = {}
    for m, v in replay.run.measured.items():
        if m not in b:
            continue
        figures[m] = {"measured": float(v), "before": b[m], "after": a[m], "scored": m in replay.scored,
                      "error_before_pct": 100.0 * (b[m] - v) / v, "error_after_pct": 100.0 * (a[m] - v) / v}
    return {"run": replay.run.id, "figures": figures}


def summary(tables: Sequence[dict], which: str, metric: str | None = None) -> dict:
    """median |error| %, the worst (signed, with its run and figure) over the scored figures
    (of one metric, if given); which: "before" or "after"."""
    rows = [(t["run"], m, f[f"error_{which}_pct"]) for t in tables for m, f in t["figures"].items()
            if f["scored"] and metric in (None, m)]
    if not rows:
        return {"figures": 0}
    worst = max(rows, key=lambda r: abs(r[2]))
    return {"figures": len(rows), "runs": len({r[0] for r in rows}),
            "median_abs_error_pct": round(float(np.median([abs(r[2]) for r in rows])), 2),
            "worst_error_pct": round(worst[2], 2), "worst": f"{worst[0]} {worst[1]}"}
