"""`lab calibrate --summaries RUNS.toml [--out PROFILE.toml]`: a calibration profile from
summary figures (core/calibrate/summaries.py), for runs that report only a benchmark's
summary.

RUNS.toml is tests/data/public_runs' layout: [[runs]] tables, each with id, model,
hardware, the deployment keys (tp, pp, ep, quantization, kv_cache_dtype,
gpu_memory_utilization, frontend, endpoint, max_num_seqs, token_budget), a workload table of
`lab simulate serving` dataset keys and a measured table of vllm bench serve's figures
(duration_s, output_throughput, mean_/median_ ttft, tpot, itl, e2el _ms). A profile is of
one model on one card (hardware=PROFILE.toml sets the card), so every fitted run must name
the same model and hardware; a run with split = "validation" is not fitted. No Qt here.
"""
from __future__ import annotations

import json
import sys
from typing import Any

from core.calibrate.card_keys import for_card
from core.calibrate.summaries import FIT_KEYS, SummaryCalibration, SummaryRun, calibrate_summaries, summary
from core.registry import ParamError
from core.serving.profile import Profile, card_table, save_profile

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

# The client's endpoint too: the chat endpoint's front end is dearer (core/serving/engine/frontend.py).
DEPLOYMENT_KEYS = ("tp", "pp", "ep", "quantization", "kv_cache_dtype", "gpu_memory_utilization", "frontend",
                   "endpoint", "max_num_seqs", "token_budget")


def key_text(v) -> str:
    """A TOML value as a `lab simulate serving` key's text (whole floats without .0)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def load_summary_runs(path: str) -> list[SummaryRun]:
    """The file's runs to fit (split = "validation" left out), as SummaryRuns."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as err:
        raise ParamError("--summaries", f"{path}: {err.strerror}; valid: a TOML file of [[runs]]") from None
    except tomllib.TOMLDecodeError as err:
        raise ParamError("--summaries", f"{path}: not valid TOML ({err}); valid: a TOML file of [[runs]]") from None
    runs = data.get("runs")
    if not isinstance(runs, list) or not all(isinstance(r, dict) for r in runs):
        raise ParamError("--summaries", f"{path}: field runs: missing or not an array of tables; valid: [[runs]] "
                         "tables (tests/data/public_runs' layout)")
    out = []
    for i, raw in enumerate(runs):
        where = f"{path}: runs[{i}]"
        for name in ("model", "hardware", "workload", "measured"):
            if name not in raw:
                raise ParamError("--summaries", f"{where}: no {name!r}; valid: id, model, hardware, workload, measured")
        for name in ("workload", "measured"):
            if not isinstance(raw[name], dict):
                raise ParamError("--summaries", f"{where}.{name}: not a table; valid: a table of "
                                 + ("lab simulate serving dataset keys" if name == "workload" else
                                    "vllm bench serve's figures (median_ttft_ms = 123.4, ...)"))
        for name, value in raw["measured"].items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ParamError("--summaries", f"{where}.measured.{name}: got {value!r}; valid: a number")
        if raw.get("split") == "validation":
            continue
        keys = {"model": str(raw["model"]), "hardware": str(raw["hardware"])}
        keys.update({k: key_text(raw[k]) for k in DEPLOYMENT_KEYS if k in raw})
        keys.update({k: key_text(v) for k, v in dict(raw["workload"]).items()})
        measured = {k: float(v) for k, v in dict(raw["measured"]).items() if not k.startswith("total_")}
        out.append(SummaryRun(str(raw.get("id", f"runs[{i}]")), keys, measured))
    if not out:
        raise ParamError("--summaries", f"{path}: no run to fit ([[runs]] without split = \"validation\")")
    return out


def to_profile(cal: SummaryCalibration, runs: list[SummaryRun], replay) -> Profile:
    """The calibration as a profile of its runs' one model and card (replay: one of them set up)."""
    card = replay.expanded.choice.card
    hw = runs[0].keys["hardware"]  # a NAME@card key fitted for the one card is that card's NAME
    fit = {"loss": "soft_l1 least squares on log(pred/measured) of each run's scored summary figures, each run "
                   "weighing alike (core/calibrate/summaries.py)", "fit_keys": list(cal.fit_keys),
           "converged": cal.converged, "message": cal.message, "bootstrap": len(cal.samples),
           "frozen": dict(cal.frozen), "bands": {k: list(b) for k, b in cal.bands.items()},
           "loss_before": cal.cost_before, "loss_after": cal.cost_after}
    rows = [{"label": t["run"], "error_before_pct": summary([t], "before").get("median_abs_error_pct"),
             "fit_error_pct": summary([t], "after").get("median_abs_error_pct")} for t in cal.per_run]
    return Profile(model=runs[0].keys["model"], hardware=runs[0].keys["hardware"],
                   card=card_table(card) if card is not None else {}, engine=None,
                   settings={"replay": dict(runs[0].keys)}, coefficients=for_card(cal.coefficients, hw),
                   samples=[for_card(s, hw) for s in cal.samples], runs=rows, fit=fit)


def cli_run(path: str, out: str | None, as_json: bool, fit_keys: str | None, bootstrap: int, seed: int = 0) -> int:
    """lab calibrate --summaries: fit, print, write the profile; 2 when the fit did not converge."""
    from core.calibrate.summaries import replays_of

    runs = load_summary_runs(path)
    for key in ("model", "hardware"):
        if len({r.keys[key] for r in runs}) > 1:
            raise ParamError("--summaries", f"{path}: runs of different {key}s in one calibration; valid: one model "
                             "on one card (a profile is of one)")
    if out is not None and not out.lower().endswith(".toml"):
        raise ParamError("--out", f"got {out!r}; valid: a path ending in .toml")
    keys = None if fit_keys is None else tuple(k.strip() for k in fit_keys.split(",") if k.strip())
    cal = calibrate_summaries(runs, fit_keys=keys, bootstrap=bootstrap, seed=seed)
    wrote = None
    if cal.converged and out:
        replays, _ = replays_of(runs[:1])
        save_profile(to_profile(cal, runs, replays[0]), out)
        wrote = out
    result: dict[str, Any] = {"converged": cal.converged, "message": cal.message, "fit_keys": list(cal.fit_keys),
              "tried": list(keys or FIT_KEYS), "frozen": cal.frozen, "defaults": cal.defaults,
              "coefficients": cal.coefficients, "bands": cal.bands, "refused": cal.refused,
              "before": summary(cal.per_run, "before"), "after": summary(cal.per_run, "after"),
              "per_run": cal.per_run, "profile": wrote}
    if as_json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print(f"lab calibrate --summaries: {len(cal.per_run)} runs; {cal.message}")
        for k in cal.fit_keys:
            print(f"  {k:<24}{cal.defaults[k]:>12.4g} -> {cal.coefficients[k]:.4g}")
        for k, why in cal.frozen.items():
            print(f"  {k:<24}kept: {why}")
        for name in ("before", "after"):
            s = result[name]
            print(f"  {name}: median |error| {s.get('median_abs_error_pct')}%, worst {s.get('worst_error_pct')}% "
                  f"({s.get('worst')})")
        if wrote:
            print(f"  profile: {wrote}")
    if not cal.converged:
        print(f"lab calibrate: the fit did not converge ({cal.message}); no profile written", file=sys.stderr)
        return 2
    return 0
