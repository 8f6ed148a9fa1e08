"""`lab calibrate RESULT.json [RESULT2.json ...] model=... hardware=... [keys] [--out PROFILE.toml]
[--fit-keys a,b] [--bootstrap N] [--seed N] [--json]`: fit the basis step-time model's
coefficients to measured runs (core/calibrate/fit.py), print the fit error per run (before
and after), the leave-one-run-out error and the coefficients with their bootstrap bands,
and write the profile that hardware=PROFILE.toml / profile=PROFILE.toml take in simulate and
sweep. A fit that does not converge says so, writes nothing and exits 2; bad input exits 2
naming the field ("did you mean" for a misspelt key).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from core.serving import aliases
from lab.cli import calibrate_config, config_file
from lab.cli.args import PARAM, input_error

USAGE = ("lab calibrate RESULT.json [RESULT2.json ...] model=KEY|config.json hardware=KEY|card.toml [key=value ...] "
         "[--out PROFILE.toml] [--steps SERVER.log] [--fit-keys a,b] [--bootstrap N] [--seed N] [--json] "
         "[--config FILE.toml|.yaml|.json: keys from a file, the command line wins]\n"
         "       lab calibrate --summaries RUNS.toml [--out PROFILE.toml] [--fit-keys a,b] [--bootstrap N] [--seed N] "
         "[--json]")
DESCRIPTION = """Fit the lab's step-time model to what a real server measured. Each run (a vllm bench serve
--save-result --save-detailed JSON, or lab observe's result.json) is replayed as it was measured:
its requests, its client's --max-concurrency, and its server's KV pool by blocks and prefix caching
when lab observe recorded them (keys given win: max_num_seqs=, token_budget= for the server's
--max-num-seqs and --max-num-batched-tokens). --steps (the server's own step times): two
stages, the engine's terms fitted to the logs alone first (a weak prior toward the card's
figures where a log says little), then the runs fit coef_step_s, the per-step time a log
leaves out. A request whose tokens all came in one chunk counts by its E2E alone.
The fit: robust least squares on per-request
log(predicted/measured) of TTFT, TPOT and E2E plus their medians and p90s
(core/calibrate/loss.py), bounded, in log space, over coef_step_s, coef_seq_s,
coef_prefill_compute, coef_request_s and coef_decode_kv by default (those a run identifies; a
key given stays fixed; one the runs do not identify is kept at its default and named).
Uncertainty: a bootstrap over requests and runs (refits from the point estimate).
Keys as key=value, --key value or --key=value, with dashes or vLLM's names and flags
(--max-num-seqs 128, --max-num-batched-tokens 2048, --no-enable-prefix-caching).
--out P.toml also writes P.config.toml: the runs and logs fitted (absolute paths), the keys,
fit_keys, bootstrap and bootstrap_seed, so `lab calibrate --config P.config.toml --out P2.toml`
refits it exactly.
--summaries RUNS.toml: for runs that report only a benchmark's summary figures (mean and median
TTFT, TPOT, ITL, E2E, throughput), not per-request times: [[runs]] tables as in
tests/data/public_runs (id, model, hardware, deployment keys, a workload table of lab simulate
serving's dataset keys, a measured table of vllm bench serve's figures; split = "validation"
runs are not fitted), all of one model on one card; each replayed as lab simulate serving
does, fitted on log(predicted/measured) of every figure, each run weighing alike
(core/calibrate/summaries.py; default --fit-keys coef_prefill_compute,coef_decode_weights,
coef_attention,frontend_request_ms,coef_seq_s; --bootstrap default 0 there)."""


def add_parser(sub, formatter, keys: bool = True) -> None:
    p = sub.add_parser("calibrate", help="fit the step-time model to measured runs, write a profile (issue 13)",
                       prog="lab calibrate", usage=USAGE, description=DESCRIPTION, formatter_class=formatter,
                       allow_abbrev=False)
    p.add_argument("items", nargs="*", metavar="RESULT|KEY=VALUE",
                   help="result files, and lab simulate serving keys (model=, hardware=, deployment and engine keys)")
    p.add_argument("--out", metavar="PROFILE.toml", default=None,
                   help="write the profile here (TOML; written whole or not at all)")
    p.add_argument("--fit-keys", dest="fit_keys", metavar="a,b", default=None,
                   help="the coefficients to fit (default: coef_step_s,coef_seq_s,coef_prefill_compute,"
                        "coef_request_s,coef_decode_kv)")
    p.add_argument("--bootstrap", metavar="N", default=None, help="bootstrap refits for the bands (default 20; 0: none)")
    p.add_argument("--seed", metavar="N", default=None, help="the bootstrap's random seed (default 0)")
    p.add_argument("--steps", metavar="LOG", action="append", default=[],
                   help="a vLLM server log with --enable-logging-iteration-details lines: its engine steps' times are "
                        "fitted beside the runs (repeatable)")
    p.add_argument("--summaries", metavar="RUNS.toml", default=None,
                   help="fit to runs' summary figures instead ([[runs]] as in tests/data/public_runs; no RESULT "
                        "files, keys or --steps beside it)")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    if keys:
        _add_keys(p)


def _add_keys(p) -> None:
    """lab simulate serving's keys as options too (every spelling; listed by its --help), so
    argparse takes each one's value: `--max-num-seqs 128 RUN.json` keeps 128 out of the run
    files."""
    import argparse

    from core.registry import get
    from core.serving import simulate_keys
    from lab.cli.args import PARAM

    names = [q.name for q in (*get("serving.replay").params, *simulate_keys.extra_params())]
    for name in dict.fromkeys([*names, "trace", *simulate_keys.TEXT_KEYS]):
        if name == "seed":  # --seed is the bootstrap's (the replays keep each run's own arrivals)
            continue
        spellings = dict.fromkeys([f"--{name.replace('_', '-')}", f"--{name}", *aliases.aliases_of(name)])
        p.add_argument(*spellings, dest=PARAM + name, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        for option, value in aliases.flag_options(name):  # --enable-prefix-caching: no value
            p.add_argument(option, dest=PARAM + name, action="store_const", const=value, default=argparse.SUPPRESS,
                           help=argparse.SUPPRESS)


def _whole(name: str, text, default: int, high: int) -> int:
    if text is None:
        return default
    try:
        value = int(str(text).strip())
    except ValueError:
        raise input_error(name, f"got {text!r}; valid: a whole number in [0, {high}]") from None
    if not 0 <= value <= high:
        raise input_error(name, f"got {value}; valid: a whole number in [0, {high}]")
    return value


def split_items(items) -> tuple[list[str], dict[str, str]]:
    paths, keys = [], {}
    for item in items:
        key, sep, value = item.partition("=")
        if sep and not Path(item).exists():
            if not key.strip():
                raise input_error(item, "an empty key; valid: KEY=VALUE")
            keys[aliases.canonical(key)] = value  # dashes and vLLM's names as ours
        else:
            paths.append(item)
    return paths, keys


def option_words(extras: list[str]) -> list[str]:
    """What argparse left, keys given as options (--max-num-seqs 8, --max-num-seqs=8,
    --enable-prefix-caching, -tp 2) as key=value words; other words as they came."""
    from lab.cli.parser import take_option

    words, i = [], 0
    while i < len(extras):
        option = take_option(extras, i)
        if option is None:
            if extras[i].startswith("-"):
                raise input_error(extras[i], "unknown option; valid: --out, --fit-keys, --bootstrap, --seed, --json, "
                                  "--steps, --config, or a key as --key value (see lab calibrate --help)")
            words.append(extras[i])
            i += 1
            continue
        key, value, i = option
        words.append(f"{key}={value}")
    return words


def run(args, extras) -> int:
    from core.calibrate.fit import DEFAULT_BOOTSTRAP, calibrate  # lazy: scipy, the engine
    from core.calibrate.profile import save_profile

    options = [f"{dest[len(PARAM):]}={v}" for dest, v in vars(args).items() if dest.startswith(PARAM)]
    if getattr(args, "summaries", None) is not None:
        return _summaries(args, config_file.words() + list(args.items) + options + option_words(extras))
    items = config_file.words() + list(args.items) + options + option_words(extras)  # the file's first: the command line wins
    paths, keys = split_items(items)
    paths, steps, seed_text = calibrate_config.take(keys, paths, list(args.steps), args.seed)
    fit_keys, bootstrap_text = keys.pop("fit_keys", None), keys.pop("bootstrap", None)  # the options win
    fit_keys = fit_keys if args.fit_keys is None else args.fit_keys
    bootstrap = _whole("--bootstrap", bootstrap_text if args.bootstrap is None else args.bootstrap,
                       DEFAULT_BOOTSTRAP, 1000)
    seed = _whole("--seed", seed_text, 0, 2**31 - 1)
    if args.out is not None and not args.out.lower().endswith(".toml"):
        raise input_error("--out", f"got {args.out!r}; valid: a path ending in .toml")
    bar = _Bar() if sys.stderr.isatty() and not args.json else None
    try:
        cal = calibrate(paths, dict(keys), fit_keys=None if fit_keys is None else fit_keys.split(","),
                        bootstrap=bootstrap, seed=seed, progress=bar, steps=steps)
    finally:
        if bar is not None:
            bar.close()
    wrote = None
    if cal.converged and args.out:
        save_profile(cal.profile, args.out)
        calibrate_config.write_beside(args.out, paths, steps, keys, fit_keys, bootstrap, seed)
        wrote = args.out
    print(json.dumps(as_json(cal, wrote), ensure_ascii=False) if args.json else report_text(cal, wrote))
    if not cal.converged:
        print(f"lab calibrate: the fit did not converge ({cal.message}); no profile written", file=sys.stderr)
        return 2
    return 0


def _summaries(args, words: list[str]) -> int:
    """lab calibrate --summaries RUNS.toml: the file holds the runs and their keys."""
    from core.calibrate.summary_profile import cli_run  # lazy: scipy, the engine

    if words or args.steps:
        raise input_error("--summaries", f"got {(words + list(args.steps))[0]!r} beside it; valid: --summaries "
                          "RUNS.toml alone (its [[runs]] hold the runs and their keys), with --out, --fit-keys, "
                          "--bootstrap, --seed, --json")
    bootstrap = _whole("--bootstrap", args.bootstrap, 0, 1000)
    seed = _whole("--seed", args.seed, 0, 2**31 - 1)
    return cli_run(args.summaries, args.out, args.json, args.fit_keys, bootstrap, seed)


class _Bar:
    """One line on stderr, only on a terminal."""

    def __init__(self):
        self.last = -1

    def __call__(self, fraction: float, text: str) -> None:
        pct = int(fraction * 100)
        if pct != self.last:
            self.last = pct
            print(f"\r  {pct:3d}%  {text[:60]:<60}", end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        print("\r" + " " * 70 + "\r", end="", file=sys.stderr, flush=True)


def timing_summary(cal) -> dict:
    """median / min / max seconds per replay and per bootstrap refit; the fit's seconds."""
    def stats(xs):
        return {"median": float(np.median(xs)), "min": float(np.min(xs)), "max": float(np.max(xs)),
                "count": len(xs)} if xs else None
    t = cal.timings
    replays = list(t.get("replay_s", []))
    # The process's first replay loads (or compiles) the engine's kernels: timed apart.
    return {"first_replay_s": replays[0] if replays else None, "replay_s": stats(replays[1:]), "fit_s": t.get("fit_s"),
            "bootstrap_refit_s": stats(t.get("bootstrap_s", [])), "replays": t.get("replays")}


def as_json(cal, wrote: str | None) -> dict:
    return {"converged": cal.converged, "message": cal.message, "fit_keys": list(cal.fit_keys),
            "frozen": cal.frozen, "defaults": cal.defaults, "coefficients": cal.coefficients,
            "bands": {k: {"p5": b[0], "p50": b[1], "p95": b[2]} for k, b in cal.bands.items()},
            "samples": len(cal.samples), "per_run": cal.per_run, "leave_one_out": cal.loo,
            "loss": {"before": cal.cost_before, "after": cal.cost_after}, "timings": timing_summary(cal),
            "steps": cal.steps, "step_logs_cadence": cal.cadence,
            "profile": wrote}


def _g(x: float) -> str:
    return f"{x:.4g}"


def report_text(cal, wrote: str | None) -> str:
    from core.calibrate.replayer import METRICS

    lines = [f"lab calibrate: {len(cal.per_run)} run{'s' if len(cal.per_run) != 1 else ''}; {cal.message}"]
    lines.append("  coefficients (default -> fitted, bootstrap p5..p95):")
    for k in cal.fit_keys:
        band = cal.bands.get(k)
        band_text = f"  [{_g(band[0])} .. {_g(band[2])}]" if band else ""
        if k in cal.log_only:  # fitted to the step logs only: the profile replays the default
            lines.append(f"    {k:<22}{_g(cal.defaults[k]):>12} -> {_g(cal.log_only[k]):<12}"
                         f"  the step logs' fit, not replayed (the profile keeps {_g(cal.coefficients[k])})")
            continue
        lines.append(f"    {k:<22}{_g(cal.defaults[k]):>12} -> {_g(cal.coefficients[k]):<12}{band_text}")
    for k, why in cal.frozen.items():
        lines.append(f"    {k:<22}{_g(cal.coefficients[k]):>12}    kept: {why}")
    for row in cal.per_run:
        lines.append(f"  {row['run']}: {row['requests']:,} requests; median |error| {row['fit_error_pct']:.1f}% "
                     f"after the fit")
        lines.append(f"    {'metric':<18}{'measured':>11}{'before':>11}{'err':>9}{'after':>11}{'err':>9}")
        for m in METRICS:
            b, a = row["before"][m], row["after"][m]
            lines.append(f"    {m:<18}{b['measured']:>11.2f}{b['predicted']:>11.2f}{b['error_pct']:>+8.1f}%"
                         f"{a['predicted']:>11.2f}{a['error_pct']:>+8.1f}%")
    for log in cal.steps:
        lines.append(f"  {log['log']}: {log['steps']:,} engine steps; measured vs model, median ms (median |step error|)")
        engine = log.get("engine")
        for kind, b in log["before"].items():
            a = log["after"][kind]
            e = f"  the logs' fit {engine[kind]['predicted_median_ms']:>8.2f} " \
                f"({engine[kind]['median_abs_step_error'] * 100:.0f}%)" if engine else ""
            lines.append(f"    {kind:<8}{b['steps']:>6} steps {b['measured_median_ms']:>9.2f}  before "
                         f"{b['predicted_median_ms']:>8.2f} ({b['median_abs_step_error'] * 100:.0f}%)  after "
                         f"{a['predicted_median_ms']:>8.2f} ({a['median_abs_step_error'] * 100:.0f}%)" + e)
        if engine and "coef_step_s" in log["engine_coefficients"]:
            extra = (cal.coefficients["coef_step_s"] - log["engine_coefficients"]["coef_step_s"]) * 1e3
            lines.append(f"    the engine's terms are the logs' fit; the runs then set coef_step_s: {extra:+.2f} ms a "
                         "step beside the logs' (what the log's elapsed time leaves out: the scheduler, the outputs; and "
                         "latency outside the engine)")
        if engine and cal.cadence:
            lines.append("    the logs' clock between steps of decodes back to back (their whole cycle): " + ", ".join(
                f"{k} {v * 1e3:+.3g} ms" for k, v in cal.cadence.items()) + " beside the elapsed time; added to "
                "the logs' fit ('after' leaves it out, as a log's elapsed time does)")
    if cal.loo:
        lines.append("  leave one run out (fit on the others, predict this one): median |error| per run")
        for r in cal.loo:
            e = r["errors"]
            lines.append(f"    {r['run']:<24}{r['median_abs_error_pct']:>6.1f}%   (TTFT {e['median_ttft_ms']['error_pct']:+.1f}%, "
                         f"TPOT {e['median_tpot_ms']['error_pct']:+.1f}%, E2E {e['median_e2el_ms']['error_pct']:+.1f}%)")
    t = timing_summary(cal)
    if t["replay_s"]:
        r = t["replay_s"]
        lines.append(f"  {t['replays']:,} replays: {r['median'] * 1e3:.2f} ms each (min {r['min'] * 1e3:.2f}, max "
                     f"{r['max'] * 1e3:.2f}; the first {t['first_replay_s']:.2f} s, loading the engine); fit "
                     f"{t['fit_s']:.2f} s" + (
                         f"; bootstrap refit {t['bootstrap_refit_s']['median']:.2f} s each" if t["bootstrap_refit_s"] else ""))
    lines.append(f"  wrote {wrote}" if wrote else "  no profile written (give --out PROFILE.toml)" if cal.converged
                 else "  no profile written: the fit did not converge")
    return "\n".join(lines)
