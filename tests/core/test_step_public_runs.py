"""The public validation set (tests/data/public_runs): every run is read, checked and
expressible as `lab simulate serving` keys, with its figures as the sources print them."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _module(name: str):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


pr = _module("fidelity_public_runs")


def test_the_set_has_three_sources_both_halves_and_the_cards():
    runs = pr.load_runs()
    assert 20 <= len(runs) <= 45
    assert {r.source for r in runs} == {"gpustack", "trtllm-perf-overview", "musgrave-a100"}
    assert {r.hardware for r in runs} >= {"a100-80gb", "a100-40gb", "h100-sxm", "h200"}
    by_split = {s: [r for r in runs if r.split == s] for s in pr.SPLITS}
    assert all(len(v) >= 10 for v in by_split.values())
    assert {r.regime for r in runs} == {"low", "saturated"}
    assert any(r.deployment.get("tp", 1) > 1 for r in runs)
    assert all(r.citation for r in runs)


def test_figures_are_the_sources_own():
    runs = {r.id: r for r in pr.load_runs()}
    # qwen3-14b/a100.md, "# random 128 input": the 1,000-request burst of short prompts.
    burst = runs["gpustack/qwen3-14b/a100/random-128"]
    assert burst.measured["duration_s"] == 26.79 and burst.measured["mean_ttft_ms"] == 19451.46
    assert burst.workload == {"dataset": "random", "random_input_len": 128, "random_output_len": 4,
                              "num_prompts": 1000, "request_rate": "inf", "seed": 42}
    # The throughput identity of vllm bench's printout holds for every gpustack run: output tok/s =
    # generated tokens / duration, both printed to 2 decimals (half a unit of the last place each).
    for r in runs.values():
        m = r.measured
        if "total_output_tokens" in m and "duration_s" in m:
            tokens, thr = m["total_output_tokens"], m["output_throughput"]
            assert abs(tokens / thr - m["duration_s"]) <= 0.005 + tokens * 0.005 / thr ** 2
    trt = runs["trtllm/llama-3.3-70b-fp8/h100-sxm-tp2/5000x500"]
    assert trt.measured == {"output_throughput": 898} and trt.deployment["tp"] == 2
    assert trt.workload["num_prompts"] == 1500 and trt.deployment["frontend"] == "off"


def test_lab_keys_of_a_run():
    run = {r.id: r for r in pr.load_runs()}["gpustack/qwen3-8b/h100/sharegpt-c4"]
    assert pr.lab_keys(run, {"coef_seq_s": "20us"}) == {
        "model": "qwen3-8b", "hardware": "h100-sxm", "tp": "1", "quantization": "bf16",
        "endpoint": "/v1/chat/completions", "dataset": "sharegpt_like", "num_prompts": "100", "request_rate": "inf",
        "max_concurrency": "4", "seed": "0", "coef_seq_s": "20us"}


def test_every_run_is_expressible():
    """Each run's keys pass `lab simulate serving`'s own checks (the deployment fits its card)."""
    from core.serving import simulate_keys as keys

    for run in pr.load_runs():
        keys.expand_checked(pr.lab_keys(run), lambda: "unknown key")


def test_a_bad_file_is_refused_naming_the_run(tmp_path):
    bad = tmp_path / "x.toml"
    bad.write_text('[source]\nid = "x"\nurl = "u"\n[[runs]]\nid = "r1"\ncitation = "c"\nmodel = "m"\n'
                   'hardware = "h"\nsplit = "train"\nregime = "low"\nworkload = {}\nmeasured = {mean_ttft_ms = 1}\n')
    with pytest.raises(ValueError, match="r1: split 'train'"):
        pr.load_runs(tmp_path)
    bad.write_text(bad.read_text().replace('"train"', '"fit"').replace("mean_ttft_ms = 1", "p42_ttft_ms = 1"))
    with pytest.raises(ValueError, match="measured keys"):
        pr.load_runs(tmp_path)


def test_the_fidelity_summary_by_hand():
    fp = _module("fidelity_public")
    rows = [{"run": f"r{i}", "metric": "mean_ttft_ms", "scored": True, "error_pct": e}
            for i, e in enumerate((-30.0, 10.0, 20.0))]
    rows.append({"run": "r9", "metric": "median_itl_ms", "scored": False, "error_pct": 500.0})
    rows.append({"run": "r8", "metric": "mean_ttft_ms", "scored": True, "error_pct": None})
    s = fp.summary(rows)
    assert s["median_abs_error_pct"] == 20.0 and s["median_signed_error_pct"] == 10.0
    assert s["worst_error_pct"] == -30.0 and s["worst"] == "r0 mean_ttft_ms"
    assert (s["metrics"], s["runs"], s["refused_runs"]) == (3, 3, 1)
    assert [fp.family(m) for m in ("median_tpot_ms", "mean_e2el_ms", "output_throughput")] == ["tpot", "e2el",
                                                                                            "throughput"]


def test_a_replayed_run_gives_its_error_against_the_source():
    fp = _module("fidelity_public")
    run = {r.id: r for r in pr.load_runs()}["musgrave/llama-3.1-8b/a100-40gb/c1"]
    (row,) = fp.errors([run])
    assert row["measured"] == 13.33 and row["scored"] and row["card"] == "a100-40gb"
    assert row["error_pct"] == pytest.approx(100.0 * (row["predicted"] - 13.33) / 13.33)
    # one request at a time, 1,024-token prompts: TPOT is the decode step of one sequence, a few ms
    # above Llama-3.1-8B's 16 GB of weights over the A100 40GB's 1,555 GB/s at 0.85
    assert 16.06e9 / (1555e9 * 0.85) * 1e3 < row["predicted"] < 16.06e9 / (1555e9 * 0.85) * 1e3 + 2.0


def test_the_split_follows_each_files_stated_rule():
    """Written before any replay (each file's header): GPUStack's Qwen3-14B runs fit, the rest of
    it validates; TensorRT-LLM's H100 columns fit, its H200 columns validate; the A100 40GB post
    validates. Added later, to the fit half only: GPUStack's Qwen3-8B runs at 1, 2 and 8 in flight."""
    def gpustack(r):
        return r.model == "qwen3-14b" or r.workload.get("max_concurrency") in (1, 2, 8)

    rule = {"gpustack": gpustack, "trtllm-perf-overview": lambda r: r.hardware == "h100-sxm",
            "musgrave-a100": lambda r: False}
    for r in pr.load_runs():
        assert r.split == ("fit" if rule[r.source](r) else "validation"), r.id


def test_front_end_keys_go_only_to_runs_with_a_front_end():
    fp = _module("fidelity_public")
    runs = {r.id: r for r in pr.load_runs()}
    coefs = {"frontend_rounds": "1", "coef_seq_s": "20us"}
    trt = runs["trtllm/llama-3.1-8b-fp8/h200-tp1/2048x128"]  # trtllm-bench: frontend=off
    assert fp.for_run(trt, coefs) == {"coef_seq_s": "20us"}
    assert fp.for_run(runs["gpustack/qwen3-8b/h100/sharegpt-c4"], coefs) == coefs
    assert "refused" not in fp.predict(trt, coefs)


def test_outputs_are_replayed_at_the_length_the_requests_generated():
    """GPUStack's client had no --ignore-eos: its 32K runs generated 7,681 of 100 × 100 tokens
    (Qwen3-32B, H100), so the replay's requests make 77 each; a run at its stated total keeps it."""
    runs = {r.id: r for r in pr.load_runs()}
    short = runs["gpustack/qwen3-32b/h100/random-32K"]
    assert pr.generated_output_len(short) == 77  # round(7681 / 100)
    assert pr.lab_keys(short)["random_output_len"] == "77"
    full = runs["gpustack/qwen3-14b/h100/random-2K"]  # 50,000 = 500 × 100
    assert pr.generated_output_len(full) is None and pr.lab_keys(full)["random_output_len"] == "100"
    assert pr.generated_output_len(runs["gpustack/qwen3-14b/a100/random-4K"]) is None  # 99,783 / 500 rounds to 200
