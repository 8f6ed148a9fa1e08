"""`lab simulate serving`: vLLM bench serve's names in --json, goodput SLOs, --format aiperf,
the columns of requests.csv; the trace keys, model= and hardware=, the progress bar and
the dropped-row summary."""
import csv
import io
import json
import sys
from pathlib import Path

import pytest

from core.serving import traces
from core.serving.vllm_metrics import NAMES
from core.serving.workload import Workload
from lab.cli import main, simulate
from lab.cli.simulate_files import REQUEST_COLUMNS

SMALL = ["durations_s=10", "rates_per_s=2", "shares_long_input=0.5"]


def run(argv):
    return main(["simulate", "serving", *argv])


def _json(capsys, argv):
    assert run(argv + ["--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_keeps_the_book_names_and_adds_vllms(capsys):
    report = _json(capsys, [])
    book = report["book"]  # one unit per JSON (lab/cli/report_units.py): the book's seconds under book
    for key in ("ttft_p95_s", "request_p95_s", "first_schedule_wait_p95_s", "last_completion_s", "observed"):
        assert key in book and key not in report
    for key in ("preemptions", "decode_steps_total", "kv_peak_fraction", "requests"):
        assert key in report
    assert not [k for k in report if k.endswith("_s")]  # every other time is in ms
    assert set(NAMES) <= set(report)
    assert report["completed"] == report["requests"] == 480
    assert report["total_output_tokens"] == report["decode_steps_total"] + 480
    assert report["duration"] == pytest.approx(book["last_completion_s"])  # the first arrival is at 0
    assert report["request_goodput"] is None  # no SLO given
    # The book's p95 (nearest rank) sits between vLLM's interpolated p90 and p99 of the same TTFTs.
    assert report["p90_ttft_ms"] / 1e3 <= book["ttft_p95_s"] <= report["p99_ttft_ms"] / 1e3
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


@pytest.fixture
def trace(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("arrival_s,input_tokens,output_tokens\n" + "".join(f"{i * 0.5},{300 + i},{10}\n" for i in range(40)))
    return path


@pytest.mark.parametrize("key", ["time_scale=2", "window=0:10", "limit=5", "trace_model=ChatGPT",
                                 "trace_log_type=API log", "hash_block_tokens=256", "format=csv"])
def test_trace_keys_without_a_trace_exit_2_naming_them(capsys, key):
    assert run([key]) == 2
    name = key.partition("=")[0]
    assert capsys.readouterr().err.strip() == f"lab simulate serving: {name}: applies to a trace; valid: with trace=FILE"


@pytest.mark.parametrize("value, field", [
    ("time_scale=0", "time_scale"), ("time_scale=fast", "time_scale"), ("window=10", "window"),
    ("window=20:10", "window"), ("window=-5:10", "window"), ("window=a:b", "window"), ("limit=0", "limit"),
    ("limit=2.5", "limit"), ("hash_block_tokens=0", "hash_block_tokens"), ("format=parquet", "format"),
    ("trace_model=", "trace_model"), ("trace_log_type=" + "x" * 300, "trace_log_type"),
])
def test_bad_trace_keys_exit_2_naming_them(capsys, trace, value, field):
    assert run([f"trace={trace}", value]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith(f"lab simulate serving: {field}:") and "valid:" in err


def test_trace_keys_reach_the_loader(monkeypatch, capsys, trace):
    seen = {}
    real = traces.load_trace

    def load_trace(path, max_request_tokens=None, *, options, progress=None, cancel=None):
        seen.update(options=options, progress=progress)
        work = real(path)
        limit = options.limit
        return Workload(work.arrival_s[:limit], work.input_tokens[:limit], work.output_tokens[:limit],
                        meta={"format": "csv", "rows": 40, "dropped": {"zero response tokens": 3}})

    monkeypatch.setattr(traces, "load_trace", load_trace)
    argv = [f"trace={trace}", "format=csv", "time_scale=0.5", "window=1min:", "limit=7", "trace_model=ChatGPT",
            "--trace_log_type", "Conversation log", "hash_block_tokens=16"]
    report = _json(capsys, argv)
    assert seen == {"options": traces.TraceOptions(format="csv", time_scale=0.5, window=(60.0, sys.float_info.max),
                                                   limit=7, trace_model="ChatGPT", trace_log_type="Conversation log",
                                                   hash_block_tokens=16),
                    "progress": None}  # stderr is not a terminal under pytest
    assert report["requests"] == 7
    assert report["trace"] == {"format": "csv", "rows": 40, "dropped": {"zero response tokens": 3}, "requests": 7}
    assert run(argv) == 0
    text = capsys.readouterr().out
    assert "trace: csv, 40 rows read, dropped 3 (zero response tokens: 3), 7 requests replayed" in text


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_only_on_a_terminal(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert simulate._Progress.for_terminal("reading t.csv") is None
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    bar = simulate._Progress.for_terminal("reading t.csv")
    for fraction in (0.0, 0.001, 0.5, 0.5, 1.0):
        bar(fraction)
    bar.close()
    frames = terminal.getvalue().split("\r")
    assert [f for f in frames if "%" in f] == ["reading t.csv [                         ]   0%",
                                               "reading t.csv [############             ]  50%",
                                               "reading t.csv [#########################] 100%"]
    assert frames[-1] == ""  # the line is cleared for the report


def test_the_progress_bar_is_handed_to_the_loader_on_a_terminal(monkeypatch, capsys, trace):
    calls = []
    real = traces.load_trace

    def load_trace(path, max_request_tokens=None, *, progress=None, **kwargs):
        calls.append(progress)
        progress(0.5)
        return real(path)

    monkeypatch.setattr(traces, "load_trace", load_trace)
    monkeypatch.setattr(sys, "stderr", _Terminal())
    assert run([f"trace={trace}"]) == 0
    assert isinstance(calls[0], simulate._Progress)
    assert "50%" in sys.stderr.getvalue()


def test_model_and_hardware_set_defaults_and_explicit_keys_win(monkeypatch, capsys, tmp_path):
    """A real config.json and a real card TOML: the replay gets the model's counts and the
    card's figures, an explicit key wins, and a card under 70 GiB gets vLLM's 2048 budget."""
    from core.model_config import model_spec

    config = Path(__file__).parents[1] / "data" / "model_configs" / "llama-3.1-8b.json"
    card = tmp_path / "small-card.toml"
    card.write_text('name = "small card"\nmemory_gib = 24\nbandwidth_tb_s = 1\n[peak_tflops]\nbf16 = 100\n')
    spec = model_spec(str(config))
    seen = []
    from core.serving import replay as rp

    real = rp.run_replay
    monkeypatch.setattr(rp, "run_replay", lambda values, cancel=None, **kw: seen.append(dict(values)) or real(values, **kw))
    report = _json(capsys, SMALL + [f"model={config}", f"hardware={card}", "kv_bytes_per_token=65536"])
    values = seen[0]
    assert values["weights_bytes"] == float(spec.weights_read_per_step_bytes)
    assert values["attention_flops_per_pair"] == spec.attention_flops_per_pair
    assert values["kv_bytes_per_token"] == 65536  # given explicitly: wins over the model's
    assert values["bandwidth_bytes_per_s"] == 1e12 and values["peak_flops"] == 1e14
    assert values["token_budget"] == 2048  # vLLM's default on a card under 70 GiB
    assert (report["model"], report["hardware"]) == (str(config), str(card))
    assert run(SMALL + ["model=huge-model"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("lab simulate serving: model: 'huge-model': no catalog model or file of that name; "
                          "valid: one of qwen3-8b")


def test_model_and_hardware_of_the_books_run_reproduce_it(capsys, tmp_path):
    pytest.importorskip("core.model_config")
    pytest.importorskip("core.hardware_config")
    book = _json(capsys, [])
    # The book's run gave its pool (24 GiB) and 64 sequences; hardware= alone sizes the pool
    # from the card's memory and takes vLLM's max_num_seqs for the card (1024 on a 96 GB one).
    # A deployment is priced by the basis step model unless step_model=roofline (the book's knobs).
    books_run = ["model=qwen3-8b", "hardware=rtx-pro-6000-blackwell", f"kv_pool_bytes={24 * 2**30}", "max_num_seqs=64"]
    same = _json(capsys, books_run + ["step_model=roofline"])
    assert same["book"]["ttft_p95_s"] == book["book"]["ttft_p95_s"] and same["mean_itl_ms"] == book["mean_itl_ms"]
    assert same["book"]["observed"]["scenario"] == "uniform"  # the same parameters as the book's run
    no_card = _json(capsys, ["model=qwen3-8b", "step_model=roofline"])
    assert no_card["book"]["ttft_p95_s"] == book["book"]["ttft_p95_s"]
    basis = _json(capsys, books_run)
    assert basis["step_model"]["kind"] == "basis" and basis["book"]["ttft_p95_s"] != book["book"]["ttft_p95_s"]
    sized = _json(capsys, ["model=qwen3-8b", "hardware=rtx-pro-6000-blackwell"])
    assert sized["deployment"]["kv_pool_from"] == "memory" and sized["kv_pool_blocks"] > book["kv_pool_blocks"]
    config = Path(__file__).parents[1] / "data" / "model_configs" / "llama-3.1-8b.json"
    llama = _json(capsys, SMALL + [f"model={config}"])
    assert llama["model"] == str(config) and llama["mean_tpot_ms"] != _json(capsys, SMALL)["mean_tpot_ms"]
    broken = tmp_path / "config.json"
    broken.write_text('{"model_type": "llama"}')
    assert run(SMALL + [f"model={broken}"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("lab simulate serving: model:") and "\n" not in err


def test_help_lists_the_new_keys(capsys):
    assert main(["simulate", "serving", "--help"]) == 0
    text = capsys.readouterr().out
    for option in ("--slo_ttft_ms", "--slo_tpot_ms", "--slo_e2el_ms", "--time_scale", "--window", "--limit",
                   "--trace_model", "--trace_log_type", "--hash_block_tokens", "--model", "--hardware",
                   "--prefix_caching", "--matrix_flops_per_token", "format=FMT", "--format text|json|aiperf",
                   "mean_itl_ms", "p99_e2el_ms"):
        assert option in text, option


def test_a_mooncake_trace_with_shared_prefixes_reports_its_cache_hits(tmp_path, capsys):
    """Four requests of 3 blocks (512 tokens each) sharing their first two, one second apart:
    each after the first finds the two shared blocks cached (vLLM counts 1,024 tokens)."""
    trace = tmp_path / "mooncake.jsonl"
    trace.write_text("".join(json.dumps({"timestamp": 1000 * i, "input_length": 1536, "output_length": 4,
                                         "hash_ids": [0, 1, 10 + i]}) + "\n" for i in range(5)))
    out = tmp_path / "run"
    report = _json(capsys, [f"trace={trace}", "format=mooncake", "limit=4", "--out", str(out)])
    assert report["trace"]["format"] == "mooncake" and report["requests"] == 4
    assert report["cached_tokens_total"] == 3 * 1024
    with open(out / "requests.csv") as fh:
        assert [int(r["cached_tokens"]) for r in csv.DictReader(fh)] == [0, 1024, 1024, 1024]
    off = _json(capsys, [f"trace={trace}", "limit=4", "prefix_caching=false"])
    assert off["cached_tokens_total"] == 0 and off["mean_ttft_ms"] > report["mean_ttft_ms"]
    assert run([f"trace={trace}", "limit=4"]) == 0
    assert "prefix caching on: 3,072 prompt tokens from the cache" in capsys.readouterr().out


def test_a_vllm_bench_result_is_laid_beside_the_replay(capsys):
    """The bundled --save-result file: three completed requests (one failed is left out)."""
    result = Path(__file__).parents[1] / "data" / "traces" / "vllm_bench_result.json"
    saved = json.loads(result.read_text())
    report = _json(capsys, [f"trace={result}"])
    measured = report["measured"]
    assert measured["mean_ttft_ms"] == pytest.approx(saved["mean_ttft_ms"])  # the file's own figure
    assert measured["median_itl_ms"] == pytest.approx(20.0)  # gaps 21 20 22 | 20 21 20 23 | 20 19 ms
    assert measured["mean_tpot_ms"] == pytest.approx((63 / 3 + 84 / 4 + 39 / 2) / 3)
    assert set(measured) == {k for k in NAMES if k.endswith("_ms")}
    assert run([f"trace={result}"]) == 0
    assert "(run: the vllm bench serve result the trace came from, measured)" in capsys.readouterr().out


def test_a_sessions_trace_reports_hits_by_turn_and_aiperf_turns(capsys):
    sessions = Path(__file__).parents[1] / "data" / "traces" / "sessions_small.jsonl"
    report = _json(capsys, [f"trace={sessions}"])
    extras = report["engine_extras"]
    assert report["cached_tokens_total"] > 0 and extras["hit_rate_by_turn"][0] == 0.0  # a first turn has no history
    assert run([f"trace={sessions}"]) == 0
    text = capsys.readouterr().out
    assert "cache hit rate by turn: 0%, " in text and "KV held during tool waits:" in text
    assert run([f"trace={sessions}", "--format", "aiperf"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    turns = [(r["metadata"]["x_correlation_id"], r["metadata"]["turn_index"]) for r in records]
    assert len(set(turns)) == len(turns) == report["requests"]
    assert max(t for _, t in turns) >= 1  # later turns keep their session's correlation id


def test_hash_block_tokens_for_a_trace_without_hash_ids_exits_2(capsys, trace):
    assert run([f"trace={trace}", "hash_block_tokens=256"]) == 2
    assert capsys.readouterr().err.strip() == ("lab simulate serving: hash_block_tokens: a trace of format csv has no "
                                               "hash_ids; valid: only for Mooncake traces")
