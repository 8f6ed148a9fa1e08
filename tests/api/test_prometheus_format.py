"""`lab simulate serving --format prometheus`: the text exposition format, read back by
prometheus_client's own parser, its values against the run's own files (hand sums)."""
import csv
import math

import pytest

prometheus_parser = pytest.importorskip("prometheus_client.parser")

from core.serving.prometheus_text import TTFT_BUCKETS  # noqa: E402
from lab.cli import main  # noqa: E402

SMALL = ["durations_s=20", "rates_per_s=2", "shares_long_input=0.5"]


def _families(text):
    return {f.name: f for f in prometheus_parser.text_string_to_metric_families(text)}


def _rows(path):
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _value(family, name, **labels):
    hits = [s.value for s in family.samples if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())]
    assert len(hits) == 1, (name, labels, family.samples)
    return hits[0]


def test_printed_without_out_and_parsed_by_prometheus_client(capsys):
    assert main(["simulate", "serving", *SMALL, "--format", "prometheus"]) == 0
    fams = _families(capsys.readouterr().out)
    assert {"vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc"} <= set(fams)
    assert fams["vllm:num_preemptions"].type == "counter"  # the parser's family name drops _total
    for name in ("vllm:time_to_first_token_seconds", "vllm:request_time_per_output_token_seconds",
                 "vllm:e2e_request_latency_seconds"):
        assert fams[name].type == "histogram"
        assert _value(fams[name], name + "_count", engine="0") == 40


def test_the_books_run_with_preemptions_against_its_files(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["simulate", "serving", "--format", "prometheus", "--out", str(out)]) == 0
    assert "metrics.prom" in capsys.readouterr().out
    fams = _families((out / "metrics.prom").read_text(encoding="utf-8"))
    rows = _rows(out / "requests.csv")
    preempted = _rows(out / "preemptions.csv")
    assert len(rows) == 480 and len(preempted) > 0  # the book's run preempts
    assert _value(fams["vllm:num_preemptions"], "vllm:num_preemptions_total") == len(preempted)
    assert _value(fams["vllm:prompt_tokens"], "vllm:prompt_tokens_total") == sum(int(r["input_tokens"]) for r in rows)
    # every output token once, the ones sampled again after a preemption's recompute included
    assert _value(fams["vllm:generation_tokens"], "vllm:generation_tokens_total") == sum(
        int(r["output_tokens"]) for r in rows)
    assert _value(fams["vllm:request_success"], "vllm:request_success_total") == 480
    ttft = sorted(float(r["ttft_s"]) for r in rows)
    fam = fams["vllm:time_to_first_token_seconds"]
    for le in TTFT_BUCKETS:  # cumulative: requests with TTFT <= le (requests.csv rounds to the µs)
        got = _value(fam, "vllm:time_to_first_token_seconds_bucket", le=repr(le))
        assert abs(got - sum(t <= le for t in ttft)) <= sum(abs(t - le) < 1e-6 for t in ttft)
    assert _value(fam, "vllm:time_to_first_token_seconds_bucket", le="+Inf") == 480
    assert _value(fam, "vllm:time_to_first_token_seconds_sum") == pytest.approx(sum(ttft), abs=480 * 1e-6)
    e2e = _value(fams["vllm:e2e_request_latency_seconds"], "vllm:e2e_request_latency_seconds_sum")
    assert e2e == pytest.approx(sum(float(r["request_s"]) for r in rows), abs=480 * 1e-6)
    tpot = [float(r["tpot_s"]) for r in rows if r["tpot_s"]]
    fam = fams["vllm:request_time_per_output_token_seconds"]
    assert _value(fam, "vllm:request_time_per_output_token_seconds_count") == len(tpot)
    assert _value(fams["vllm:num_requests_running"], "vllm:num_requests_running") == 0  # all done


def test_each_replica_is_an_engine_label(tmp_path, capsys):
    out = tmp_path / "two"
    argv = [*SMALL, "replicas=2", "router=least_kv", "--format", "prometheus", "--out", str(out)]
    assert main(["simulate", "serving", *argv]) == 0
    capsys.readouterr()
    fams = _families((out / "metrics.prom").read_text(encoding="utf-8"))
    rows = _rows(out / "requests.csv")
    for engine in ("0", "1"):
        mine = [r for r in rows if r["replica"] == engine]
        assert _value(fams["vllm:request_success"], "vllm:request_success_total", engine=engine) == len(mine)
        assert _value(fams["vllm:prompt_tokens"], "vllm:prompt_tokens_total", engine=engine) == sum(
            int(r["input_tokens"]) for r in mine)
        assert _value(fams["vllm:generation_tokens"], "vllm:generation_tokens_total", engine=engine) == sum(
            int(r["output_tokens"]) for r in mine)
        count = _value(fams["vllm:e2e_request_latency_seconds"], "vllm:e2e_request_latency_seconds_count",
                       engine=engine)
        assert count == len(mine) and not math.isnan(count)


def test_a_bad_format_names_the_valid_ones(capsys):
    assert main(["simulate", "serving", *SMALL, "--format", "openmetrics"]) == 2
    assert "prometheus" in capsys.readouterr().err
