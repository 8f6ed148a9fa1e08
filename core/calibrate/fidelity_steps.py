"""Step logs in the fidelity report: a vLLM server's `--enable-logging-iteration-details`
log (core/observe/steps.py) beside the results, each logged engine step's measured time
against the step-time model's for what the log says the step did (core/calibrate/step_log.py),
per kind of step (prefill, decode, mixed) and over all of them.

The issue's bar: per-step times within STEP_TOLERANCE, read here as the median of each step's
|predicted − measured| / measured (a single slow step on a busy host does not decide it;
the median over hundreds of steps does). A log is found as a *.log file given among the
results, or under a results folder when it has Iteration(...) lines. No Qt here.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path

from core.calibrate.step_log import StepLog
from core.observe.steps import lab_cost
from core.registry import ParamError

STEP_TOLERANCE = 0.15
MARK = b"Iteration("
HEAD_BYTES = 1 << 20  # a log's first MiB is read to tell a step log from another one
COST_FIELD = {"coef_step_s": "overhead_s"}  # a coefficient's name in BasisCost where it differs


def split_paths(paths: Sequence[str]) -> tuple[list[str], list[str]]:
    """(result paths, step logs): a given *.log is a log; a folder's *.log files with
    Iteration(...) lines are logs (the folder itself stays a result path)."""
    results, logs = [], []
    for path in paths:
        p = Path(path)
        if p.is_dir():
            logs += sorted(str(f) for f in p.rglob("*.log") if f.is_file() and _has_steps(f))
            results.append(path)
        elif p.suffix == ".log":
            logs.append(path)
        else:
            results.append(path)
    return results, logs


def _has_steps(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return MARK in f.read(HEAD_BYTES)
    except OSError:
        return False


def steps_fidelity(logs: Sequence[str], keys: Mapping[str, str]) -> list[dict]:
    """Per log: its steps, compare_steps' table per kind (medians, median error, median
    |step error|) and whether the median |step error| over all steps is within
    STEP_TOLERANCE. keys: the replay's (model, hardware or a profile, coefficients)."""
    if not logs:
        return []
    try:
        cost = lab_cost(dict(keys))
    except ParamError as err:
        raise ParamError(err.param, f"the step logs' model: {err.message}") from None
    cost = with_log_only(cost, keys)
    out = []
    for path in logs:
        log = StepLog(path)
        table = log.compare(cost)
        whole = table.get("all", {})
        out.append({"log": path, "steps": len(log), "kinds": table,
                    "within": bool(whole.get("median_abs_step_error", float("inf")) <= STEP_TOLERANCE)})
    return out


def with_log_only(cost, keys: Mapping[str, str]):
    """cost as the logs' fit priced a step log, when keys name a profile: with its
    step-log-only coefficients (lab calibrate's fit.step_logs_only: fitted to the server's
    logs, not replayed, e.g. the first-size cost) and less its cadence (fit.step_logs_cadence:
    what the logs' clock adds to each step beyond the elapsed time a log times). An explicit
    key wins."""
    from core.serving.profile import is_profile, read_cached

    path = keys.get("profile") or (keys.get("hardware") if is_profile(keys.get("hardware")) else None)
    if not path:
        return cost
    fit = read_cached(path).fit or {}
    changes = {k: float(v) for k, v in (fit.get("step_logs_only") or {}).items() if k not in keys and hasattr(cost, k)}
    for key, v in (fit.get("step_logs_cadence") or {}).items():
        field = COST_FIELD.get(key, key)
        if key not in keys and hasattr(cost, field):
            changes[field] = max(float(getattr(cost, field)) - float(v), 0.0)
    return dataclasses.replace(cost, **changes) if changes else cost
