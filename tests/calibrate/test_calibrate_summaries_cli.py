"""`lab calibrate --summaries RUNS.toml` on the command line: runs reported only by their
summary figures -> a profile that `lab simulate serving hardware=P.toml` takes; bad input
exits 2 naming the key."""
from __future__ import annotations

import json

import pytest

from core.calibrate.profile import load_profile
from lab.cli import main
from tests.calibrate.test_summaries import SHAPES, _runs_toml, run_at

TRUTH = {"coef_prefill_compute": 1.25, "coef_decode_weights": 0.8}


def test_summaries_fit_recovers_and_writes_a_profile(tmp_path, capsys):
    """Figures simulated at TRUTH, the validation run left out of the fit: the profile's
    coefficients are TRUTH within 2%, and simulate with it reproduces a fitted run's figure."""
    runs = [run_at(s, TRUTH) for s in SHAPES] + [run_at("decode")]
    path = tmp_path / "runs.toml"
    path.write_text(_runs_toml(runs, split_last=True))
    out = tmp_path / "p.toml"
    code = main(["calibrate", "--summaries", str(path), "--fit-keys", ",".join(TRUTH), "--out", str(out), "--json"])
    printed = json.loads(capsys.readouterr().out)
    assert code == 0 and printed["converged"] and printed["profile"] == str(out)
    assert [r["run"] for r in printed["per_run"]] == list(SHAPES)  # the validation run is not fitted
    prof = load_profile(out)
    for k, v in TRUTH.items():
        assert prof.coefficients[k] == pytest.approx(v, rel=0.02), k
    keys = [f"{k}={v}" for k, v in runs[0].keys.items() if k != "hardware"]
    assert main(["simulate", "serving", *keys, f"hardware={out}", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["median_ttft_ms"] == pytest.approx(runs[0].measured["median_ttft_ms"], rel=0.02)


def test_summaries_text_report(tmp_path, capsys):
    path = tmp_path / "runs.toml"
    path.write_text(_runs_toml([run_at(s, TRUTH) for s in SHAPES]))
    assert main(["calibrate", "--summaries", str(path), "--fit-keys", "coef_prefill_compute"]) == 0
    text = capsys.readouterr().out
    assert f"lab calibrate --summaries: {len(SHAPES)} runs" in text and "coef_prefill_compute" in text
    assert "before: median |error|" in text and "after: median |error|" in text


@pytest.mark.parametrize("body, field", [
    (None, "No such file"),
    ("runs = 3\n", "field runs: missing or not an array of tables"),
    ('[[runs]]\nmodel = "qwen3-8b"\nhardware = "h100-sxm"\nworkload = {}\n', "runs[0]: no 'measured'"),
    ('[[runs]]\nmodel = "qwen3-8b"\nhardware = "h100-sxm"\nworkload = 1\nmeasured = {}\n', "runs[0].workload: not a table"),
    ('[[runs]]\nmodel = "qwen3-8b"\nhardware = "h100-sxm"\nworkload = {}\nmeasured = {median_ttft_ms = "x"}\n',
     "runs[0].measured.median_ttft_ms: got 'x'; valid: a number"),
    ("[[runs]\n", "not valid TOML"),
])
def test_bad_runs_file_exits_2_naming_the_key(tmp_path, capsys, body, field):
    path = tmp_path / "runs.toml"
    if body is not None:
        path.write_text(body)
    assert main(["calibrate", "--summaries", str(path)]) == 2
    err = capsys.readouterr().err
    assert "--summaries" in err and field in err, err


def test_summaries_alone(tmp_path, capsys):
    """A result file, a key or --steps beside --summaries is refused (the file holds the runs)."""
    path = tmp_path / "runs.toml"
    path.write_text(_runs_toml([run_at("decode")]))
    for extra in (["run.json"], ["model=qwen3-8b"], ["--steps", "server.log"], ["--max-num-seqs", "8"]):
        assert main(["calibrate", "--summaries", str(path), *extra]) == 2, extra
        assert "--summaries RUNS.toml alone" in capsys.readouterr().err
    assert main(["calibrate", "--summaries", str(path), "--bootstrap", "-1"]) == 2
    assert "--bootstrap" in capsys.readouterr().err


def test_summaries_in_help(capsys):
    assert main(["calibrate", "--help"]) == 0
    assert "--summaries RUNS.toml" in capsys.readouterr().out
