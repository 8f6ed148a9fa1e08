"""Issue 12's fidelity check on public GPU runs: each run of tests/data/public_runs replayed by
`lab simulate serving` (core/serving/headless.serving_report, the path --json prints) with the
default coefficients, or with coefficient keys given, against what the source measured.

Per run and metric: error % = 100 · (predicted − measured) / measured. Summaries (median |error|
and the worst, with its run) over all scored metrics, per half (fit / validation: written in
the data files before any replay), per regime (low load / saturated), per card, per metric
family (ttft, tpot, itl, e2el, throughput) and per source. Prints JSON.

Scored: throughput (output tokens/s), mean and median TTFT, TPOT and E2E, mean ITL. Not
scored, though predicted and listed: the duration (throughput's reciprocal, the same figure
twice) and the median ITL (in a burst it is the median of a two-valued series, prefill-mixed
or decode-only steps, and falls on either side of the jump).

    PYTHONPATH=. .venv/bin/python bench/fidelity_public.py [--split validation] [--runs N]
        [--coef coef_seq_s=20us --coef ...] [--no-card-efficiency] [--per-run]

The front end before its round robin: --coef frontend_rounds=1 (one FIFO queue), with
--coef frontend_request_ms=4 for the request time it had on every endpoint.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from fidelity_public_runs import lab_keys, load_runs

from core.registry import ParamError
from core.serving.headless import serving_report
from core.serving.step_defaults import CARD_COMPUTE_EFFICIENCY, CARD_DECODE_READ

SCORED = ("output_throughput", "mean_ttft_ms", "median_ttft_ms", "mean_tpot_ms", "median_tpot_ms",
          "mean_itl_ms", "mean_e2el_ms", "median_e2el_ms")
REPORT_NAME = {"duration_s": "duration"}  # measured name -> the report's, where they differ


def family(metric: str) -> str:
    for f in ("ttft", "tpot", "itl", "e2el"):
        if f in metric:
            return f
    return "throughput"


def for_run(run, coefficients: dict[str, str] | None) -> dict[str, str] | None:
    """The coefficients a run takes: a run replayed with frontend=off (the engine in process)
    takes none of the front end's keys (frontend_*), so one set of keys goes to every run."""
    if not coefficients or run.deployment.get("frontend") != "off":
        return coefficients
    return {k: v for k, v in coefficients.items() if not k.startswith("frontend_")}


def predict(run, coefficients: dict[str, str] | None = None) -> dict:
    """The run's predicted figures by the measured names, or {"refused": why}."""
    try:
        report, _ = serving_report(lab_keys(run, for_run(run, coefficients)))
    except ParamError as e:
        return {"refused": str(e)}
    return {m: float(report[REPORT_NAME.get(m, m)]) for m in run.measured if REPORT_NAME.get(m, m) in report}


def errors(runs, coefficients=None) -> list[dict]:
    """One row per (run, measured figure): predicted, measured, error %."""
    rows = []
    for run in runs:
        got = predict(run, coefficients)
        for metric, measured in run.measured.items():
            if metric in ("total_input_tokens", "total_output_tokens"):
                continue
            row = {"run": run.id, "source": run.source, "card": run.hardware, "split": run.split,
                   "regime": run.regime, "metric": metric, "family": family(metric),
                   "scored": metric in SCORED, "measured": measured}
            if "refused" in got:
                row.update(predicted=None, error_pct=None, refused=got["refused"])
            else:
                p = got[metric]
                row.update(predicted=p, error_pct=100.0 * (p - measured) / measured)
            rows.append(row)
    return rows


def summary(rows: list[dict]) -> dict:
    """median |error| %, the worst, and counts over the scored rows (refusals counted apart)."""
    scored = [r for r in rows if r["scored"]]
    ok = [r for r in scored if r["error_pct"] is not None]
    out = {"metrics": len(ok), "runs": len({r["run"] for r in ok}), "refused_runs": len({r["run"] for r in scored
                                                                                        if r["error_pct"] is None})}
    if ok:
        worst = max(ok, key=lambda r: abs(r["error_pct"]))
        signed = [r["error_pct"] for r in ok]
        out.update(median_abs_error_pct=round(statistics.median(abs(e) for e in signed), 2),
                   median_signed_error_pct=round(statistics.median(signed), 2),
                   worst_error_pct=round(worst["error_pct"], 2), worst=f"{worst['run']} {worst['metric']}")
    return out


def grouped(rows: list[dict], key: str) -> dict:
    return {v: summary([r for r in rows if r[key] == v]) for v in sorted({r[key] for r in rows})}


def report(rows: list[dict]) -> dict:
    out = {"all": summary(rows)}
    for half in ("fit", "validation"):
        part = [r for r in rows if r["split"] == half]
        out[half] = {"all": summary(part), "by_regime": grouped(part, "regime"), "by_card": grouped(part, "card"),
                     "by_family": grouped(part, "family"), "by_source": grouped(part, "source")}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=("fit", "validation"), help="replay only this half")
    ap.add_argument("--runs", type=int, help="only the first N runs (a quick look)")
    ap.add_argument("--coef", action="append", default=[], metavar="KEY=VALUE",
                    help="a coefficient key of lab simulate serving (e.g. coef_seq_s=20us); repeatable")
    ap.add_argument("--per-run", action="store_true", help="also print every (run, metric) row")
    ap.add_argument("--no-card-efficiency", action="store_true",
                    help="every card at the book card's compute efficiency and decode reads (the model before the fit half's refits)")
    args = ap.parse_args(argv)
    coefs = dict(c.split("=", 1) for c in args.coef)
    if args.no_card_efficiency:
        CARD_COMPUTE_EFFICIENCY.clear()
        CARD_DECODE_READ.clear()
    runs = [r for r in load_runs() if args.split in (None, r.split)][: args.runs]
    t0 = time.process_time()
    rows = errors(runs, coefs)
    out = {"coefficients": coefs or "defaults", "card_compute_efficiency": not args.no_card_efficiency, "cpu_s": round(time.process_time() - t0, 1), **report(rows)}
    if args.per_run:
        out["rows"] = rows
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
