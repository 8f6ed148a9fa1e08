"""lab fidelity on runs recorded from the real CPU vLLM server (tests/data/vllm_cpu/, see
its RECORDED.txt): only what is stable run to run is asserted (the shared machine moved
the same load's medians 1.5-2.5x apart), not the latencies' errors."""
from __future__ import annotations

from pathlib import Path

import pytest

from core.calibrate import fidelity as fd
from core.serving.headless import serving_report

DATA = Path(__file__).resolve().parents[1] / "data" / "vllm_cpu"
CARD = str(Path(__file__).resolve().parents[2] / "core" / "data" / "hardware" / "cpu-2core.toml")
RAW = {"model": "tiny-llama-cpu", "hardware": CARD}


@pytest.fixture(scope="module")
def report():
    return fd.fidelity([str(DATA)], RAW)


def test_every_recorded_run_is_read_and_the_regimes_follow_the_load(report):
    rows = {r["run"]: r for r in report["runs"]}
    # vllm_bench: vLLM's own client (vllm bench serve) at 4/s, read like lab observe's runs.
    assert set(rows) == {"low", "medium", "medium_repeat", "saturated", "prefix", "small_kv", "vllm_bench"}
    assert report["skipped"] == []
    # 30 requests sent at once: all in flight together; 2/s of ~0.1-0.3 s requests: under one.
    assert rows["saturated"]["regime"] == "saturated" and rows["saturated"]["mean_concurrency"] > 10
    assert rows["low"]["regime"] == "low load" and rows["prefix"]["regime"] == "low load"
    assert rows["vllm_bench"]["regime"] == "low load" and rows["vllm_bench"]["mean_concurrency"] < 1
    (repeats,) = report["repeats"]  # medium and medium_repeat: 8/s, 30 requests, other seeds
    assert repeats["runs"] == ["medium", "medium_repeat"]
    for name in ("low", "medium", "saturated"):
        assert rows[name]["metrics"]["preemptions"]["measured"] == 0.0  # a pool large enough


def test_the_prefix_cache_hit_rate_is_predicted_within_5_points(report):
    hit = next(r for r in report["runs"] if r["run"] == "prefix")["metrics"]["prefix_cache_hit_rate"]
    # 384 shared of 448 prompt tokens; the server reported its own hits and queries.
    assert hit["measured"] > 0.7
    assert abs(hit["error_points"]) <= 5.0 and hit["within"]


def test_a_trace_on_the_small_pool_is_replayed_not_refused_for_the_books_windows():
    # The small-pool server: 32 blocks of 32 tokens. The book's windows' 8,448-token request
    # does not fit it; the trace's 160-token ones do, and they preempt as the server's did.
    trace = str(DATA / "small_kv.json")
    base, _ = serving_report(dict(RAW, trace=trace))
    per_token = base["deployment"]["kv_bytes_per_token_per_card"]
    report, _ = serving_report(dict(RAW, trace=trace, block_size="32", max_num_seqs="16",
                                    kv_pool_bytes=repr(32 * 32 * per_token)))
    assert report["requests"] == 16 and report["preemptions"] > 0


def test_the_step_log_beside_the_results_is_compared_step_by_step(report):
    (log,) = report["steps"]
    assert Path(log["log"]).name == "medium_steps.log"
    lines = [x for x in (DATA / "medium_steps.log").read_text().splitlines() if "Iteration(" in x]
    assert log["steps"] == len(lines)
    assert set(log["kinds"]) >= {"all", "decode"} and isinstance(log["within"], bool)
    assert log["within"] == (log["kinds"]["all"]["median_abs_step_error"] <= 0.15)
    # One more millisecond of fixed time per step moves every predicted step, so each
    # kind's predicted median, by exactly 1 ms; the measured medians stay.
    moved = fd.fidelity([str(DATA / "low.json"), str(DATA / "medium_steps.log")], dict(RAW, coef_step_s="0.0019"))
    (after,) = moved["steps"]
    for kind, before in log["kinds"].items():
        assert after["kinds"][kind]["measured_median_ms"] == before["measured_median_ms"]
        assert after["kinds"][kind]["predicted_median_ms"] == pytest.approx(before["predicted_median_ms"] + 1.0,
                                                                            abs=1e-9)
