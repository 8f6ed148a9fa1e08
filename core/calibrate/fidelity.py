"""The fidelity report (issue 13): for a set of measured runs, each replayed as it was
measured (core/calibrate/replayer.py: the run's requests, its client's concurrency, its
server's KV pool by blocks, the keys or the profile given), measured vs predicted per
metric with the error, and the median and the worst |error| per metric, over all runs and
per regime. This is how a user checks the lab on their own card.

Metrics: median and p90 of TTFT, TPOT, ITL and E2E (vllm bench serve's definitions,
np.percentile linear), output throughput (output tokens over first arrival to last
finish, the same span on both sides), and when the result's lab_observe block has the
server's counters the preemption count and the prefix-cache hit rate (hits / queries).
error_pct = (predicted − measured) / measured · 100; the hit rate's error is in points
(error_points = (predicted − measured) · 100), a rate near 0 making a % meaningless;
a measured 0 (no preemptions) leaves error_pct None and shows the difference.

Regime, from the measured run alone: the mean concurrency it reached, by Little's law
N = Σ E2E / (last finish − first arrival) (requests in flight on average). N >=
SATURATED_CONCURRENCY (`saturated_at=` sets it) is "saturated": several sequences share
every step and a request's latency is set by the others' (batch size, queue), where the
engine's throughput, not one request's step time, decides the error; below it "low load".
The queueing share of the median TTFT, q = 1 − p10 / median of the measured TTFTs, is
printed beside it (it misses a burst served in one batch, where every TTFT is alike).

With a profile, each run is marked held out or not (its bytes' sha256 against the runs
the profile was fitted on) and the summary has a "held out" group: the errors that say
how the calibration predicts loads it was not shown. A run of a regime none of the fitted
runs had is marked beyond_fit: a fit on low load alone never saw many sequences share a
step, so the per-sequence step cost (and how fast a burst reaches the engine) is a guess
there (docs/vllm_cpu.md: the 32-block run). With a profile that has coefficient
sets (core/calibrate/bands.py), each run is also replayed once per set (the first
band_samples=, bands.DEFAULT_SAMPLES by default) and every metric gets its predicted
p5 / p95 and whether the measurement lies inside; the summary counts those.
A run the replay refuses (a request larger than the mirrored KV pool...) is a row with
its error and no metrics; the others are still compared.

Within tolerance, the issue's bar for a prediction on a held-out load: a latency or the
throughput within the spread of repeated measurements of the same load, or TOLERANCE_PCT,
whichever is wider; preemptions within TOLERANCE_PCT; the hit rate within TOLERANCE_POINTS. Repeats are the runs of one
load: the same request rate, client concurrency, burstiness, shared prefix and request
count (the seeds, so the prompts drawn, may differ); a metric's spread over them is
max / min − 1 of the measured values (the hit rate's: max − min, in points). No Qt here.
"""
from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from core.calibrate.bands import parse_band_keys, percentile_band, profile_samples
from core.calibrate.fidelity_steps import split_paths, steps_fidelity
from core.calibrate.replayer import METRICS, Prediction, RunReplay, measured_metrics, predicted_metrics
from core.calibrate.runs import REQUIRED, load_runs, mean_concurrency
from core.registry import ParamError
from core.serving.engine import replay
from core.serving.profile import is_profile, read_cached
from core.serving.vllm_metrics import itl_samples

SATURATED_CONCURRENCY = 4.0
REGIMES = ("low load", "saturated")
HELD_OUT = "held out"  # the summary's group of runs the profile was not fitted on
COUNTERS = ("preemptions", "prefix_cache_hit_rate")
ALL_METRICS = METRICS + ("output_throughput",) + COUNTERS
UNITS = {m: "ms" for m in METRICS} | {"output_throughput": "tok/s", "preemptions": "", "prefix_cache_hit_rate": ""}
MAX_FILES = 64
TOLERANCE_PCT = 30.0
TOLERANCE_POINTS = 5.0
LOAD_KEYS = ("request_rate", "max_concurrency", "burstiness", "prefix_tokens")


def result_files(paths: Sequence[str]) -> tuple[list[str], list[str]]:
    """(result files, skipped files): a file is taken as given; a folder gives every *.json
    under it (sorted) that has vllm bench's per-request keys, the others skipped."""
    files: list[str] = []
    skipped: list[str] = []
    if not paths:
        raise ParamError("runs", "no results given; valid: RESULTS_DIR or RESULT.json ... (vllm bench serve / "
                                 "lab observe results)")
    for path in paths:
        p = Path(path)
        if p.is_dir():
            found = sorted(str(f) for f in p.rglob("*.json") if f.is_file())
            for f in found:
                (files if _is_result(f) else skipped).append(f)
        else:
            files.append(str(p))  # load_runs names a missing or wrong file
    if not files:
        raise ParamError("runs", f"no vllm bench serve results in {', '.join(paths)} ({len(skipped)} other JSON "
                                 "files); valid: result JSONs with input_lens, output_lens, ttfts, itls")
    if len(files) > MAX_FILES:
        raise ParamError("runs", f"{len(files)} results; valid: at most {MAX_FILES}")
    return files, skipped


def _is_result(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            obj = json.load(f)
    except (OSError, ValueError, UnicodeDecodeError):
        return False
    return isinstance(obj, dict) and all(k in obj for k in REQUIRED)


def replay_keys(raw: Mapping[str, str]) -> tuple[dict, dict]:
    """raw as the replayer takes it, and the coefficients to price with: profile=P.toml is
    hardware=P.toml (its card and coefficients, core/serving/profile.py) with its model
    unless model= is given; explicit keys win over the profile's."""
    raw = dict(raw)
    profile = raw.pop("profile", None)
    if profile is not None:
        if "hardware" in raw:
            raise ParamError("profile", "names the card too; valid: profile= or hardware=, not both")
        raw["hardware"] = profile
    coefs: dict = {}
    path = raw.get("hardware")
    if path and is_profile(path):
        prof = read_cached(path)
        raw.setdefault("model", prof.model)
        coefs = {k: v for k, v in prof.coefficients.items() if k not in raw}
    return raw, coefs


def fitted_runs(keys: Mapping[str, str]) -> set[str] | None:
    """The sha256 of every run the profile keys name was fitted on (None: no profile)."""
    path = keys.get("hardware")
    if not path or not is_profile(path):
        return None
    return {str(r.get("sha256")) for r in read_cached(path).runs if r.get("sha256")}


def fitted_regimes(keys: Mapping[str, str], saturated_at: float = SATURATED_CONCURRENCY) -> list[str] | None:
    """The regimes of the runs the profile was fitted on, by the mean concurrency it
    recorded of each (None: no profile, or one written before it recorded them)."""
    path = keys.get("hardware")
    if not path or not is_profile(path):
        return None
    loads = [r.get("mean_concurrency") for r in read_cached(path).runs]
    if not loads or not all(isinstance(c, (int, float)) for c in loads):
        return None
    return sorted({regime_of(float(c), saturated_at) for c in loads}, key=REGIMES.index)


def in_group(row: Mapping, name: str) -> bool:
    """A row's membership of a summary group: all, a regime, or the held-out runs."""
    if name == "all":
        return True
    if name == HELD_OUT:
        return bool(row.get("held_out"))
    return row["regime"] == name


def queueing_share(ttft_s: np.ndarray) -> float:
    """1 − p10 / median of the measured TTFTs (0 when the median is 0)."""
    ttft = np.asarray(ttft_s, dtype=float)
    if ttft.size == 0:
        return 0.0
    med = float(np.percentile(ttft, 50))
    return 0.0 if med <= 0 else max(0.0, 1.0 - float(np.percentile(ttft, 10)) / med)


def regime_of(concurrency: float, saturated_at: float = SATURATED_CONCURRENCY) -> str:
    return REGIMES[1] if concurrency >= saturated_at else REGIMES[0]


def throughput(arrival_s, finish_s, output_tokens) -> float:
    span = float(np.max(finish_s) - np.min(arrival_s)) if np.size(arrival_s) else 0.0
    return float(np.sum(output_tokens)) / span if span > 0 else 0.0


def measured_counters(settings: Mapping) -> dict:
    """The server's preemptions and prefix-cache hit rate over the run, when scraped."""
    out = {}
    if isinstance(settings.get("num_preemptions"), (int, float)):
        out["preemptions"] = float(settings["num_preemptions"])
    queries = settings.get("prefix_cache_queries")
    if isinstance(settings.get("prefix_cache_hit_rate"), (int, float)):
        out["prefix_cache_hit_rate"] = float(settings["prefix_cache_hit_rate"])
    elif isinstance(queries, (int, float)) and queries > 0 and isinstance(settings.get("prefix_cache_hits"), (int, float)):
        out["prefix_cache_hit_rate"] = float(settings["prefix_cache_hits"]) / float(queries)
    return out


def row(metric: str, measured: float, predicted: float) -> dict:
    """One metric of one run: measured, predicted and the error (% or points)."""
    out: dict[str, float | None] = {"measured": float(measured), "predicted": float(predicted)}
    if metric == "prefix_cache_hit_rate":
        out["error_points"] = (float(predicted) - float(measured)) * 100.0
    else:
        out["error_pct"] = (float(predicted) - float(measured)) / float(measured) * 100.0 if measured else None
    return out


def error_of(entry: Mapping) -> float | None:
    value = entry.get("error_pct", entry.get("error_points"))
    return None if value is None or not math.isfinite(value) else float(value)


def predicted(rr: RunReplay, coefs: Mapping[str, float]) -> dict:
    """One replay of the run with these coefficients: every metric the report compares."""
    cost = rr.cost(dict(coefs))
    result = replay(rr.work, dataclasses.replace(rr.config, cost=cost))
    g = result.output_tokens.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        tpot = np.where(g > 1, (result.finish_s - result.first_token_s) / (g - 1), np.nan)
    gaps, weights = itl_samples(result, cost)
    p = Prediction(np.asarray(result.ttft_s, dtype=float), tpot, result.finish_s - result.arrival_s, gaps, weights,
                   int(result.preemptions.sum()), int(result.engine_steps))
    out = predicted_metrics(p)
    out["output_throughput"] = throughput(result.arrival_s, result.finish_s, result.output_tokens)
    out["preemptions"] = float(p.preemptions)
    cached = 0.0 if result.cached_tokens is None else float(np.sum(result.cached_tokens))
    prompt = float(np.sum(result.input_tokens))
    out["prefix_cache_hit_rate"] = cached / prompt if prompt else 0.0
    return out


def run_fidelity(run, raw: Mapping[str, str], coefs: Mapping[str, float], samples: Sequence[Mapping] = (),
                 saturated_at: float = SATURATED_CONCURRENCY) -> dict:
    """One run replayed and compared: label, file, regime, concurrency, q, metrics (each
    with its band over samples when given), or error when the replay refuses the run."""
    concurrency = mean_concurrency(run.arrival_s, run.e2e_s)
    head = {"run": run.label, "file": run.path, "sha256": run.sha256, "requests": len(run),
            "regime": regime_of(concurrency, saturated_at), "mean_concurrency": concurrency,
            "queueing_share": queueing_share(run.ttft_s),
            "settings": {k: v for k, v in run.settings.items() if isinstance(v, (int, float, str, bool))}}
    try:
        rr = RunReplay(run, dict(raw))
        point = predicted(rr, coefs)
        sets = [predicted(rr, dict(coefs, **s)) for s in samples]
    except ParamError as err:
        if err.param in raw:  # a key the user gave (or misspelt): bad input, not this run's
            raise
        return dict(head, error=str(err), metrics={}, refusal=err)
    measured = dict(measured_metrics(run))
    measured["output_throughput"] = throughput(run.arrival_s, run.arrival_s + run.e2e_s, run.output_tokens)
    measured.update(measured_counters(run.settings))
    metrics = {}
    for m in ALL_METRICS:
        if m not in measured:
            continue
        metrics[m] = row(m, measured[m], point[m])
        band = percentile_band([x[m] for x in sets]) if sets else None
        if band is not None:
            metrics[m].update(band=band, inside=bool(band["p5"] <= measured[m] <= band["p95"]))
    return dict(head, metrics=metrics)


def load_of(row: Mapping) -> tuple:
    """What makes two runs repeats of one load (LOAD_KEYS of the settings and the count)."""
    return tuple(row["settings"].get(k) for k in LOAD_KEYS) + (row["requests"],)


def repeat_groups(rows: Sequence[dict]) -> list[dict]:
    """Runs of one load (2 or more, compared ones only) with each metric's measured spread."""
    by_load: dict = {}
    for r in rows:
        if "error" not in r:
            by_load.setdefault(load_of(r), []).append(r)
    groups = []
    for load, members in by_load.items():
        if len(members) < 2:
            continue
        spread = {}
        for m in ALL_METRICS:
            values = [r["metrics"][m]["measured"] for r in members if m in r["metrics"]]
            if len(values) < 2:
                continue
            if m == "prefix_cache_hit_rate":
                spread[m] = (max(values) - min(values)) * 100.0
            elif min(values) > 0:
                spread[m] = (max(values) / min(values) - 1.0) * 100.0
        groups.append({"runs": [r["run"] for r in members], "load": dict(zip(LOAD_KEYS + ("requests",), load)),
                       "spread": spread})
    return groups


def judge(rows: Sequence[dict], groups: Sequence[dict]) -> None:
    """Each compared metric's tolerance and whether its error is within it (in place)."""
    spread_of = {name: g["spread"] for g in groups for name in g["runs"]}
    for r in rows:
        for m, entry in r["metrics"].items():
            spread = spread_of.get(r["run"], {}).get(m, 0.0)
            if m == "prefix_cache_hit_rate":
                tol = max(TOLERANCE_POINTS, spread)
            elif m == "preemptions":
                tol = TOLERANCE_PCT
            else:
                tol = max(TOLERANCE_PCT, spread)
            err = error_of(entry)
            entry["tolerance"] = tol
            entry["within"] = bool(abs(err) <= tol) if err is not None else entry["measured"] == entry["predicted"]


def summarize(runs: Sequence[dict]) -> dict:
    """{metric: {"all"|regime|"held out": {runs, unit, median_abs_error, worst_abs_error,
    worst_run (when any error is defined), within_tolerance, inside_band (with bands)}}}."""
    out: dict = {}
    for metric in ALL_METRICS:
        groups: dict = {}
        for name in ("all",) + REGIMES + (HELD_OUT,):
            mine = [r for r in runs if in_group(r, name) and metric in r["metrics"]]
            if not mine:
                continue
            g: dict = {"runs": len(mine), "unit": "points" if metric == "prefix_cache_hit_rate" else "%"}
            errs = [(abs(e), r["run"]) for r in mine if (e := error_of(r["metrics"][metric])) is not None]
            if errs:
                worst = max(errs)
                g.update(median_abs_error=float(np.median([e for e, _ in errs])), worst_abs_error=worst[0],
                         worst_run=worst[1])
            for key, field in (("within_tolerance", "within"), ("inside_band", "inside")):
                flags = [r["metrics"][metric][field] for r in mine if field in r["metrics"][metric]]
                if flags:
                    g[key] = sum(flags)
            groups[name] = g
        if groups:
            out[metric] = groups
    return out


def fidelity(paths: Sequence[str], raw: Mapping[str, str], progress=None, cancel=None) -> dict:
    """The report --json prints: runs (each run_fidelity's), steps (each step log's,
    core/calibrate/fidelity_steps.py), summary, skipped files, the coefficients priced
    with, the sets banded over, the regime rule. progress(done, total) after each run;
    cancel() -> bool polled before each (a panel's job): the runs done so far are reported,
    "cancelled" says so. Keys of its own: saturated_at= (the regime's concurrency),
    band_samples= (sets replayed per run with a profile that has them; 0: none)."""
    raw = dict(raw)
    saturated_at = _positive(raw.pop("saturated_at", None), "saturated_at", SATURATED_CONCURRENCY)
    b, _ = parse_band_keys({"band_samples": raw.pop("band_samples")} if "band_samples" in raw else {})
    paths, logs = split_paths(paths)
    files, skipped = result_files(paths)
    runs = load_runs(files)
    keys, coefs = replay_keys(raw)
    samples = (profile_samples(keys) or [])[:b]
    fitted = fitted_runs(keys)
    regimes = fitted_regimes(keys, saturated_at)
    rows: list[dict] = []
    cancelled = False
    for i, run in enumerate(runs):
        if cancel is not None and cancel():
            cancelled = True
            break
        rows.append(run_fidelity(run, keys, coefs, samples, saturated_at))
        if fitted is not None:  # a profile: was this run one it was fitted on (by content)?
            rows[-1]["held_out"] = run.sha256 not in fitted
        if regimes is not None:  # a load the fit never saw: its terms there are extrapolated
            rows[-1]["beyond_fit"] = rows[-1]["regime"] not in regimes
        if progress is not None:
            progress(i + 1, len(runs))
    refusals = [r.pop("refusal") for r in rows if "refusal" in r]
    if refusals and len(refusals) == len(rows):  # none compared: the keys, not the runs, are wrong
        raise refusals[0]
    repeats = repeat_groups(rows)
    judge(rows, repeats)
    steps = [] if cancelled else steps_fidelity(logs, keys)
    return {"runs": rows, "steps": steps, "summary": summarize([r for r in rows if "error" not in r]),
            "repeats": repeats, "skipped": skipped, "cancelled": cancelled,
            "refused": sum(1 for r in rows if "error" in r), "keys": dict(raw), "coefficients": dict(coefs),
            "band_samples": len(samples), "saturated_at": saturated_at, "fitted_regimes": regimes,
            "tolerance": f"a latency or the throughput within max({TOLERANCE_PCT:g}%, the spread of repeated runs "
                         f"of its load), preemptions within {TOLERANCE_PCT:g}%, the hit rate within "
                         f"{TOLERANCE_POINTS:g} points",
            "regime_rule": f"saturated when the mean concurrency reached (Little's law: sum of E2E / (last finish - "
                           f"first arrival)) is >= {saturated_at:g} requests in flight; else low load"}


def _positive(text, name: str, default: float) -> float:
    if text is None:
        return default
    try:
        value = float(str(text).strip())
    except ValueError:
        value = -1.0
    if not (0 < value < 1e9):
        raise ParamError(name, f"got {text!r}; valid: a number > 0 (requests in flight on average)")
    return value
