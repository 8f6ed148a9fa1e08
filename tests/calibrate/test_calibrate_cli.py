"""`lab calibrate` on the command line: the table per run, the profile written and taken
back by `lab simulate serving hardware=P.toml`; exit 2 for bad input naming the field, and
for a fit that does not converge (which writes nothing)."""
from __future__ import annotations

import json

import pytest

import core.calibrate.fit as fit
from core.calibrate.profile import load_profile
from core.calibrate.synthetic import bench_result
from core.serving.headless import serving_report
from lab.cli import main

BASE = {"model": "qwen3-8b", "hardware": "h100-sxm"}
TRUTH = {"coef_step_s": "0.0015", "coef_seq_s": "3e-05", "coef_prefill_compute": "1.4", "coef_request_s": "0.0003",
         "coef_decode_kv": "1.3"}


@pytest.fixture(scope="module")
def run_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "run.json"
    _, (result, work) = serving_report(dict(BASE, **TRUTH, dataset="random", num_prompts="60",
                                            random_input_len="512", random_output_len="128", random_range_ratio="0.8",
                                            request_rate="inf", max_concurrency="8"))
    path.write_text(json.dumps(bench_result(result, work, model_id="qwen3-8b", max_concurrency=8)))
    return str(path)


def test_calibrate_writes_a_profile_that_simulate_takes(run_file, tmp_path, capsys):
    out = tmp_path / "p.toml"
    code = main(["calibrate", run_file, "model=qwen3-8b", "hardware=h100-sxm", "--bootstrap", "3", "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "run: 60 requests" in text and "median_ttft_ms" in text and f"wrote {out}" in text
    prof = load_profile(out)
    for key, value in TRUTH.items():
        assert prof.coefficients[key] == pytest.approx(float(value), rel=0.02), key
    assert len(prof.samples) == 3 and prof.runs[0]["requests"] == 60 and len(prof.runs[0]["sha256"]) == 64
    assert main(["simulate", "serving", f"trace={run_file}", f"hardware={out}", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["median_ttft_ms"] == pytest.approx(report["measured"]["median_ttft_ms"], rel=1e-6)


def test_json_output(run_file, capsys):
    assert main(["calibrate", run_file, "model=qwen3-8b", "hardware=h100-sxm", "--fit-keys", "coef_step_s",
                 "--bootstrap", "0", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["converged"] and report["fit_keys"] == ["coef_step_s"] and report["profile"] is None
    assert set(report["per_run"][0]["after"]) >= {"median_ttft_ms", "median_tpot_ms", "median_e2el_ms"}
    t = report["timings"]
    assert t["replay_s"]["min"] <= t["replay_s"]["median"] <= t["replay_s"]["max"]


@pytest.mark.parametrize("words, field", [
    (["model=qwen3-8b", "hardwre=h100-sxm"], "hardwre: did you mean hardware=?"),
    (["model=qwen3-8b"], "hardware:"),
    (["model=qwen3-8b", "hardware=h100-sxm", "--bootstrap", "x"], "--bootstrap"),
    (["model=qwen3-8b", "hardware=h100-sxm", "--out", "p.json"], "--out"),
    (["model=qwen3-8b", "hardware=h100-sxm", "trace=x.json"], "trace:"),
])
def test_bad_input_exits_2_naming_the_field(run_file, capsys, words, field):
    assert main(["calibrate", run_file] + words) == 2
    assert field in capsys.readouterr().err


def test_not_a_result_exits_2_naming_the_key(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"input_lens": [1], "output_lens": [2], "ttfts": [0.1]}))
    assert main(["calibrate", str(bad), "model=qwen3-8b", "hardware=h100-sxm"]) == 2
    assert "no 'itls'" in capsys.readouterr().err


def test_a_fit_that_does_not_converge_keeps_the_defaults_and_exits_2(run_file, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(fit, "MAX_NFEV", 1)  # one evaluation: least_squares stops at its budget
    out = tmp_path / "p.toml"
    code = main(["calibrate", run_file, "model=qwen3-8b", "hardware=h100-sxm", "--fit-keys", "coef_step_s",
                 "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 2 and "did not converge" in captured.err and "kept the defaults" in captured.out
    assert not out.exists()
