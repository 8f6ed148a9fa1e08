"""`lab simulate serving` with P/D keys through the one command-line parser: the report,
requests.csv's transfer columns, the text, refusals with exit 2 naming the field."""
from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from core.serving.disagg.report import build
from core.serving.disagg.run import prefill_workload
from core.serving.replicas import replay_replicas
from lab.cli import main

TRACES = Path(__file__).resolve().parents[2] / "data" / "traces"

SMALL = ["durations_s=20", "rates_per_s=2", "shares_long_input=0.5"]


def _json(capsys, argv):
    assert main(["simulate", "serving", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_1p1d_report(capsys):
    report = _json(capsys, ["prefill_replicas=1", "decode_replicas=1", "kv_link=rdma-400g", *SMALL])
    d = report["disaggregation"]
    assert d["pools"] == "1P1D" and d["kv_link"]["bandwidth_bytes_per_s"] == 50e9
    assert d["prefill"]["requests"] == d["decode"]["requests"] == report["requests"] == 40
    assert d["cards"] == 2 and report["cost_per_hour"] == pytest.approx(2 * 1.57)  # the book's card, twice
    # 20 s x 2/s, half 8,192-token and half 1,024-token prompts (the book's classes), 144 KiB a token
    assert d["transfer"]["bytes_total"] == 20 * (8192 + 1024) * 147_456
    assert set(d["waits"]) == {"prefill_queue_ms", "prefill_ms", "decode_queue_for_blocks_ms", "transfer_ms",
                               "decode_seat_after_landing_ms", "decode_ms"}
    assert report["median_ttft_ms"] > 0 and report["completed"] == 40


def test_2p4d_with_own_cards(capsys):
    report = _json(capsys, ["pools=2P4D", "model=qwen3-8b", "prefill_hardware=h100-sxm", "decode_hardware=h200",
                            "decode_kv_cache_dtype=fp8", "kv_link=rdma-200g", "decode_router=least_kv_demand", *SMALL])
    d = report["disaggregation"]
    assert d["prefill"]["deployment"]["card"] == "h100-sxm" and d["decode"]["deployment"]["card"] == "h200"
    assert d["decode"]["deployment"]["kv_cache_dtype"] == "fp8" and d["transfer"]["kv_bytes_per_token"] == 73_728
    assert d["prefill"]["instances"] == 2 and d["decode"]["instances"] == 4 and d["decode"]["router"] == "least_kv_demand"
    assert sum(row["requests"] for row in d["decode"]["per_instance"]) == 40
    assert report["cost_per_hour"] is None  # the H200 has no list price in the catalog


def test_out_requests_csv_has_the_transfer_phase(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["simulate", "serving", "pools=1P2D", "kv_link=pcie", *SMALL, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "1P2D: KV over pcie" in text and "waits p50 / p95" in text
    rows = list(csv.DictReader((out / "requests.csv").open()))
    assert len(rows) == 40
    for row in rows:
        alloc, ready = float(row["kv_alloc_s"]), float(row["kv_ready_s"])
        assert float(row["prefill_done_s"]) <= alloc < ready <= float(row["decode_start_s"]) < float(row["finish_s"])
        assert float(row["kv_transfer_bytes"]) == int(row["input_tokens"]) * 147_456
        assert float(row["kv_transfer_s"]) == pytest.approx(int(row["input_tokens"]) * 147_456 / 64e9 + 5e-6, abs=5e-7)  # six decimals
    assert {row["decode_instance"] for row in rows} == {"0", "1"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["disaggregation"]["pools"] == "1P2D"
    assert np.isfinite(summary["p99_e2el_ms"])


@pytest.mark.parametrize("argv, field", [
    (["pools=2P"], "pools"),
    (["pools=1P1D", "kv_link=fast"], "kv_link"),
    (["decode_replicas=0"], "decode_replicas"),
    (["pools=1P1D", "replicas=2"], "replicas"),
    (["pools=1P1D", "decode_router=nearest"], "decode_router"),
    (["pools=1P1D", "model=qwen3-8b", "hardware=h200", "decode_tp=3"], "decode_tp"),
    (["pools=1P1D", "prefill_hardware=h2000"], "prefill_hardware"),
    (["pools=1P1D", "kv_transfer=streamed"], "kv_transfer"),
    (["pools=1P1D", "max_concurrency=4"], "max_concurrency"),
    (["pools=1P1D", "kv_link=nvlink"], "kv_link"),  # the book's card has PCIe
])
def test_bad_keys_exit_2_naming_the_field(capsys, argv, field):
    assert main(["simulate", "serving", *argv, *SMALL]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith(f"lab simulate serving: {field}:") and "valid" in err


def test_prefix_caching_on_the_prefill_side_behind_prefix_aware(capsys):
    trace = TRACES / "mooncake_conversation_400.jsonl"
    argv = [f"trace={trace}", "pools=2P2D", "prefill_router=prefix_aware", "time_scale=0.5"]
    report = _json(capsys, argv)
    cfg, work, *_ = build({a.split("=")[0]: a.split("=", 1)[1] for a in argv})
    assert work.prefix is not None  # Mooncake hash ids
    same = replay_replicas(prefill_workload(work), cfg.prefill, 2, "prefix_aware")
    assert report["cached_tokens_total"] == int(same.cached_tokens.sum()) > 0
    assert report["prefix_information"] and report["cache_hit_rate"] > 0


def test_layerwise_hides_the_transfer_behind_the_prefill(capsys):
    whole = _json(capsys, ["pools=1P1D", "kv_link=25", *SMALL])["disaggregation"]["transfer"]["ms"]
    layer = _json(capsys, ["pools=1P1D", "kv_link=25", "kv_transfer=layerwise", *SMALL])["disaggregation"]
    assert layer["kv_transfer"] == "layerwise"
    # 36 layers: the 8,192-token prompt's 1.208 GB take 48.3 ms whole; its prefill (hundreds of
    # ms) hides all but the last layer's share
    assert whole["max"] == pytest.approx(8192 * 147_456 / 25e9 * 1e3, rel=1e-12)  # ms
    assert layer["transfer"]["ms"]["max"] == pytest.approx(8192 * 147_456 / 25e9 / 36 * 1e3, rel=1e-12)


def test_sweep_axes_over_the_pools(tmp_path, capsys):
    out = tmp_path / "sweep"
    argv = ["sweep", "serving", "prefill_replicas=1,2", "decode_replicas=1,2", *SMALL, "slo_ttft_ms=2000",
            "--out", str(out), "--workers", "1", "--json"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["points"]["done"] == 4 and summary["points"]["refused"] == 0
    rows = list(csv.DictReader((out / "results.csv").open()))
    pools = {(r["param.prefill_replicas"], r["param.decode_replicas"]): r for r in rows}
    assert set(pools) == {("1", "1"), ("1", "2"), ("2", "1"), ("2", "2")}
    for (x, y), row in pools.items():
        assert json.loads(row["disaggregation"])["pools"] == f"{x}P{y}D"
        assert float(row["cost_per_hour"]) == pytest.approx((int(x) + int(y)) * 1.57)
    assert summary["cheapest_meeting_slo"]["values"] == {"prefill_replicas": "1", "decode_replicas": "1"}


def test_timeline_has_both_pools_and_the_transfer(tmp_path, capsys):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "api"))
    from test_trace_json import check_format  # API's strict check of the trace event format

    out = tmp_path / "run"
    assert main(["simulate", "serving", "pools=2P2D", *SMALL, "--out", str(out)]) == 0
    capsys.readouterr()
    trace = json.loads((out / "trace.json").read_text())
    check_format(trace)  # valid, and every track's slices nest (the transfer inside decode)
    names = [e["args"]["name"] for e in trace["traceEvents"] if e.get("name") == "process_name"]
    assert names == ["replica 0 (prefill pool)", "replica 1 (prefill pool)", "replica 2 (decode pool)",
                     "replica 3 (decode pool)"]
    rows = list(csv.DictReader((out / "requests.csv").open()))
    slices = {e["tid"] - 1: e for e in trace["traceEvents"] if e.get("name") == "kv transfer"}
    assert len(slices) == len(rows) == 40
    for i, row in enumerate(rows):
        assert slices[i]["ts"] == pytest.approx(float(row["kv_alloc_s"]) * 1e6, abs=1.0)
        assert slices[i]["ts"] + slices[i]["dur"] == pytest.approx(float(row["kv_ready_s"]) * 1e6, abs=1.0)
    replicas = list(csv.DictReader((out / "replicas.csv").open()))
    assert {r["replica"] for r in replicas} == {"0", "1", "2", "3"}


def test_seeds_band_and_each_pools_own_latency(capsys):
    report = _json(capsys, ["pools=1P2D", "arrival=poisson", "seeds=1,2,3", *SMALL])
    band = report["book"]["band"]["ttft_p95_s"]
    assert band["min"] <= band["median"] <= band["max"] and report["seeds"] == [1, 2, 3]
    d = report["disaggregation"]
    assert d["prefill"]["ttft_ms"]["p50"] == pytest.approx(report["median_ttft_ms"], rel=1e-12)
    tpot = d["decode"]["tpot_from_landing_ms"]
    assert 0 < tpot["p50"] <= report["median_tpot_ms"]  # from landing: the handoff left out


def test_pools_cheapest_searches_the_xpyd(capsys):
    slos = ["slo_ttft_ms=1000", "slo_tpot_ms=40", "durations_s=20", "rates_per_s=4", "shares_long_input=0.5"]
    report = _json(capsys, ["pools=cheapest:3x3", *slos])
    search = report["pools_search"]
    assert search["found"] == report["disaggregation"]["pools"] and search["limits"] == "3P3D"
    assert search["tried"][-1]["pools"] == search["found"] and search["tried"][-1]["slo_attainment"] >= 0.9
    assert search["tried"][0]["pools"] == "3P3D"  # the largest first: it meets them, so a search is worth it
    assert all(t["slo_attainment"] < 0.9 for t in search["tried"][1:-1])
    assert main(["simulate", "serving", "pools=cheapest:3x3", *slos]) == 0
    assert f"cheapest pools meeting the SLOs for 90% of requests (up to 3P3D): {search['found']}" in capsys.readouterr().out
    for argv, field in ((["pools=cheapest:0x3", *slos], "pools"), (["pools=cheapest:16x16", *slos[:2], "durations_s=100", "rates_per_s=100", "shares_long_input=0"], "pools"), (["pools=cheapest:2x2", *slos[2:]], "slo_ttft_ms"),
                        (["pools=cheapest:1x1", "slo_ttft_ms=5", *slos[2:]], "pools")):
        assert main(["simulate", "serving", *argv]) == 2
        assert capsys.readouterr().err.startswith(f"lab simulate serving: {field}:")


def test_capacity_search_per_xpyd(tmp_path, capsys):
    out = tmp_path / "search"
    argv = ["sweep", "serving", "pools=1P1D,2P2D", "search=max_rate", *SMALL, "slo_ttft_ms=1000", "--out", str(out),
            "--workers", "1", "--json"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    rates = {row["values"]["pools"]: row["search.max_rate_per_s"] for row in summary["capacity"]}
    assert set(rates) == {"1P1D", "2P2D"} and rates["2P2D"] >= rates["1P1D"] > 0  # more prefill: more rate in TTFT
