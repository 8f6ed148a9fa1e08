"""ServingState (the Serving panel's state in core) and core.serving.figures: B follows A,
the preset picker and the backlog card agree, JSON round trip, figures carry what views
draw, replays cancel."""
from pathlib import Path

import numpy as np
import pytest

from core.cancel import Cancelled, CancelToken
from core.registry import ParamError, get
from core.serving import figures as F
from core.serving import overlay_figures as OV
from core.serving import replay as rp
from core.serving import traces, vllm_metrics
from core.serving.state import B_SHARES, ServingState
from core.serving.trace_source import load, parse_trace_source, summary_text


def test_state_opens_on_the_book():
    s = ServingState()
    assert s.replay("A").inputs["shares_long_input"] == (0.5, 0.5)
    assert s.replay("B").inputs["shares_long_input"] == B_SHARES
    assert s.replay("A").deferred and s.replay("A").result is None
    assert s.view("backlog_preset") == "shift" and s.view("band") is False
    assert s.player("replay") == 0.0


def test_b_follows_a_but_for_its_shares():
    s = ServingState()
    events = []
    s.changed.connect(lambda path, value: events.append(path))
    s.replay("A").update({"max_num_seqs": "32"})
    assert s.replay("B").inputs["max_num_seqs"] == 32
    assert s.replay("B").inputs["shares_long_input"] == B_SHARES
    assert events.count("cards.replay_a") == 1 and events.count("cards.replay_b") == 1
    # Three windows for A: B's two shares no longer fit, and B says so on its shares.
    s.replay("A").update({"durations_s": "40,40,40", "rates_per_s": "4,4,4", "shares_long_input": "0.5,0.5,0.5"})
    assert "shares_long_input" in s.replay("B").errors
    s.replay("B").update({"shares_long_input": "0.9,0.5,0.1"})
    assert not s.replay("B").errors and s.replay("B").inputs["durations_s"] == (40.0, 40.0, 40.0)


def test_preset_picker_and_backlog_card_agree():
    s = ServingState()
    s.set_view("backlog_preset", "burst_2cards")
    assert s.card("backlog").result["peak_backlog_steps"] == pytest.approx(56396.4)
    s.card("backlog").update({"cards": 5})
    assert s.view("backlog_preset") == ""
    s.card("backlog").update({"cards": 3})
    assert s.view("backlog_preset") == "burst_3cards"
    with pytest.raises(ParamError) as err:
        s.set_view("backlog_preset", "nope")
    assert err.value.param == "view.backlog_preset"


def test_json_round_trip_and_reset():
    s = ServingState()
    s.card("mix").update({"rate_per_s": 5})
    s.replay("A").update({"max_num_seqs": 32})
    s.set_view("band", True)
    s.set_player("replay", 12.5)
    data = s.to_json()
    other = ServingState()
    other.load_json(data)
    assert other.to_json() == data
    assert other.replay("B").inputs["max_num_seqs"] == 32
    other.reset()
    assert other.to_json() == ServingState().to_json()
    with pytest.raises(ParamError):
        other.load_json({"cards": {"mix": {"rate_per_s": -1}}})
    assert other.to_json() == ServingState().to_json()  # a bad state changes nothing


def test_banner_figure_from_the_cards():
    s = ServingState()
    fig = F.banner_figure(s.card("mix").inputs, s.card("rate").inputs, s.card("rate").result)
    capacity = get("serving.decode_rate").run()["steps_per_s"]
    assert fig["capacity"] == capacity
    expected = [get("serving.mix").run({"share_long_input": x})["decode_steps_per_s"] / capacity * 100
                for x in (0.5, 0.9, 0.1)]
    assert np.allclose(fig["pct"], expected)
    assert np.allclose(fig["under"] + fig["over"], fig["pct"])
    assert "5,591" in fig["capacity_text"]  # the backlog card's capacity too
    assert "后一分钟 1:9" in F.banner_status(fig, 150.0)


def test_replay_side_and_table_carry_the_book():
    s = ServingState()
    a = F.replay_side(s.replay("A").inputs)
    fig = a["figure"]
    assert a["requests"] == 480 and fig.scenario == "uniform"
    assert fig.disp_t.size <= F.DISPLAY_POINTS + 2 and fig.gantt_codes.shape == (480, F.GANTT_BINS)
    table = F.compare_rows({"A": fig, "B": None})
    row = F.COMPARE_ROWS.index("decode_bound_s")
    assert table["cells"]["A"][row][1] == rp.REPLAY.format_output("decode_bound_s", 197.6)
    assert rp.book_decode_bound_s() == 197.6
    frame = F.replay_frame(fig, 100.0)
    assert frame["k"] == np.searchsorted(fig.disp_t, 100.0, side="right")
    assert frame["done"] == np.count_nonzero(fig.first_token_by_ttft <= 100.0)


def test_decimation_keeps_the_peaks():
    t = np.arange(100_000, dtype=float)
    y = np.zeros_like(t)
    y[54_321] = 7.0
    dt, dy = F._decimate(t, y)
    assert dt.size <= F.DISPLAY_POINTS + 2 and dy.max() == 7.0 and dt[-1] == t[-1]


def test_a_cancelled_replay_stops():
    token = CancelToken()
    token.cancel()
    values = get("serving.replay").resolve()
    with pytest.raises(Cancelled):
        F.replay_side(values, cancel=token)
    with pytest.raises(Cancelled):
        rp.band(values, range(2), cancel=token)


# ---- a trace instead of the book's windows ----------------------------------------------
TRACES = Path(__file__).resolve().parents[1] / "data" / "traces"
AZURE_200 = TRACES / "serving_azure_code_200.csv"
MOONCAKE = TRACES / "mooncake_conversation_head.jsonl"


def test_trace_source_parses_the_fields_and_names_the_refused_one():
    src = parse_trace_source({"path": " a/b.csv ", "time_scale": "2", "window_s": "10:70", "limit": "100",
                              "trace_model": "ChatGPT"})
    assert (src.path, src.name, src.time_scale, src.window_s, src.limit) == ("a/b.csv", "b.csv", 2.0, (10.0, 70.0), 100)
    assert src.options() == traces.TraceOptions(format="auto", time_scale=2.0, window=(10.0, 70.0), limit=100,
                                                trace_model="ChatGPT", trace_log_type=None)
    assert parse_trace_source(src.to_json()) == src  # a session's JSON reads back the same
    for raw, field in (({"time_scale": "0"}, "time_scale"), ({"window_s": "70:10"}, "window_s"),
                       ({"window_s": "5"}, "window_s"), ({"limit": "-1"}, "limit"), ({"format": "xls"}, "format"),
                       ({"speed": 2}, "speed"), ({"path": ""}, "path")):
        with pytest.raises(ParamError) as err:
            parse_trace_source({"path": "a.csv", **raw})
        assert err.value.param == field


def test_state_keeps_the_source_not_the_data_and_its_last_good_load():
    s = ServingState()
    events = []
    s.changed.connect(lambda path, value: events.append(path))
    assert s.set_trace({"path": str(AZURE_200), "limit": "50"})
    assert s.trace_pending() and events == ["trace"]
    source = s.trace
    work = load(source)
    assert len(work) == 50 and work.label == AZURE_200.name
    assert s.trace_loaded_ok(source, work) and not s.trace_pending()
    assert s.replay_source("A") == s.replay_source("B") == (1, None)  # no prefix information: no switch
    assert not s.replay_current("A")  # the book's result (none yet) is not of this source
    # A refused edit stays out of the source and says why on its field.
    assert not s.set_trace({"time_scale": "-1"})
    assert s.trace == source and "time_scale" in s.trace_errors
    # A file the loader refuses: the data shown stays, the message says why, no second try.
    s.set_trace({"path": "/nonexistent/trace.csv"})
    bad = s.trace
    assert s.trace_failed(bad, "no file") and s.trace_message == "no file"
    assert s.trace_workload is work and not s.trace_pending()
    assert s.set_trace({"path": "/nonexistent/trace.csv"}, retry=True) and s.trace_pending()  # opened again
    # Sessions store the path and options; the data is loaded again.
    data = s.to_json()
    assert data["trace"]["path"] == "/nonexistent/trace.csv" and "input_tokens" not in str(data)
    other = ServingState()
    other.load_json(data)
    assert other.trace == s.trace and other.trace_pending() and other.trace_workload is None
    assert other.to_json() == data
    with pytest.raises(ParamError) as err:
        other.load_json({**data, "trace": {"path": "x.csv", "time_scale": -1}})
    assert err.value.param == "trace.time_scale" and other.to_json() == data  # a bad state changes nothing
    other.load_json(ServingState().to_json())
    assert other.trace is None and other.to_json() == ServingState().to_json()
    s.reset()
    assert s.trace is None and s.trace_workload is None and s.replay_source("A") is None


def test_prefix_caching_a_as_set_and_b_the_other_way():
    s = ServingState()
    s.set_trace({"path": str(MOONCAKE)})
    work = load(s.trace)
    s.trace_loaded_ok(s.trace, work)
    assert work.prefix is not None
    assert (s.replay_prefix_caching("A"), s.replay_prefix_caching("B")) == (True, False)
    s.replay("A").update({"prefix_caching": False})
    assert (s.replay_prefix_caching("A"), s.replay_prefix_caching("B")) == (False, True)
    on = F.replay_side(s.replay("A").inputs, workload=work, prefix_caching=True, source="x")
    off = F.replay_side(s.replay("A").inputs, workload=work, prefix_caching=False)
    result = on["figure"].result
    share = result.cached_tokens.sum() / result.input_tokens.sum()
    assert on["source"] == "x" and on["cached_token_share"] == pytest.approx(share) and share > 0
    assert off["cached_token_share"] is None and "prefix cache off" in off["figure"].name
    assert on["figure"].summary["ttft_p95_s"] <= off["figure"].summary["ttft_p95_s"]


def test_metrics_table_shows_vllm_bench_values_in_ms():
    s = ServingState()
    work = load(parse_trace_source({"path": str(AZURE_200)}))
    fig = F.replay_side(s.replay("A").inputs, workload=work)["figure"]
    m = vllm_metrics.bench_metrics(fig.result, work, cost=fig.config.cost)
    table = F.metrics_table({"A": fig, "B": None})
    assert table["rows"] == ["TTFT", "TPOT", "ITL", "E2EL"] and table["headers"][:2] == ["A mean", "A median"]
    assert table["cells"][0][0] == F._ms(m["mean_ttft_ms"]) and table["cells"][3][3] == F._ms(m["p99_e2el_ms"])
    assert table["cells"][1][4] == "—"  # B not computed
    assert table["totals"][0][:5] == [f"{m['completed']:,}", f"{m['request_throughput']:.2f}",
                                      f"{m['output_throughput']:,.0f}", f"{m['total_token_throughput']:,.0f}", "—"]
    assert table["totals"][1] == ["—"] * len(F.TOTAL_COLUMNS)
    slo = float(np.median(fig.result.ttft_s)) * 1e3
    with_slo = F.metrics_table({"A": fig}, slo_ttft_ms=slo)
    good = np.count_nonzero(fig.result.ttft_s * 1e3 <= slo) / m["duration"]
    assert with_slo["totals"][0][4] == f"{good:.2f}" and f"TTFT ≤ {slo:g} ms" in with_slo["note"]
    assert F._ms(1234.5) == "1,234" and F._ms(12.34) == "12.3" and F._ms(None) == "—"


def test_overlay_cdfs_from_hand_samples():
    x, y = OV.weighted_cdf(np.array([3.0, 1.0, 2.0]), np.array([1, 2, 1]))
    assert x.tolist() == [1.0, 2.0, 3.0] and y.tolist() == [0.5, 0.75, 1.0]
    assert OV.measured_samples({}) is None and OV.measured_samples({"measured": None}) is None
    work = load(parse_trace_source({"path": str(AZURE_200), "limit": "20"}))
    fig = F.replay_side(ServingState().replay("A").inputs, workload=work)["figure"]
    meta = {"measured": {"ttfts_s": np.array([0.1, 0.2, 0.3, 0.4]), "itls_s": [[0.01, 0.02], [], [0.03]]}}
    out = OV.overlay_figure(meta, fig.result, fig.config.cost)
    ttft, itl = out["ttft"], out["itl"]
    assert ttft["measured"][0] == pytest.approx([100, 200, 300, 400]) and ttft["measured"][1].tolist() == [0.25, 0.5, 0.75, 1]
    assert ttft["quantiles"]["measured"][0] == pytest.approx(250.0)  # linear interpolation, as numpy
    assert ttft["quantiles"]["simulated"][0] == pytest.approx(np.median(fig.result.ttft_s) * 1e3)
    assert itl["measured"][0] == pytest.approx([10, 20, 30]) and itl["measured_n"] == 3
    assert itl["simulated_n"] == int(np.sum(fig.result.output_tokens - 1)) and itl["simulated"][1][-1] == 1.0
    assert ttft["x_range"][1] == pytest.approx(max(ttft["quantiles"]["measured"][2], ttft["quantiles"]["simulated"][2]) * 1.1)
    assert OV.overlay_figure({"format": "azure"}, fig.result) is None


def test_summary_line_says_what_was_loaded():
    src = parse_trace_source({"path": str(AZURE_200)})
    work = load(src)
    text = summary_text(src, work)
    span = work.arrival_s.max() - work.arrival_s.min()
    assert "200 requests" in text and "format azure" in text and "dropped 0" in text
    assert f"{span:,.1f} s" in text and f"{200 / span:,.2f} req/s" in text


def test_cdf_curve_keeps_first_and_last_of_a_long_run():
    values = np.sort(np.random.default_rng(0).exponential(1.0, 100_000))
    x, y = F.cdf_curve(values)
    assert x.size == F.CDF_POINTS and (x[0], y[0]) == (values[0], 1e-5) and (x[-1], y[-1]) == (values[-1], 1.0)
    assert np.all(np.diff(x) >= 0)
    small = np.array([1.0, 2.0, 4.0])
    assert [v.tolist() for v in F.cdf_curve(small)] == [[1.0, 2.0, 4.0], [1 / 3, 2 / 3, 1.0]]


def test_model_choice_fills_a_and_b_and_a_refused_file_keeps_the_last(tmp_path):
    llama = str(Path(__file__).parent.parent / "data" / "model_configs" / "llama-3.1-8b.json")
    s = ServingState()
    book = s.replay("A").inputs
    assert s.card("model_choice").inputs == {"model": "qwen3-8b", "hardware": "rtx-pro-6000-blackwell"}
    assert s.model_choice_edited() == []  # the book's run is qwen3-8b on the RTX PRO 6000 exactly
    assert s.set_model_choice({"model": llama, "hardware": "a100-80gb"})
    for side in ("A", "B"):
        a = s.replay(side).inputs
        # Llama-3.1-8B: 2 · 8 KV heads · 128 · 32 layers · 2 bytes; A100: 2.039 TB/s, 312 TFLOP/s.
        assert a["kv_bytes_per_token"] == 2 * 8 * 128 * 32 * 2
        assert (a["bandwidth_bytes_per_s"], a["peak_flops"]) == (2.039e12, 312e12)
        assert a["kv_pool_bytes"] == book["kv_pool_bytes"]  # the pool stays the form's
    assert s.card("your_model").inputs["config"] == llama
    chosen = s.replay("A").inputs
    bad = tmp_path / "config.json"
    bad.write_text('{"model_type": "llama", "hidden_size": 4096}')
    assert not s.set_model_choice({"model": str(bad)})
    assert "config.json" in s.card("model_choice").errors["model"]
    assert s.card("model_choice").inputs["model"] == llama and s.replay("A").inputs == chosen
    data = s.to_json()
    assert data["cards"]["model_choice"] == {"model": llama, "hardware": "a100-80gb"}
    other = ServingState()
    other.load_json(data)
    assert other.replay("A").inputs == chosen and other.card("model_choice").inputs == s.card("model_choice").inputs
    s.reset()
    assert s.replay("A").inputs == book and s.card("your_model").inputs["config"] == "qwen3-8b"


def test_a_refused_source_is_said_so_while_the_last_good_data_stays():
    s = ServingState()
    assert s.set_trace({"path": str(AZURE_200)})
    assert not s.trace_refused()
    good = s.trace
    s.trace_loaded_ok(good, load(good))
    s.set_trace({"path": "/nonexistent/trace.csv"})
    assert not s.trace_refused() and s.trace_pending()
    s.trace_failed(s.trace, "no file")
    assert s.trace_refused() and s.trace_loaded == good and s.trace.path == "/nonexistent/trace.csv"


def test_the_model_config_card_and_the_picker_name_one_model():
    llama = str(Path(__file__).parent.parent / "data" / "model_configs" / "llama-3.1-8b.json")
    s = ServingState()
    assert s.card("your_model").update({"config": llama})
    assert s.card("model_choice").inputs["model"] == llama
    assert s.replay("A").inputs["kv_bytes_per_token"] == 131072
    s.card("your_model").reset()  # the card's ↺ book: the replays go back to Qwen3-8B too
    assert s.card("model_choice").inputs["model"] == "qwen3-8b"
    assert s.replay("A").inputs == get("serving.replay").resolve()
