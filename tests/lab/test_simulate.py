"""`lab simulate serving`: headless replay, CSV output, exit code 2 on bad input."""
import csv
import json

import pytest

from lab.cli import main


def run_simulation(kind, argv):
    """`lab simulate KIND ...` through the one command-line parser."""
    return main(["simulate", kind, *argv])


def _json(capsys, argv):
    assert run_simulation("serving", argv + ["--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_default_run_is_the_books_uniform_replay(capsys):
    report = _json(capsys, [])
    assert report["requests"] == 480
    assert report["decode_steps_total"] == 552480
    assert report["book"]["observed"]["scenario"] == "uniform"  # the book's figures under book (seconds)
    assert report["book"]["observed"]["ttft_p95_s"] == 242.9
    assert report["book"]["ttft_p95_s"] == pytest.approx(242.9, rel=0.10)


def test_scenario_shift_and_key_values(capsys):
    report = _json(capsys, ["scenario=shift"])
    assert report["book"]["observed"]["scenario"] == "shift"
    smaller = _json(capsys, ["max_num_seqs=32", "kv_pool_bytes=12GiB"])
    assert "observed" not in smaller["book"]  # not one of the book's runs any more
    assert smaller["kv_pool_blocks"] == 5461


def test_text_output_shows_book_beside_simulated(capsys):
    assert run_simulation("serving", ["scenario=uniform"]) == 0
    text = capsys.readouterr().out
    assert "book (vLLM)" in text and "242.9 s" in text and "ttft_p95_s" in text


def test_out_writes_requests_and_series(tmp_path, capsys):
    out = tmp_path / "run"
    assert run_simulation("serving", ["durations_s=20", "rates_per_s=2", "shares_long_input=0.5", "--out", str(out)]) == 0
    with open(out / "requests.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 40
    assert all(float(r["finish_s"]) >= float(r["first_token_s"]) >= float(r["arrival_s"]) for r in rows)
    with open(out / "series.csv") as fh:
        series = list(csv.DictReader(fh))
    assert len(series) > 10 and set(series[0]) >= {"t_s", "vllm:num_requests_waiting", "vllm:num_requests_running",
                                                   "vllm:kv_cache_usage_perc"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["requests"] == 40


def test_trace_and_seeds(tmp_path, capsys):
    trace = tmp_path / "t.csv"
    trace.write_text("arrival_s,input_tokens,output_tokens\n" + "".join(f"{i * 0.1},{200 + i},{20}\n" for i in range(50)))
    report = _json(capsys, [f"trace={trace}"])
    assert report["requests"] == 50 and report["source"].startswith("trace")
    band = _json(capsys, ["arrival=poisson", "durations_s=30", "rates_per_s=2", "shares_long_input=0.5", "seeds=1,2,3"])
    lo, mid, hi = (band["book"]["band"]["ttft_p95_s"][k] for k in ("min", "median", "max"))
    assert lo <= mid <= hi


@pytest.mark.parametrize("argv, field", [
    (["rates_per_s=0,0"], "rates_per_s"),
    (["kv_pool_bytes=1MiB"], "kv_pool_bytes"),
    (["max_num_seqs=20000"], "max_num_seqs"),
    (["colour=red"], "colour"),
    (["scenario=weekend"], "scenario"),
    (["seeds=a,b"], "seeds"),
    (["nonsense"], "nonsense"),
])
def test_bad_input_exit_2_one_line(capsys, argv, field):
    assert run_simulation("serving", argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert err.startswith(f"lab simulate serving: {field}:")


def test_bad_trace_and_unknown_kind(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("when,input_tokens,output_tokens\n1,2,3\n")
    assert run_simulation("serving", [f"trace={bad}"]) == 2
    assert "unknown column 'when'" in capsys.readouterr().err
    assert run_simulation("weather", []) == 2
    assert "valid: serving" in capsys.readouterr().err


def test_cli_forwards_to_simulate(capsys):
    assert main(["simulate", "serving", "durations_s=10", "rates_per_s=1", "shares_long_input=0.5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["requests"] == 10


def test_key_value_and_options_mix(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["--durations_s", "10s", "rates_per_s=1", "--shares_long_input=0.5", "--out", str(out), "--json"]
    assert run_simulation("serving", argv) == 0
    assert json.loads(capsys.readouterr().out)["requests"] == 10
    assert (out / "summary.json").exists()
    assert run_simulation("serving", ["--scenario", "shift", "durations_s=1min,60000ms", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["book"]["observed"]["scenario"] == "shift"


def test_bad_seeds_are_refused_before_the_run(capsys, monkeypatch):
    from core.serving import replay as rp

    def no_run(*args, **kwargs):
        raise AssertionError("the replay ran before its input was checked")

    monkeypatch.setattr(rp, "run_replay", no_run)
    assert run_simulation("serving", ["seeds=1.5"]) == 2
    assert capsys.readouterr().err.startswith("lab simulate serving: seeds:")


def test_simulate_help_lists_the_replay_parameters_and_its_own(capsys):
    assert main(["simulate", "serving", "--help"]) == 0
    text = capsys.readouterr().out
    for option in ("--kv_pool_bytes", "--max_num_seqs", "--durations_s", "--seeds", "--scenario", "--trace",
                   "--out", "--json"):
        assert option in text
    assert "default 25769803776 (24 GiB)" in text and "ttft_p95_s" in text
    assert main(["simulate", "--help"]) == 0
    assert "serving" in capsys.readouterr().out
