"""lab simulate serving: a preloaded trace (workload=) gives the report reading the file
gives, bit for bit; replicas, router and cost in every report."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from core.registry import ParamError
from lab.cli.simulate import load_shared_trace, simulate, simulate_serving

SESSIONS = "examples/sessions.jsonl"
TRACES = Path(__file__).resolve().parents[1] / "data" / "traces"
MOONCAKE = str(TRACES / "mooncake_synthetic_300.jsonl")
AZURE = str(TRACES / "azure2023_code_600.csv")


def _same(a: dict, b: dict) -> None:
    a, b = dict(a), dict(b)
    a.pop("wall_s"), b.pop("wall_s")
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _arrays_equal(r1, r2) -> None:
    for name in ("arrival_s", "ttft_s", "request_s", "finish_s", "series_t", "series_kv_fraction"):
        assert np.array_equal(getattr(r1, name), getattr(r2, name), equal_nan=True), name


@pytest.mark.parametrize("trace,extra", [
    (SESSIONS, {}),
    (AZURE, {"limit": "300"}),
    (AZURE, {"window": "60:900", "limit": "250"}),
])
@pytest.mark.parametrize("time_scale", [None, "1", "2.5", "0.37"])
def test_preloaded_workload_equals_reading_the_file(trace, extra, time_scale):
    raw = {"trace": trace, **extra}
    if time_scale is not None:
        raw["time_scale"] = time_scale
    shared = load_shared_trace(raw)
    assert shared.meta["time_scale"] == 1.0
    from_file, (res_file, work_file) = simulate_serving(dict(raw))
    preloaded, (res_pre, work_pre) = simulate_serving(dict(raw), workload=shared)
    _same(from_file, preloaded)
    _arrays_equal(res_file, res_pre)
    assert np.array_equal(work_file.arrival_s, work_pre.arrival_s)
    assert work_file.meta["span_s"] == work_pre.meta["span_s"]
    if work_file.sessions is not None:
        assert np.array_equal(work_file.sessions.think_time_s, work_pre.sessions.think_time_s, equal_nan=True)
    # the shared workload is not changed by a point's scale
    assert shared.meta["time_scale"] == 1.0


def test_preloaded_mooncake_hash_ids():
    raw = {"trace": MOONCAKE, "limit": "200", "time_scale": "3"}
    shared = load_shared_trace(raw)
    a, _ = simulate_serving(dict(raw))
    b, _ = simulate_serving(dict(raw), workload=shared)
    _same(a, b)
    assert a["cached_tokens_total"] > 0


def test_preloaded_workload_needs_its_trace_and_scales_once():
    shared = load_shared_trace({"trace": SESSIONS})
    with pytest.raises(ParamError) as err:
        simulate_serving({}, workload=shared)
    assert err.value.param == "trace"
    from core.serving.traces.transforms import time_scaled

    with pytest.raises(ParamError) as err:
        time_scaled(time_scaled(shared, 2.0), 2.0)
    assert err.value.param == "time_scale"
    assert load_shared_trace({"max_num_seqs": "8"}) is None


COST_KEYS = ("replicas", "router", "price_per_card_hour", "cost_per_hour", "cost_per_million_output_tokens")


def _cost_from_report(report: dict) -> float:
    return report["cost_per_hour"] * report["duration"] / 3600 / report["total_output_tokens"] * 1e6


def test_every_report_has_replicas_router_and_cost():
    report, _ = simulate_serving({"scenario": "uniform"})
    for key in COST_KEYS:
        assert key in report
    assert report["replicas"] == 1 and report["router"] == "round_robin" and "per_replica" not in report
    from core import catalog
    from core.serving import replay as rp

    price = catalog.hardware(rp.BOOK_CARD_KEY).price_per_card_hour
    assert report["price_per_card_hour"] == price == report["cost_per_hour"]
    assert report["cost_per_million_output_tokens"] == pytest.approx(_cost_from_report(report), rel=1e-12)
    assert "deploybase" in report["price_source"] and report["book_observed"]["scenario"] == "uniform"
    # a price of your own does not change the run, and the book's comparison stays
    mine, _ = simulate_serving({"scenario": "uniform", "price_per_card_hour": "4"})
    assert mine["cost_per_hour"] == 4.0 and mine["book_observed"] == report["book_observed"]
    assert mine["ttft_p95_s"] == report["ttft_p95_s"]


def test_replicas_report_per_replica_and_cost_scales():
    report, (result, work) = simulate_serving({"replicas": "3", "router": "least_outstanding"})
    rows = report["per_replica"]
    assert [r["replica"] for r in rows] == [0, 1, 2]
    assert sum(r["requests"] for r in rows) == report["requests"] == 480
    assert sum(r["preemptions"] for r in rows) == report["preemptions"]
    assert max(r["last_completion_s"] for r in rows) == report["last_completion_s"]
    assert report["cost_per_hour"] == pytest.approx(3 * report["price_per_card_hour"], rel=1e-15)
    assert report["cost_per_million_output_tokens"] == pytest.approx(_cost_from_report(report), rel=1e-12)
    assert "engine_extras" not in report or "replicas" not in report["engine_extras"]
    json.dumps(report)  # plain JSON
    text = simulate("serving", {"replicas": "3", "router": "least_outstanding"})[1]
    assert "3 replicas x 1 card behind least_outstanding" in text and "per million output tokens" in text
    assert text.count("    replica ") == 3


def test_hardware_sets_its_price_and_a_card_without_one_has_no_cost(tmp_path):
    h100, _ = simulate_serving({"hardware": "h100-sxm", "max_num_seqs": "16", "durations_s": "30", "rates_per_s": "2",
                                "shares_long_input": "0.5"})
    assert h100["price_per_card_hour"] == 2.99 and "Lambda" in h100["price_source"]
    card = tmp_path / "card.toml"
    card.write_text('memory_gib = 141\nbandwidth_tb_s = 4.8\n[peak_tflops]\nbf16 = 989.4\n')
    raw = {"hardware": str(card), "durations_s": "30", "rates_per_s": "2", "shares_long_input": "0.5"}
    report, _ = simulate_serving(dict(raw))
    assert report["cost_per_hour"] is None and report["cost_per_million_output_tokens"] is None
    assert "price_per_card_hour=" in report["price_source"]
    assert "cost: this card has no price" in simulate("serving", dict(raw))[1]
    given, _ = simulate_serving(dict(raw, price_per_card_hour="3.5"))
    assert given["cost_per_hour"] == 3.5


@pytest.mark.parametrize("router", ["round_robin", "prefix_aware"])
def test_preloaded_trace_with_replicas_equals_reading_the_file(router):
    raw = {"trace": MOONCAKE, "limit": "300", "time_scale": "2", "replicas": "2", "router": router}
    a, (ra, _) = simulate_serving(dict(raw))
    b, (rb, _) = simulate_serving(dict(raw), workload=load_shared_trace(raw))
    _same(a, b)
    assert a["replicas"] == 2 and len(a["per_replica"]) == 2
    assert np.array_equal(ra.extras["replica_of"], rb.extras["replica_of"])


def test_bad_replicas_and_router_are_refused():
    for raw, field in (({"replicas": "0"}, "replicas"), ({"replicas": "257"}, "replicas"),
                       ({"router": "random"}, "router"), ({"price_per_card_hour": "-1"}, "price_per_card_hour")):
        with pytest.raises(ParamError) as err:
            simulate_serving(raw)
        assert err.value.param == field


def test_out_dir_names_each_requests_replica_and_writes_replica_series(tmp_path):
    import csv

    report, (result, _) = simulate_serving({"replicas": "2", "router": "least_kv"}, out=str(tmp_path))
    assert "replicas.csv" in report["files"]
    with open(tmp_path / "requests.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [int(r["replica"]) for r in rows] == result.extras["replica_of"].tolist()
    with open(tmp_path / "replicas.csv", encoding="utf-8") as fh:
        series = list(csv.DictReader(fh))
    for entry in result.extras["replicas"]:
        mine = [r for r in series if int(r["replica"]) == entry["replica"]]
        assert [int(r["kv_blocks"]) for r in mine] == entry["series_kv_blocks"].tolist()
    single, _ = simulate_serving({}, out=str(tmp_path / "one"))
    assert "replicas.csv" not in single["files"]
    with open(tmp_path / "one" / "requests.csv", encoding="utf-8") as fh:
        assert "replica" not in next(csv.reader(fh))
