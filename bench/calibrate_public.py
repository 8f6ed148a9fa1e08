"""Issue 13 on public GPU runs: per source, calibrate the step-time model on its fit half
(core/calibrate/summaries.py: summary figures only) and predict its validation half, the
split written in tests/data/public_runs before any replay (gpustack: Qwen3-14B fit, Qwen3-32B
and the Qwen3-8B latency run validation; TensorRT-LLM: H100 fit, H200 validation). A source
with no fit run (musgrave-a100) is listed, not calibrated.

Per source: the keys fitted and those kept (with why), each coefficient's default and fit
(and its p5-p95 band with --bootstrap), and median |error| % and the worst over the scored
figures (bench/fidelity_public.py's SCORED), before (defaults) and after, for the fit half
and the validation half, overall and per metric. Error % = 100 · (predicted − measured) /
measured. The self-check: the fit half's own runs simulated at known coefficients, those
figures taken as measured, calibrated from the defaults: the recovered coefficients' error %.
Prints JSON. --fit-keys takes NAME@card (one value per card of the fit runs; a key whose
default is the card's own is fitted per card anyway). --select chooses the keys on the fit
half alone: forward selection by the held-out error of --folds (model_card: every run of one
model on one card left out at once, as the validation half's models are; run: one run), over
summary_select.CANDIDATES; the validation half is replayed once, after.

    PYTHONPATH=. .venv/bin/python bench/calibrate_public.py [--source gpustack] [--bootstrap N]
        [--fit-keys k1,k2@card] [--select [--folds model_card|run]] [--held-out] [--no-scan]
        [--no-self-check] [--per-run]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from fidelity_public import SCORED as FIDELITY_SCORED
from fidelity_public_runs import lab_keys, load_runs

from core.calibrate import card_keys
from core.calibrate.summaries import (
    FIT_KEYS,
    SCORED,
    SummaryRun,
    calibrate_summaries,
    replays_of,
    run_table,
    summary,
)
from core.calibrate.summary_select import CANDIDATES, FOLDS, leave_out, select_keys

assert SCORED == FIDELITY_SCORED  # the fit reads the figures the fidelity check scores
# The self-check's generating coefficients: each fitted key moved by a factor the fit must find.
SELF_CHECK_FACTORS = {"coef_prefill_compute": 1.25, "coef_decode_weights": 0.8, "coef_attention": 1.5,
                      "frontend_request_ms": 2.0, "coef_seq_s": 1.5}


def self_check_factor(key: str, cards: list[str]) -> float:
    """SELF_CHECK_FACTORS' factor f of the key; per card, f on the first card and f^(1/(i+1))
    on the i-th, so each card's value must be found on its own."""
    f = SELF_CHECK_FACTORS.get(card_keys.base(key), 1.3)
    card = card_keys.card_of(key)
    return f if card is None else f ** (1.0 / (cards.index(card) + 1))


def summary_runs(runs) -> list[SummaryRun]:
    return [SummaryRun(r.id, lab_keys(r), dict(r.measured)) for r in runs]


def halves(tables: list[dict]) -> dict:
    return {which: {"all": summary(tables, which), "by_metric": {m: summary(tables, which, m) for m in SCORED
                                                                 if summary(tables, which, m)["figures"]}}
            for which in ("before", "after")}


def calibrate_source(source: str, runs, args) -> dict:
    fit = summary_runs([r for r in runs if r.source == source and r.split == "fit"])
    val = summary_runs([r for r in runs if r.source == source and r.split == "validation"])
    out: dict = {"fit_runs": [r.id for r in fit], "validation_runs": [r.id for r in val]}
    if not fit:
        out["calibrated"] = "no: no fit run in this source"
        return out
    t0 = time.process_time()
    keys = args.fit_keys
    if args.select:  # the keys a leave-one-run-out over the fit half supports (none read the validation half)
        keys, rounds = select_keys(fit, args.fit_keys or CANDIDATES, nfev=args.select_nfev, folds=args.folds)
        out["selection"] = {"keys": list(keys), "rounds": rounds, "cpu_s": round(time.process_time() - t0, 1)}
    cal = calibrate_summaries(fit, fit_keys=keys, bootstrap=args.bootstrap, scan=not args.no_scan)
    replays, refused = replays_of(val)
    val_tables = [run_table(r, {}, cal.fitted) for r in replays]  # each run over its own defaults
    out.update(message=cal.message, fit_keys=list(cal.fit_keys), frozen=cal.frozen,
               coefficients={k: {"default": cal.defaults[k], "fitted": cal.coefficients[k],
                                 **({"band_p5_p50_p95": list(cal.bands[k])} if k in cal.bands else {})}
                             for k in cal.fit_keys},
               loss_before=cal.cost_before, loss_after=cal.cost_after, replays=cal.replays,
               fit_cpu_s=round(cal.cpu_s, 1), cpu_s=round(time.process_time() - t0, 1),
               refused={**cal.refused, **refused}, fit=halves(cal.per_run), validation=halves(val_tables))
    if args.held_out:  # the fitted keys' held-out error within the fit half (the selection's score)
        out["held_out_fit_half"] = {k: v for k, v in leave_out(fit, cal.fit_keys, args.select_nfev, args.folds).items()
                                    if k != "errors_pct"}
    if args.per_run:
        out["per_run"] = {"fit": cal.per_run, "validation": val_tables}
    return out


def self_check(source: str, runs, args, fit_keys=None) -> dict:
    """The fit half simulated at SELF_CHECK_FACTORS × the defaults of the keys a fit to its
    real figures kept, then calibrated from the defaults."""
    fit = summary_runs([r for r in runs if r.source == source and r.split == "fit"])
    replays, _ = replays_of(fit)
    first = calibrate_summaries(fit, fit_keys=fit_keys or args.fit_keys, scan=False)
    keys = tuple(first.fit_keys) or tuple(SELF_CHECK_FACTORS)
    cards = list(dict.fromkeys(r.card for r in replays))
    truth = {k: first.defaults[k] * self_check_factor(k, cards) for k in keys}
    synthetic = [SummaryRun(r.run.id, r.run.keys, r.predict(truth)) for r in replays]
    cal = calibrate_summaries(synthetic, fit_keys=keys, scan=not args.no_scan)
    return {"keys": list(cal.fit_keys), "truth": truth, "recovered": {k: cal.coefficients[k] for k in keys},
            "error_pct": {k: round(100.0 * (cal.coefficients[k] - truth[k]) / truth[k], 3) for k in keys},
            "fit_after": summary(cal.per_run, "after"), "message": cal.message}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", action="append", help="only this source (repeatable)")
    ap.add_argument("--bootstrap", type=int, default=0, help="bootstrap draws over the fit runs (bands)")
    ap.add_argument("--fit-keys", type=lambda s: tuple(k for k in s.split(",") if k),
                    help=f"the coefficients to try (default: {','.join(FIT_KEYS)})")
    ap.add_argument("--select", action="store_true",
                    help="fit only the keys a forward selection by leave-one-run-out error on the fit half takes")
    ap.add_argument("--folds", choices=FOLDS, default="model_card",
                    help="the selection's held-out folds: one run, or one model on one card (default)")
    ap.add_argument("--select-nfev", type=int, default=60, help="evaluations per search in the selection's refits")
    ap.add_argument("--held-out", action="store_true", help="score the fitted keys by --folds within the fit half")
    ap.add_argument("--no-scan", action="store_true", help="local searches from the defaults only")
    ap.add_argument("--no-self-check", action="store_true")
    ap.add_argument("--per-run", action="store_true", help="every run's figures before and after")
    args = ap.parse_args(argv)
    runs = load_runs()
    t0 = time.process_time()
    out: dict = {"fit_keys_tried": list(args.fit_keys or FIT_KEYS), "scored": list(SCORED), "sources": {}}
    for source in dict.fromkeys(r.source for r in runs):
        if args.source and source not in args.source:
            continue
        out["sources"][source] = calibrate_source(source, runs, args)
        if not args.no_self_check and out["sources"][source].get("fit_runs"):
            out["sources"][source]["self_check"] = self_check(source, runs, args, out["sources"][source].get("fit_keys"))
    out["cpu_s"] = round(time.process_time() - t0, 1)
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
