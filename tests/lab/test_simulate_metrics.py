"""`lab simulate serving`: vLLM bench serve's names in --json, goodput SLOs, --format aiperf
and the columns of requests.csv."""
import csv
import json

import pytest

from core.serving.vllm_metrics import NAMES
from lab.cli import main
from lab.simulate_files import REQUEST_COLUMNS

SMALL = ["durations_s=10", "rates_per_s=2", "shares_long_input=0.5"]


def run(argv):
    return main(["simulate", "serving", *argv])


def _json(capsys, argv):
    assert run(argv + ["--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_keeps_the_book_names_and_adds_vllms(capsys):
    report = _json(capsys, [])
    for key in ("ttft_p95_s", "request_p95_s", "first_schedule_wait_p95_s", "last_completion_s", "preemptions",
                "decode_steps_total", "kv_peak_fraction", "requests", "book_observed"):
        assert key in report
    assert set(NAMES) <= set(report)
    assert report["completed"] == report["requests"] == 480
    assert report["total_output_tokens"] == report["decode_steps_total"] + 480
    assert report["duration"] == pytest.approx(report["last_completion_s"])  # the first arrival is at 0
    assert report["request_goodput"] is None  # no SLO given
    # The book's p95 (nearest rank) sits between vLLM's interpolated p90 and p99 of the same TTFTs.
    assert report["p90_ttft_ms"] / 1e3 <= report["ttft_p95_s"] <= report["p99_ttft_ms"] / 1e3
    assert "nearest rank" in report["percentiles"]["*_p95_s"]
    assert report["prefix_caching"] is True and report["cached_tokens_total"] == 0


def test_goodput_slos_in_json_and_text(capsys):
    loose = _json(capsys, SMALL + ["slo_ttft_ms=1h", "slo_tpot_ms=1h", "slo_e2el_ms=1h"])
    assert loose["request_goodput"] == pytest.approx(loose["request_throughput"])  # every request is good
    assert loose["goodput_slos_ms"] == {"ttft": 3.6e6, "tpot": 3.6e6, "e2el": 3.6e6}
    tight = _json(capsys, SMALL + ["--slo_ttft_ms", "1ms"])
    assert tight["request_goodput"] == 0.0  # no prefill is that fast
    assert run(SMALL + ["slo_tpot_ms=40"]) == 0
    text = capsys.readouterr().out
    assert "request_goodput" in text and "tpot <= 40 ms" in text and "p99" in text


@pytest.mark.parametrize("argv, field", [
    (["slo_ttft_ms=0"], "slo_ttft_ms"),
    (["slo_tpot_ms=-5"], "slo_tpot_ms"),
    (["slo_e2el_ms=soon"], "slo_e2el_ms"),
    (["slo_e2el_ms=1e12"], "slo_e2el_ms"),
    (["--format", "csv"], "--format"),
    (["--json", "--format", "aiperf"], "--format"),
    (["prefix_caching=maybe"], "prefix_caching"),
    (["matrix_flops_per_token=-1"], "matrix_flops_per_token"),
    (["attention_flops_per_pair=lots"], "attention_flops_per_pair"),
])
def test_bad_keys_exit_2_naming_them(capsys, argv, field):
    assert run(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith(f"lab simulate serving: {field}:") and "valid:" in err


def test_format_aiperf_writes_profile_export_records(tmp_path, capsys):
    out = tmp_path / "run"
    assert run(SMALL + ["--format", "aiperf", "--out", str(out)]) == 0
    assert "profile_export.jsonl" in capsys.readouterr().out
    lines = (out / "profile_export.jsonl").read_text().splitlines()
    assert len(lines) == 20
    records = [json.loads(line) for line in lines]
    with open(out / "requests.csv") as fh:
        rows = list(csv.DictReader(fh))
    for record, row in zip(records, rows):
        assert set(record) == {"metadata", "metrics", "error"}
        assert record["metadata"]["request_start_ns"] == round(float(row["arrival_s"]) * 1e9)
        assert record["metrics"]["time_to_first_token"]["value"] == pytest.approx(float(row["ttft_s"]) * 1e3, abs=1e-3)
        assert record["metrics"]["request_latency"]["unit"] == "ms"
        assert record["metrics"]["input_sequence_length"]["value"] == int(row["input_tokens"])


def test_format_aiperf_without_out_prints_json_lines(capsys):
    assert run(SMALL + ["--format", "aiperf"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 20 and json.loads(lines[0])["metadata"]["benchmark_phase"] == "profiling"
    assert run(SMALL + ["--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["completed"] == 20


def test_requests_csv_columns(tmp_path, capsys):
    trace = tmp_path / "t.csv"
    trace.write_text("arrival_s,input_tokens,output_tokens\n0,100,1\n0.5,200,5\n1,300,3\n")
    out = tmp_path / "run"
    assert run([f"trace={trace}", "--out", str(out)]) == 0
    with open(out / "requests.csv") as fh:
        reader = csv.DictReader(fh)
        rows = list(reader)
    assert tuple(reader.fieldnames) == REQUEST_COLUMNS
    assert {"cached_tokens", "tpot_s", "preemptions"} <= set(reader.fieldnames)
    assert rows[0]["tpot_s"] == ""  # one output token: no TPOT
    for row in rows[1:]:
        tpot = (float(row["request_s"]) - float(row["ttft_s"])) / (int(row["output_tokens"]) - 1)
        assert float(row["tpot_s"]) == pytest.approx(tpot, abs=2e-6)
    assert all(row["cached_tokens"] == "0" and row["preemptions"] == "0" for row in rows)


def test_prefix_caching_and_flop_keys_reach_the_engine(capsys):
    off = _json(capsys, SMALL + ["prefix_caching=false"])
    assert off["prefix_caching"] is False and off["cached_tokens_total"] == 0
    assert run(SMALL + ["prefix_caching=false"]) == 0
    assert "prefix caching off" in capsys.readouterr().out
    base = _json(capsys, SMALL)
    heavier = _json(capsys, SMALL + ["matrix_flops_per_token=40G", "attention_flops_per_pair=2M"])
    assert heavier["mean_ttft_ms"] > 1.5 * base["mean_ttft_ms"]  # prefill is compute-bound
    from core.serving.step_cost import StepCost

    cost = StepCost()  # the defaults are today's model, so the book's rows stay as they were
    same = _json(capsys, SMALL + [f"matrix_flops_per_token={cost.matrix_flops_per_token!r}",
                                  f"lm_head_flops_per_row={cost.lm_head_flops_per_row!r}"])
    assert same["mean_ttft_ms"] == base["mean_ttft_ms"]
