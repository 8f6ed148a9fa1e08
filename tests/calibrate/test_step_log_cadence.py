"""The step log's cadence (core/calibrate/step_log.py: cadence): what the API server's clock
between two steps of decodes run back to back adds to the engine's elapsed time, fitted per
step and per sequence; none from a clock that cannot tell; and lab calibrate adding it to
the logs' fit before the runs' stage (core/calibrate/fit.py)."""
from __future__ import annotations

import re

import numpy as np
import pytest

from core.calibrate.step_log import StepLog, cadence
from tests.calibrate.test_step_log_one_off import BASE, LINE, POOL, TRUTH, _replay, landed, run_path, timed_log

__all__ = ["landed", "run_path"]  # fixtures used here by name

# The cadence a log is written with: 0.8 ms a step, 40 µs a sequence; a step with a prompt
# 1.5 ms more (the API server's work on it, which the cadence leaves to the front end's terms).
A_MS, B_MS, C_MS = 0.8, 0.04, 1.5


def write(path, rng, n=200, clock_digits=7, scale=1.0) -> str:
    """Steps of 1-30 decodes (a third with a prompt beside them), back to back: each logged
    (elapsed + A + B·sequences + C·prompts)·scale ms after the one before."""
    lines, clock = [POOL], 3600.0
    for i in range(n):
        gr = int(rng.integers(1, 31))
        cr = int(rng.random() < 1 / 3)
        elapsed = float(rng.uniform(2.0, 8.0))
        clock += (elapsed + A_MS + B_MS * (gr + cr) + C_MS * cr) * scale / 1e3
        h, rest = divmod(clock, 3600)
        m, s = divmod(rest, 60)
        stamp = f"{int(h):02d}:{int(m):02d}:{s:0{3 + clock_digits}.{clock_digits}f}"
        lines.append(LINE.replace("19:35:{s:06.3f}", stamp).replace("{t:.2f}", f"{elapsed:.6f}")
                     .format(i=i, cr=cr, ct=100 * cr, gr=gr))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_the_cadence_of_back_to_back_steps_is_recovered(tmp_path):
    got = cadence([StepLog(write(tmp_path / "s.log", np.random.default_rng(0)))])
    assert got == pytest.approx({"coef_step_s": A_MS * 1e-3, "coef_seq_s": B_MS * 1e-3}, rel=1e-4)


def test_a_clock_of_milliseconds_gives_it_within_its_resolution(tmp_path):
    """vLLM's clock as scripts/vllm_cpu/logging.json writes it: each stamp to the ms."""
    got = cadence([StepLog(write(tmp_path / "s.log", np.random.default_rng(1), n=600, clock_digits=3))])
    assert got["coef_step_s"] == pytest.approx(A_MS * 1e-3, abs=0.3e-3)
    assert got["coef_seq_s"] == pytest.approx(B_MS * 1e-3, abs=0.015e-3)


def test_a_clock_that_cannot_time_the_steps_gives_none(tmp_path):
    path = write(tmp_path / "s.log", np.random.default_rng(2))
    whole = tmp_path / "whole.log"  # vLLM's own format: whole seconds
    whole.write_text(re.sub(r"(\d\d:\d\d:\d\d)\.\d+", r"\1", open(path).read()))
    assert cadence([StepLog(str(whole))]) is None
    slow = write(tmp_path / "slow.log", np.random.default_rng(2), scale=0.5)  # periods half the steps
    assert cadence([StepLog(slow)]) is None
    assert cadence([StepLog(slow), StepLog(path)]) == pytest.approx(cadence([StepLog(path)]))  # that log alone


def test_calibrate_adds_the_cadence_to_the_logs_fit_before_the_runs(tmp_path, run_path, landed):
    """timed_log's steps are 1 ms apart back to back: the cadence is 1 ms a step and none a
    sequence; coef_seq_s is the logs' fit plus it, the runs then set coef_step_s (from the
    logs' fit plus it), and the step tables' "after" is the profile's steps less the cadence."""
    from core.calibrate.fit import less_cadence

    replay = _replay(run_path)
    log = timed_log(tmp_path / "s.log", replay.cost(dict(TRUTH, coef_wake_s=3e-3)), np.random.default_rng(7))
    cal = landed.calibrate([run_path], BASE, bootstrap=2, steps=[log])
    assert cal.converged, cal.message
    engine = cal.steps[0]["engine_coefficients"]
    assert cal.cadence["coef_step_s"] == pytest.approx(1e-3, rel=1e-3) and cal.cadence["coef_seq_s"] < 1e-9
    assert cal.coefficients["coef_seq_s"] == pytest.approx(engine["coef_seq_s"] + cal.cadence["coef_seq_s"], rel=1e-9)
    assert "coef_step_s" in cal.fit_keys and cal.coefficients["coef_step_s"] != engine["coef_step_s"]
    assert cal.profile.fit["step_logs_cadence"] == cal.cadence
    timed = less_cadence(cal.coefficients, cal.cadence)
    assert timed["coef_step_s"] == pytest.approx(max(cal.coefficients["coef_step_s"] - 1e-3, 0.0), rel=1e-3)
    assert cal.steps[0]["after"] == StepLog(log).compare(replay.cost(timed))
    # each bootstrap draw: the logs' refit plus the cadence, then the runs'
    assert len(cal.samples) == 2 and all(s["coef_seq_s"] >= cal.cadence["coef_seq_s"] for s in cal.samples)


def test_less_cadence_takes_it_off_and_never_below_zero():
    from core.calibrate.fit import less_cadence

    coefs = {"coef_step_s": 2e-3, "coef_seq_s": 1e-5, "coef_request_s": 1e-4}
    assert less_cadence(coefs, {"coef_step_s": 5e-4, "coef_seq_s": 4e-5}) == \
        {"coef_step_s": pytest.approx(1.5e-3), "coef_seq_s": 0.0, "coef_request_s": 1e-4}
    assert less_cadence(coefs, None) == coefs


def test_lab_calibrate_prints_and_writes_the_cadence(tmp_path, run_path, landed, capsys):
    import json

    from lab.cli import main

    log = timed_log(tmp_path / "s.log", _replay(run_path).cost(TRUTH), np.random.default_rng(8))
    args = ["calibrate", run_path, "model=qwen3-8b", "hardware=h100-sxm", "--bootstrap", "0", "--steps", log]
    assert main(args + ["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["step_logs_cadence"]["coef_step_s"] == pytest.approx(1e-3, rel=1e-3)
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "the logs' clock between steps of decodes back to back" in text and "coef_step_s +1 ms" in text
