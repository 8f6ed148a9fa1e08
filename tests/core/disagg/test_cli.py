"""`lab simulate serving` with P/D keys through the one command-line parser: the report,
requests.csv's transfer columns, the text, refusals with exit 2 naming the field."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from lab.cli import main

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
    assert set(d["waits"]) == {"prefill_queue_s", "prefill_s", "decode_queue_for_blocks_s", "transfer_s",
                               "decode_seat_after_landing_s", "decode_s"}
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
