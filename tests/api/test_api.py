"""loadlab, the Python API, against the CLI for the same inputs: the same summary, the
same tables as the --out files, the same refusals (field and message), and its worked
examples (the docstrings) run as they are written."""
import csv
import doctest
import importlib
import json

import numpy as np
import pyarrow.parquet as pq
import pytest

import loadlab
from core.serving import vllm_series as vs
from lab.cli import main
from loadlab import tables

SMALL = {"durations_s": 20, "rates_per_s": 2, "shares_long_input": 0.5}
SMALL_ARGV = ["durations_s=20", "rates_per_s=2", "shares_long_input=0.5"]
TIMING = {"wall_ms"}  # the replay's own run time: the one figure two runs never share


def _cli_json(capsys, argv):
    assert main(argv + ["--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _without(report, keys=TIMING):
    return {k: v for k, v in report.items() if k not in keys and k not in ("out", "files")}


def _column(tbl, name):
    return np.asarray(tbl[name].to_numpy() if hasattr(tbl[name], "to_numpy") else tbl[name], dtype=float)


@pytest.mark.parametrize("kw, argv", [
    (SMALL, SMALL_ARGV),
    # vLLM's names as keywords, dashes on the command line
    (dict(SMALL, max_num_batched_tokens=4096, max_num_seqs=32), SMALL_ARGV + ["--max-num-batched-tokens", "4096",
                                                                             "--max-num-seqs", "32"]),
    (dict(SMALL, replicas=2, router="least_kv", seeds=[0, 1]), SMALL_ARGV + ["replicas=2", "router=least_kv",
                                                                            "seeds=0,1"]),
    ({"scenario": "shift", "slo_ttft_ms": 2000.0}, ["scenario=shift", "slo_ttft_ms=2000"]),
])
def test_simulate_serving_is_the_cli(capsys, kw, argv):
    run = loadlab.simulate_serving(**kw)
    cli = _cli_json(capsys, ["simulate", "serving", *argv])
    assert _without(run.summary) == _without(cli)
    json.dumps(run.summary)  # JSON-ready as the CLI prints it


def _same_tables(run, out):
    """Every column of the --out files is in the API's tables, equal to the µs the files keep."""
    for name, table in (("requests.csv", run.requests), ("series.csv", run.series),
                        ("preemptions.csv", run.preemptions)):
        with open(out / name, encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            rows, header = list(reader), reader.fieldnames
        cols = table.column_names if hasattr(table, "column_names") else list(table.columns)
        assert set(header) <= set(cols), (name, set(header) - set(cols))
        for col in header:
            want = np.array([float(r[col]) if r[col] != "" else np.nan for r in rows])
            np.testing.assert_allclose(_column(table, col), want, atol=1e-6, err_msg=f"{name}:{col}")


def test_a_disaggregated_runs_transfer_columns(tmp_path, capsys):
    pytest.importorskip("core.serving.disagg.run")  # issue 15's pools (helper PD's)
    argv = ["pools=1P2D", "model=qwen3-8b", "hardware=h100-sxm", *SMALL_ARGV]
    assert main(["simulate", "serving", *argv, "--out", str(tmp_path / "pd")]) == 0
    capsys.readouterr()
    _same_tables(loadlab.simulate_serving(**dict(a.split("=") for a in argv)), tmp_path / "pd")


def test_tables_are_the_out_files_unrounded(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["simulate", "serving", "replicas=2", "--out", str(out)]) == 0
    capsys.readouterr()
    run = loadlab.simulate_serving(replicas=2)
    _same_tables(run, out)
    assert len(_column(run.preemptions, "request")) > 0  # the book's run preempts
    paths = run.to_parquet(tmp_path / "pq")
    back = pq.read_table(paths["series"])
    assert back.column_names == list(vs.COLUMNS)
    np.testing.assert_array_equal(back[vs.GENERATION].to_numpy(), _column(run.series, vs.GENERATION))
    files = run.save(tmp_path / "saved", prometheus=True)
    assert {"requests.csv", "series.csv", "trace.json", "metrics.prom", "summary.json"} <= set(files)
    assert run.prometheus() == (tmp_path / "saved" / "metrics.prom").read_text(encoding="utf-8")


def test_series_are_pyarrow_without_pandas(monkeypatch):
    import pyarrow as pa

    monkeypatch.setattr(tables, "has_pandas", lambda: False)  # as where pandas is not installed
    run = loadlab.simulate_serving(**SMALL)
    assert isinstance(run.series, pa.Table) and isinstance(run.requests, pa.Table)


def test_series_are_dataframes_with_pandas_holding_the_same_columns(monkeypatch):
    pd = pytest.importorskip("pandas")
    run = loadlab.simulate_serving(**SMALL)
    frames = {name: getattr(run, name) for name in ("series", "requests")}  # built when first read
    monkeypatch.setattr(tables, "has_pandas", lambda: False)
    without = loadlab.simulate_serving(**SMALL)
    for name, frame in frames.items():
        table = getattr(without, name)
        assert isinstance(frame, pd.DataFrame)
        assert list(frame.columns) == table.column_names and len(frame) == table.num_rows
        for column in table.column_names:
            np.testing.assert_array_equal(frame[column].to_numpy(), table[column].to_numpy(), err_msg=column)


@pytest.mark.parametrize("kw, argv", [
    ({"rates_per_s": [0, 0]}, ["rates_per_s=0,0"]),
    ({"kv_pool_bytes": "1MiB"}, ["kv_pool_bytes=1MiB"]),
    ({"max_num_seqs": 20000}, ["max_num_seqs=20000"]),
    ({"max_num_seq": 8}, ["max_num_seq=8"]),  # did you mean
    ({"scenario": "weekend"}, ["scenario=weekend"]),
    ({"prefix_caching": "maybe"}, ["prefix_caching=maybe"]),
])
def test_refusals_are_the_clis(capsys, kw, argv):
    with pytest.raises(loadlab.ParamError) as err:
        loadlab.simulate_serving(**kw)
    assert main(["simulate", "serving", *argv]) == 2
    line = capsys.readouterr().err.strip()
    assert line == f"lab simulate serving: {err.value}"
    assert isinstance(err.value, ValueError) and err.value.param == line.split(": ")[1]


def test_calc_is_the_cli(capsys):
    got = loadlab.calc("request.split", input_tokens=4096, requests=4)
    cli = _cli_json(capsys, ["calc", "request.split", "input_tokens=4096", "--requests", "4"])
    assert got.summary == {k: v for k, v in cli.items() if k in got.summary} and got.summary
    with pytest.raises(loadlab.ParamError) as err:
        loadlab.calc("request.split", input_tokn=1)
    assert main(["calc", "request.split", "input_tokn=1"]) == 2
    assert capsys.readouterr().err.strip() == f"lab calc request.split: {err.value}"


def test_sweep_is_the_cli(tmp_path, capsys):
    kw = dict(SMALL, max_num_seqs=[16, 64], seeds=[0, 1], slo_ttft_ms=5000)
    api = loadlab.sweep(**kw, workers=1)
    cli = _cli_json(capsys, ["sweep", "serving", *SMALL_ARGV, "max_num_seqs=16,64", "seeds=0,1", "slo_ttft_ms=5000",
                             "--workers", "1", "--out", str(tmp_path / "sw")])
    for key in ("points", "pareto", "cheapest_meeting_slo", "bands"):
        assert api.summary.get(key) == cli.get(key), key
    results = pq.read_table(tmp_path / "sw" / "results.parquet")
    for col in ("param.max_num_seqs", "seed", "p99_ttft_ms", "request_throughput"):
        np.testing.assert_array_equal(_column(api.points, col), results[col].to_numpy().astype(float))
    path = api.to_parquet(tmp_path / "api.parquet")
    assert pq.read_table(path).num_rows == 4


def test_calibrate_is_the_cli(tmp_path, capsys):
    from core.calibrate.synthetic import bench_result

    keys = {"model": "qwen3-8b", "hardware": "h100-sxm"}
    run = loadlab.simulate_serving(**keys, coef_step_s=0.0015, dataset="random", num_prompts=40, random_input_len=512,
                                   random_output_len=64, request_rate="inf", max_concurrency=8)
    path = tmp_path / "run.json"
    path.write_text(json.dumps(bench_result(run.result, run.workload, model_id="qwen3-8b", max_concurrency=8)))
    api = loadlab.calibrate(path, **keys, fit_keys=["coef_step_s"], bootstrap=2, seed=1)
    cli = _cli_json(capsys, ["calibrate", str(path), "model=qwen3-8b", "hardware=h100-sxm", "--fit-keys", "coef_step_s",
                             "--bootstrap", "2", "--seed", "1"])
    assert api.coefficients == cli["coefficients"] and api.summary["bands"] == cli["bands"]
    assert api.summary["per_run"] == cli["per_run"] and api.converged
    profile = api.save(tmp_path / "p.toml")
    again = loadlab.simulate_serving(trace=path, hardware=profile)
    assert again.summary["median_ttft_ms"] == pytest.approx(again.summary["measured"]["median_ttft_ms"], rel=1e-6)
    with pytest.raises(loadlab.ParamError) as err:
        loadlab.calibrate(path, model="qwen3-8b")
    assert err.value.param == "hardware"


def test_a_config_file_under_the_keywords(tmp_path, capsys):
    plan = tmp_path / "plan.toml"
    plan.write_text("durations_s = [20]\nrates_per_s = [2]\nshares_long_input = 0.5\nmax-num-seqs = 16\n")
    run = loadlab.simulate_serving(config=plan, max_num_seqs=32)
    cli = _cli_json(capsys, ["simulate", "serving", "--config", str(plan), "--max-num-seqs", "32"])
    assert _without(run.summary) == _without(cli)


@pytest.mark.parametrize("module", ["loadlab", "loadlab.serving", "loadlab.calc", "loadlab.sweeping",
                                    "loadlab.calibration"])
def test_the_worked_examples_run(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_simulate_voice_is_the_cli(capsys):
    api = loadlab.simulate_voice(rate=1, turns=50, seed=3)
    cli = _cli_json(capsys, ["simulate", "voice", "rate=1", "turns=50", "seed=3"])
    assert _without(api.summary, {"wall_ms"}) == _without(cli, {"wall_ms"})
    # one unit per JSON: every time in ms, as lab simulate serving's
    assert not [k for k in cli if k.endswith("_s")] and api.summary["reply_p50_ms"] == cli["reply_p50_ms"] > 0
    assert len(_column(api.turns, "silence_ms")) == 50
    np.testing.assert_allclose(np.percentile(_column(api.turns, "silence_ms"), 50), api.summary["silence_p50_ms"],
                               rtol=0.05)


def test_vllm_flags_as_keywords(capsys):
    off = loadlab.simulate_serving(**SMALL, enable_prefix_caching=False)
    assert off.summary["prefix_caching"] is False
    cli = _cli_json(capsys, ["simulate", "serving", *SMALL_ARGV, "--no-enable-prefix-caching"])
    assert _without(off.summary) == _without(cli)
    assert loadlab.simulate_serving(**SMALL, no_enable_prefix_caching=False).summary["prefix_caching"] is True


def test_the_json_view_undoes_to_the_flat_report():
    from lab.cli.report_units import flat, json_view
    from lab.cli.simulate import simulate_serving as flat_run

    report, _ = flat_run({"replicas": "2", "seeds": "0,1", "scenario": "shift"})
    view = json_view(report)
    assert "ttft_p95_s" not in view and view["book"]["band"] == report["band"]
    assert view["per_replica"][0]["book"]["ttft_p95_s"] == report["per_replica"][0]["ttft_p95_s"]
    back = flat(view)
    assert back.pop("wall_s") == pytest.approx(report["wall_s"], rel=1e-12)
    assert back == {k: v for k, v in report.items() if k != "wall_s"}


@pytest.mark.parametrize("kw, words", [
    ({"max_num_seqs": "a,b"}, ["max_num_seqs=a,b"]),
    ({"max_num_seq": 4}, ["max_num_seq=4"]),
])
def test_sweep_refusals_are_the_clis(tmp_path, capsys, kw, words):
    with pytest.raises(loadlab.ParamError) as err:
        loadlab.sweep(**kw, workers=1)
    assert main(["sweep", "serving", *words, "--out", str(tmp_path / "sw")]) == 2
    assert capsys.readouterr().err.strip() == f"lab sweep serving: {err.value}"


def test_loadlab_runs_without_qt():
    import subprocess
    import sys

    code = ("import sys, loadlab; loadlab.simulate_serving(durations_s=20, rates_per_s=2, shares_long_input=0.5)"
            "; print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'widgets')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_calibrate_refits_a_profile_from_the_config_the_cli_wrote(tmp_path, capsys):
    from pathlib import Path

    data = Path(__file__).resolve().parents[1] / "data" / "vllm_cpu"
    profile = tmp_path / "p.toml"
    assert main(["calibrate", str(data / "low.json"), str(data / "medium.json"), "model=qwen3-8b", "hardware=h200",
                 "--fit-keys", "coef_step_s,coef_seq_s", "--bootstrap", "2", "--seed", "4", "--json",
                 "--out", str(profile)]) == 0
    cli = json.loads(capsys.readouterr().out)
    api = loadlab.calibrate(config=tmp_path / "p.config.toml")
    assert api.coefficients == cli["coefficients"] and api.summary["bands"] == cli["bands"]
    assert api.summary["fit_keys"] == ["coef_step_s", "coef_seq_s"] and len(api.summary["per_run"]) == 2
    assert api.save(tmp_path / "q.toml") and (tmp_path / "q.toml").read_bytes() == profile.read_bytes()
    with pytest.raises(loadlab.ParamError) as err:
        loadlab.calibrate(config=tmp_path / "p.config.toml", bootstrap=-1)
    assert err.value.param == "bootstrap" and "[0, 1000]" in str(err.value)


@pytest.mark.parametrize("name", ["serving.decode_rat", "zzzz"])
def test_a_misspelt_calculator_is_refused_as_the_cli_does(capsys, name):
    with pytest.raises(loadlab.ParamError) as err:
        loadlab.calc(name)
    assert main(["calc", name]) == 2
    assert capsys.readouterr().err.strip() == f"lab calc: {err.value}"
    assert ("did you mean serving.decode_rate?" in str(err.value)) == (name == "serving.decode_rat")
