"""core.sweep.store and summary: the folder of a sweep is resumable and refuses another
sweep; results.csv and results.parquet hold the same rows, floats exactly; the summary's
Pareto set and cheapest setting."""
import csv
import json

import pytest

from core.registry import ParamError
from core.sweep.executors import InProcess
from core.sweep.run import parse_sweep, run_sweep
from core.sweep.store import POINTS_FILE, Store
from core.sweep.summary import pareto

BASE = {"durations_s": "20", "rates_per_s": "3", "shares_long_input": "0.5"}


def test_extending_an_axis_reuses_and_another_sweep_is_refused(tmp_path):
    first = run_sweep(parse_sweep("serving", dict(BASE, max_num_seqs="16,32")), str(tmp_path), InProcess())
    assert first["points"]["computed"] == 2
    more = run_sweep(parse_sweep("serving", dict(BASE, max_num_seqs="16,32,64")), str(tmp_path), InProcess())
    assert more["points"] == {"total": 3, "done": 3, "reused": 2, "computed": 1, "left": 0, "refused": 0}
    other = parse_sweep("serving", dict(BASE, max_num_seqs="16,32", token_budget="4096"))
    with pytest.raises(ParamError) as err:
        run_sweep(other, str(tmp_path), InProcess())
    assert err.value.param == "--out" and "--force" in str(err.value) and "fixed keys" in str(err.value)
    forced = run_sweep(other, str(tmp_path), InProcess(), force=True)
    assert forced["points"]["computed"] == 2  # another token budget: new points


def test_a_torn_last_line_is_skipped_and_the_point_recomputed(tmp_path):
    spec = parse_sweep("serving", dict(BASE, max_num_seqs="16,32"))
    run_sweep(spec, str(tmp_path), InProcess())
    lines = (tmp_path / POINTS_FILE).read_text().splitlines(keepends=True)
    (tmp_path / POINTS_FILE).write_text(lines[0] + lines[1][: len(lines[1]) // 2])  # a crash mid-write
    again = run_sweep(spec, str(tmp_path), InProcess())
    assert again["points"]["reused"] == 1 and again["points"]["computed"] == 1
    assert len(Store(tmp_path, spec).load()) == 2


def test_csv_and_parquet_hold_the_rows_exactly(tmp_path):
    import pyarrow.parquet as pq

    rows = []
    run_sweep(parse_sweep("serving", dict(BASE, max_num_seqs="16,32", seeds="0-1", arrival="poisson")), str(tmp_path),
              InProcess(), on_row=rows.append)
    table = pq.read_table(tmp_path / "results.parquet").to_pylist()
    with open(tmp_path / "results.csv", newline="") as fh:
        text = list(csv.DictReader(fh))
    assert len(rows) == len(table) == len(text) == 4
    for row, back, cells in zip(rows, table, text):
        assert back == row
        for name in ("p99_ttft_ms", "ttft_p95_s", "mean_tpot_ms", "wall_s"):
            assert float(cells[name]) == row[name]  # repr: the same float back
        assert json.loads(cells["percentiles"]) == json.loads(row["percentiles"])


def test_seed_bands_and_no_slo_note(tmp_path):
    summary = run_sweep(parse_sweep("serving", dict(BASE, max_num_seqs="16,64", seeds="0-2", arrival="poisson")),
                        None, InProcess())
    assert len(summary["bands"]) == 2
    band = summary["bands"][0]["metrics"]["p99_ttft_ms"]
    assert band["min"] <= band["median"] <= band["max"] and band["min"] < band["max"]  # seeds differ
    assert summary["cheapest_meeting_slo"] is None and "no SLO given" in summary["cheapest_note"]


def test_slos_no_point_meets_are_a_note_not_an_error():
    summary = run_sweep(parse_sweep("serving", dict(BASE, max_num_seqs="16,64", slo_ttft_ms="0.001")), None, InProcess())
    assert summary["cheapest_meeting_slo"] is None and "no setting meets the SLOs" in summary["cheapest_note"]


def test_pareto_keeps_the_non_dominated():
    items = [{"p99_ttft_ms": x, "cost_per_million_output_tokens": y, "n": i}
             for i, (x, y) in enumerate([(1, 9), (2, 5), (3, 5), (4, 1), (2, 7), (5, 2), (None, 0)])]
    assert [i["n"] for i in pareto(items)] == [0, 1, 3]


def test_ctrl_c_keeps_the_finished_points_and_writes_the_results(tmp_path):
    spec = parse_sweep("serving", dict(BASE, max_num_seqs="8,16,32"))
    seen = []

    def on_row(row):
        seen.append(row)
        if len(seen) == 2:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        run_sweep(spec, str(tmp_path), InProcess(), on_row=on_row)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["points"]["done"] == 2 and summary["points"]["left"] == 1
    assert len(Store(tmp_path, spec).load()) == 2


def test_a_moved_trace_is_the_same_sweep(tmp_path):
    trace = tmp_path / "a.csv"
    trace.write_text("arrival_s,input_tokens,output_tokens\n" + "".join(f"{i * 0.3:.1f},{500 + i},30\n" for i in range(20)))
    out = tmp_path / "out"
    first = run_sweep(parse_sweep("serving", {"trace": str(trace), "max_num_seqs": "4,8"}), str(out), InProcess())
    moved = trace.rename(tmp_path / "b.csv")
    again = run_sweep(parse_sweep("serving", {"trace": str(moved), "max_num_seqs": "4,8"}), str(out), InProcess())
    assert first["points"]["computed"] == 2 and again["points"]["reused"] == 2
    moved.write_text(moved.read_text().replace(",30\n", ",31\n"))  # edited: another trace
    with pytest.raises(ParamError, match="trace content"):
        run_sweep(parse_sweep("serving", {"trace": str(moved), "max_num_seqs": "4,8"}), str(out), InProcess())


def test_one_sweep_writes_a_folder_at_a_time(tmp_path):
    spec = parse_sweep("serving", dict(BASE, max_num_seqs="16"))
    holder = Store(tmp_path, spec)
    with pytest.raises(ParamError, match="another sweep is writing"):
        run_sweep(spec, str(tmp_path), InProcess())
    holder.release()
    assert run_sweep(spec, str(tmp_path), InProcess())["points"]["computed"] == 1
    assert run_sweep(spec, str(tmp_path), InProcess())["points"]["reused"] == 1  # released after each run
