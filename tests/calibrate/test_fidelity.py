"""The fidelity report (core/calibrate/fidelity.py, lab fidelity): a replay written as a
vllm bench result and judged against itself gives 0% error; one coefficient moved by a
known amount gives the error by hand; the summary's median and worst, the regimes and
the server's counters on constructed cases."""
from __future__ import annotations

import json

import numpy as np
import pytest

from core.calibrate import fidelity as fd
from core.calibrate.replayer import RunReplay
from core.calibrate.runs import load_run
from core.registry import ParamError
from core.serving.profile import Profile, save_profile
from lab.cli import main
from lab.cli.fidelity import report_text

RAW = {"model": "qwen3-8b", "hardware": "h100-sxm"}
DELTA_S = 1e-3  # added to every engine step's fixed time (coef_step_s: 0.9 ms by default)
OUT = 32  # output tokens of each low-load request


def write_run(path, n, rate, prompt, out, raw=RAW, extra=None):
    """n equal requests (prompt, out tokens) at `rate`/s ("inf": all at once), written as a
    vllm bench result whose latencies are the lab's own replay of it with raw's keys."""
    obj = {"backend": "vllm", "model_id": "qwen3-8b", "num_prompts": n, "request_rate": rate,
           "max_concurrency": None, "input_lens": [prompt] * n, "output_lens": [out] * n,
           "ttfts": [0.1] * n, "itls": [[0.01] * (out - 1)] * n, "errors": [""] * n}
    obj.update(extra or {})
    path.write_text(json.dumps(obj))
    p = RunReplay(load_run(str(path)), dict(raw)).predict({})
    obj["ttfts"] = p.ttft_s.tolist()
    obj["itls"] = [[float(t)] * (out - 1) for t in p.tpot_s]
    path.write_text(json.dumps(obj))
    return p


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs")
    # 20 requests 5 s apart: each runs alone (one prefill step, then its decodes).
    low = write_run(folder / "low.json", 20, 0.2, 128, OUT)
    # 200 requests at once into 8 seats: a queue, so saturated.
    sat = write_run(folder / "sat.json", 200, "inf", 512, 64, raw=dict(RAW, max_num_seqs="8"))
    (folder / "notes.json").write_text(json.dumps({"not": "a result"}))
    return folder, low, sat


def test_a_replay_against_itself_has_no_error(runs):
    folder, _, _ = runs
    report = fd.fidelity([str(folder / "low.json")], RAW)
    (row,) = report["runs"]
    assert row["regime"] == "low load" and row["queueing_share"] == pytest.approx(0.0, abs=1e-9)
    assert row["mean_concurrency"] < 0.1  # 20 requests of ~0.2 s, 5 s apart
    for m in ("median_ttft_ms", "p90_ttft_ms", "median_tpot_ms", "p90_tpot_ms", "median_e2el_ms", "p90_e2el_ms",
              "output_throughput"):
        assert row["metrics"][m]["error_pct"] == pytest.approx(0.0, abs=1e-9), m
    # The result keeps a request's gaps as its mean (vllm bench's per-token times are not
    # in a replay); alone, a request's steps lengthen only with its KV, so ITL is near.
    assert abs(row["metrics"]["median_itl_ms"]["error_pct"]) < 0.05


def test_a_moved_coefficient_gives_the_error_by_hand(runs):
    folder, low, _ = runs
    report = fd.fidelity([str(folder / "low.json")], dict(RAW, coef_step_s=repr(0.9e-3 + DELTA_S)))
    m = report["runs"][0]["metrics"]
    ttft, tpot, e2e = (float(np.median(x)) for x in (low.ttft_s, low.tpot_s, low.e2e_s))
    assert np.allclose(low.ttft_s, ttft, rtol=1e-12, atol=0)  # equal requests alone: equal latencies (to rounding)
    # Alone, a request's TTFT is one prefill step (+Δ), each decode step +Δ, E2E = OUT steps.
    assert m["median_ttft_ms"]["error_pct"] == pytest.approx(DELTA_S / ttft * 100, rel=1e-9)
    assert m["median_tpot_ms"]["error_pct"] == pytest.approx(DELTA_S / tpot * 100, rel=1e-9)
    assert m["median_e2el_ms"]["error_pct"] == pytest.approx(OUT * DELTA_S / e2e * 100, rel=1e-9)
    assert m["median_ttft_ms"]["predicted"] == pytest.approx((ttft + DELTA_S) * 1e3, rel=1e-12)


def test_a_folder_gives_its_results_and_skips_other_json(runs):
    folder, _, _ = runs
    report = fd.fidelity([str(folder)], dict(RAW, max_num_seqs="8"))
    assert [r["run"] for r in report["runs"]] == ["low", "sat"]
    assert report["skipped"] == [str(folder / "notes.json")]
    regimes = {r["run"]: r["regime"] for r in report["runs"]}
    assert regimes == {"low": "low load", "sat": "saturated"}
    sat = report["runs"][1]
    assert sat["mean_concurrency"] > 8  # 200 requests through 8 seats: the queue counts too
    # Most of a TTFT is the queue: the engine's, and the front end's (its five rounds: four
    # of the 200 requests' slices, then one, before the first reaches the engine, so the
    # p10 TTFT is ~0.8 s later than through one FIFO queue, where the share was above 0.8).
    _, _, sat_run = runs
    assert sat_run.ttft_s.min() >= (4 * 200 + 1) * (4e-3 + 512 * 2e-6) / 5
    assert sat["queueing_share"] > 0.7
    assert sat["metrics"]["median_ttft_ms"]["error_pct"] == pytest.approx(0.0, abs=1e-9)
    assert set(report["summary"]["median_ttft_ms"]) == {"all", "low load", "saturated"}


def test_regime_by_the_concurrency_reached_and_the_queueing_share_by_hand():
    # Little's law: Σ E2E / (last finish − first arrival).
    assert fd.mean_concurrency([0.0, 1.0, 2.0], [1.0, 1.0, 1.0]) == 1.0  # 3 s of work over 3 s
    assert fd.mean_concurrency([0.0, 0.0, 0.0], [1.0, 2.0, 3.0]) == 2.0  # 6 s of work over 3 s
    assert fd.regime_of(3.99) == "low load" and fd.regime_of(4.0) == "saturated"
    assert fd.regime_of(2.0, saturated_at=2.0) == "saturated"
    ttft = np.arange(1.0, 11.0)  # p10 = 1 + 0.9 = 1.9, median 5.5 (linear interpolation)
    assert fd.queueing_share(ttft) == pytest.approx(1 - 1.9 / 5.5)
    assert fd.queueing_share(np.zeros(3)) == 0.0


def test_summary_median_and_worst_per_metric_and_regime():
    def run(name, regime, err):
        return {"run": name, "regime": regime, "metrics": {"median_ttft_ms": {"error_pct": err},
                                                           "prefix_cache_hit_rate": {"error_points": -err / 10}}}

    s = fd.summarize([run("a", "low load", 10.0), run("b", "low load", -30.0), run("c", "saturated", 20.0)])
    assert s["median_ttft_ms"]["all"] == {"median_abs_error": 20.0, "worst_abs_error": 30.0, "worst_run": "b",
                                          "runs": 3, "unit": "%"}
    assert s["median_ttft_ms"]["low load"]["median_abs_error"] == 20.0  # (10 + 30) / 2
    assert s["median_ttft_ms"]["saturated"]["worst_run"] == "c"
    assert s["prefix_cache_hit_rate"]["all"]["unit"] == "points"
    assert s["prefix_cache_hit_rate"]["all"]["worst_abs_error"] == 3.0
    assert "median_tpot_ms" not in s


def test_the_servers_counters_are_compared_when_lab_observe_scraped_them(tmp_path):
    # As lab observe writes them: the /metrics counters' deltas over the run (core/observe/prom.py).
    block = {"lab_observe": {"metrics": {"delta": {"vllm:num_preemptions_total": 4, "vllm:prefix_cache_hits_total": 30,
                                                   "vllm:prefix_cache_queries_total": 100}}}}
    write_run(tmp_path / "r.json", 10, 0.5, 128, 16, extra=block)
    m = fd.fidelity([str(tmp_path / "r.json")], RAW)["runs"][0]["metrics"]
    # The replay preempts nothing and a vllm bench workload carries no prefixes to reuse.
    assert m["preemptions"] == {"measured": 4.0, "predicted": 0.0, "error_pct": -100.0, "tolerance": 30.0,
                                "within": False}
    assert m["prefix_cache_hit_rate"] == {"measured": 0.3, "predicted": 0.0, "error_points": pytest.approx(-30.0),
                                          "tolerance": 5.0, "within": False}


def test_a_shared_prefix_is_replayed_and_its_hit_rate_compared(tmp_path):
    # lab observe's prefix_tokens: 128 of each 256-token prompt the same text; the server
    # caches prefixes in 16-token blocks. Requests 20 s apart: nothing evicts the prefix.
    block = {"lab_observe": {"prefix_tokens": 128, "cache": {"num_gpu_blocks": 4000, "block_size": "16",
                                                             "enable_prefix_caching": "True"},
                             "metrics": {"delta": {"vllm:prefix_cache_hits_total": 30,
                                                   "vllm:prefix_cache_queries_total": 100}}}}
    write_run(tmp_path / "r.json", 20, 0.05, 256, 16, extra=block)
    m = fd.fidelity([str(tmp_path / "r.json")], RAW)["runs"][0]["metrics"]
    # Every request but the first reads the 8 shared blocks: 19 · 128 of 20 · 256 prompt tokens.
    hit = 19 * 128 / (20 * 256)
    assert m["prefix_cache_hit_rate"]["predicted"] == pytest.approx(hit, rel=1e-12)
    assert m["prefix_cache_hit_rate"]["error_points"] == pytest.approx((hit - 0.3) * 100, rel=1e-12)


def test_a_profile_prices_the_runs_with_its_coefficients(runs, tmp_path):
    folder, _, _ = runs
    prof = Profile(model="qwen3-8b", hardware="h100-sxm", card={}, coefficients={"coef_step_s": 0.9e-3 + DELTA_S})
    save_profile(prof, tmp_path / "p.toml")
    by_profile = fd.fidelity([str(folder / "low.json")], {"profile": str(tmp_path / "p.toml")})
    by_key = fd.fidelity([str(folder / "low.json")], dict(RAW, coef_step_s=repr(0.9e-3 + DELTA_S)))
    assert by_profile["runs"][0]["metrics"] == by_key["runs"][0]["metrics"]
    with pytest.raises(ParamError) as err:
        fd.fidelity([str(folder / "low.json")], {"profile": str(tmp_path / "p.toml"), "hardware": "h100-sxm"})
    assert err.value.param == "profile"


def test_no_results_is_refused_naming_the_field(tmp_path):
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(ParamError) as err:
        fd.fidelity([str(tmp_path)], RAW)
    assert err.value.param == "runs" and "valid:" in str(err.value)


def test_the_command_prints_json_text_and_a_plot(runs, tmp_path, capsys, qapp):
    folder, _, _ = runs
    png = tmp_path / "fidelity.png"
    assert main(["fidelity", str(folder), "model=qwen3-8b", "hardware=h100-sxm", "max_num_seqs=8", "--json",
                 "--plot", str(png)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [r["run"] for r in report["runs"]] == ["low", "sat"] and report["plot"] == str(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["fidelity", str(folder / "low.json"), "model=qwen3-8b", "hardware=h100-sxm",
                 "coef_step_s=0.0019"]) == 0
    text = capsys.readouterr().out
    assert "median_ttft_ms" in text and "low load" in text and "regime: saturated when" in text
    assert main(["fidelity", str(tmp_path / "nothing"), "model=qwen3-8b"]) == 2


def test_a_profile_with_coefficient_sets_bands_every_metric(runs, tmp_path):
    folder, low, _ = runs
    # The profile's own point is 1 ms above the run's generating 0.9 ms; its three sets
    # are −0.5, +1 and +2.5 ms off it. Alone, a request's TTFT moves by each set's shift.
    prof = Profile(model="qwen3-8b", hardware="h100-sxm", card={}, coefficients={"coef_step_s": 1.9e-3},
                   samples=[{"coef_step_s": c} for c in (0.4e-3, 1.9e-3, 3.4e-3)])
    save_profile(prof, tmp_path / "p.toml")
    report = fd.fidelity([str(folder / "low.json")], {"profile": str(tmp_path / "p.toml")})
    assert report["band_samples"] == 3
    m = report["runs"][0]["metrics"]
    ttft, e2e = float(np.median(low.ttft_s)), float(np.median(low.e2e_s))
    # Three values: p5 at h = 0.1 (−0.5 + 0.1 · 1.5 ms), p95 at h = 1.9 (+1 + 0.9 · 1.5 ms).
    assert m["median_ttft_ms"]["band"]["p5"] == pytest.approx((ttft - 0.35e-3) * 1e3, rel=1e-9)
    assert m["median_ttft_ms"]["band"]["p95"] == pytest.approx((ttft + 2.35e-3) * 1e3, rel=1e-9)
    assert m["median_e2el_ms"]["band"]["p5"] == pytest.approx((e2e - OUT * 0.35e-3) * 1e3, rel=1e-9)
    assert m["median_ttft_ms"]["inside"] and m["median_e2el_ms"]["inside"]
    assert report["summary"]["median_ttft_ms"]["all"]["inside_band"] == 1
    none = fd.fidelity([str(folder / "low.json")], {"profile": str(tmp_path / "p.toml"), "band_samples": "0"})
    assert none["band_samples"] == 0 and "band" not in none["runs"][0]["metrics"]["median_ttft_ms"]


def test_a_run_the_replay_refuses_is_a_row_with_why(runs, tmp_path):
    folder, _, _ = runs
    # A server of 4 blocks of 16 tokens cannot hold one 160-token request: the replay refuses the run.
    obj = json.loads((folder / "low.json").read_text())
    obj["lab_observe"] = {"metrics": {"cache_config": {"num_gpu_blocks": "4", "block_size": "16"}}}
    (tmp_path / "tiny_pool.json").write_text(json.dumps(obj))
    report = fd.fidelity([str(folder / "low.json"), str(tmp_path / "tiny_pool.json")], RAW)
    bad = report["runs"][1]
    assert bad["run"] == "tiny_pool" and bad["metrics"] == {} and "kv_pool_bytes" in bad["error"]
    assert report["refused"] == 1 and report["summary"]["median_ttft_ms"]["all"]["runs"] == 1
    assert "not compared: the replay refused it" in report_text(report)


def test_tolerance_is_the_spread_of_repeats_of_one_load_or_30_percent():
    def run(name, rate, ttft, err, hit, hit_err):
        return {"run": name, "requests": 30, "regime": "low load",
                "settings": {"request_rate": rate, "burstiness": 1.0},
                "metrics": {"median_ttft_ms": {"measured": ttft, "predicted": ttft * (1 + err / 100), "error_pct": err},
                            "prefix_cache_hit_rate": {"measured": hit, "predicted": hit + hit_err / 100,
                                                      "error_points": hit_err},
                            "preemptions": {"measured": 10.0, "predicted": 12.0, "error_pct": 20.0}}}

    rows = [run("a", 8.0, 100.0, 40.0, 0.5, 6.0), run("b", 8.0, 250.0, -35.0, 0.58, -7.0),
            run("c", 2.0, 50.0, 35.0, 0.5, 6.0)]
    groups = fd.repeat_groups(rows)
    (g,) = groups  # a and b: one load (8/s, 30 requests); c alone
    assert g["runs"] == ["a", "b"]
    assert g["spread"]["median_ttft_ms"] == pytest.approx(150.0)  # 250 / 100 − 1
    assert g["spread"]["prefix_cache_hit_rate"] == pytest.approx(8.0)  # 0.58 − 0.5, in points
    fd.judge(rows, groups)
    ttft = {r["run"]: (r["metrics"]["median_ttft_ms"]["tolerance"], r["metrics"]["median_ttft_ms"]["within"])
            for r in rows}
    assert ttft == {"a": (pytest.approx(150.0), True), "b": (pytest.approx(150.0), True), "c": (30.0, False)}
    hits = [(r["metrics"]["prefix_cache_hit_rate"]["tolerance"], r["metrics"]["prefix_cache_hit_rate"]["within"])
            for r in rows]
    assert hits == [(pytest.approx(8.0), True), (pytest.approx(8.0), True), (5.0, False)]
    assert all(r["metrics"]["preemptions"] == dict(r["metrics"]["preemptions"], tolerance=30.0, within=True)
               for r in rows)
    s = fd.summarize(rows)
    assert s["median_ttft_ms"]["all"]["within_tolerance"] == 2 and s["preemptions"]["all"]["within_tolerance"] == 3


def test_runs_the_profile_was_fitted_on_are_told_from_the_held_out_ones(runs, tmp_path):
    import hashlib

    folder, _, _ = runs
    sha = hashlib.sha256((folder / "low.json").read_bytes()).hexdigest()
    prof = Profile(model="qwen3-8b", hardware="h100-sxm", card={}, coefficients={"coef_step_s": 0.9e-3},
                   runs=[{"file": "low.json", "sha256": sha, "requests": 20}])
    save_profile(prof, tmp_path / "p.toml")
    report = fd.fidelity([str(folder)], {"profile": str(tmp_path / "p.toml"), "max_num_seqs": "8"})
    assert {r["run"]: r["held_out"] for r in report["runs"]} == {"low": False, "sat": True}
    held = report["summary"]["median_ttft_ms"]["held out"]
    assert held["runs"] == 1 and held["worst_run"] == "sat"
    assert "fitted on" in report_text(report) and "held out (1 runs)" in report_text(report)
    plain = fd.fidelity([str(folder / "low.json")], RAW)
    assert "held_out" not in plain["runs"][0] and "held out" not in plain["summary"]["median_ttft_ms"]


def test_a_bad_key_is_bad_input_not_a_refused_run(runs, capsys):
    folder, _, _ = runs
    with pytest.raises(ParamError) as err:
        fd.fidelity([str(folder)], dict(RAW, max_num_seq="8"))
    assert err.value.param == "max_num_seq" and "did you mean max_num_seqs=" in str(err.value)
    with pytest.raises(ParamError) as err:  # every run refused for one reason: said once, as bad input
        fd.fidelity([str(folder / "low.json")], dict(RAW, kv_pool_bytes="1MiB"))
    assert err.value.param == "kv_pool_bytes"
    assert main(["fidelity", str(folder), "model=qwen3-8b", "hardwar=h100-sxm"]) == 2
    assert "hardwar" in capsys.readouterr().err


def test_the_help_states_the_defaults_the_code_uses():
    from core.calibrate import bands
    from lab.cli import fidelity as cli

    text = " ".join(cli.DESCRIPTION.split())
    assert f">= {fd.SATURATED_CONCURRENCY:g} requests in flight" in text
    assert f"(default {bands.DEFAULT_SAMPLES})" in text


def test_progress_after_each_run_and_a_cancel_keeps_the_runs_done(runs):
    folder, _, _ = runs
    seen = []
    report = fd.fidelity([str(folder)], dict(RAW, max_num_seqs="8"), progress=lambda d, t: seen.append((d, t)),
                         cancel=lambda: len(seen) >= 1)
    assert seen == [(1, 2)] and report["cancelled"] is True
    assert [r["run"] for r in report["runs"]] == ["low"] and report["summary"]["median_ttft_ms"]["all"]["runs"] == 1
    whole = fd.fidelity([str(folder)], dict(RAW, max_num_seqs="8"), cancel=lambda: False)
    assert whole["cancelled"] is False and len(whole["runs"]) == 2


def test_a_run_of_a_regime_the_fit_never_saw_is_marked_beyond_it(runs, tmp_path):
    import hashlib

    from core.calibrate.fit import calibrate

    folder, _, _ = runs
    low = load_run(str(folder / "low.json"))
    # calibrate records each fitted run's mean concurrency (Little's law) in the profile.
    cal = calibrate([str(folder / "low.json")], RAW, bootstrap=0)
    assert cal.profile.runs[0]["mean_concurrency"] == fd.mean_concurrency(low.arrival_s, low.e2e_s) < 0.1
    sha = hashlib.sha256((folder / "low.json").read_bytes()).hexdigest()
    fitted = {"file": "low.json", "sha256": sha, "requests": 20}
    for runs_row, marks in (({**fitted, "mean_concurrency": 0.05}, {"low": False, "sat": True}),
                            (fitted, None)):  # a profile written before it recorded them: no marks
        prof = Profile(model="qwen3-8b", hardware="h100-sxm", card={}, coefficients={"coef_step_s": 0.9e-3},
                       runs=[runs_row])
        save_profile(prof, tmp_path / "p.toml")
        report = fd.fidelity([str(folder)], {"profile": str(tmp_path / "p.toml"), "max_num_seqs": "8"})
        if marks is None:
            assert report["fitted_regimes"] is None and all("beyond_fit" not in r for r in report["runs"])
            assert "beyond the fit" not in report_text(report)
        else:
            assert report["fitted_regimes"] == ["low load"]
            assert {r["run"]: r["beyond_fit"] for r in report["runs"]} == marks
            assert report_text(report).count("beyond the fit's loads") == 1
