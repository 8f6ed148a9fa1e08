"""`lab sweep serving`: a row equals `lab simulate serving --json` for the same values (bit
for bit, wall_s aside), resume computes only new points, a capacity search brackets the
SLO, and bad input ends with exit 2 and one line naming the key."""
import json
import math
import subprocess
import sys

import pytest

from lab.cli import main
from lab.cli.report_units import flat

SMALL = ["durations_s=20", "rates_per_s=3", "shares_long_input=0.5"]


def sweep(capsys, args, out):
    code = main(["sweep", "serving", *args, "--out", str(out), "--json", "--workers", "1"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def simulate(capsys, args):
    assert main(["simulate", "serving", *args, "--json"]) == 0
    return flat(json.loads(capsys.readouterr().out))  # a row keeps the report's flat names (report_units)


def rows_of(out):
    return [json.loads(line)["row"] for line in (out / "points.jsonl").read_text().splitlines()]


def same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b and type(a) is type(b)


def assert_row_is_the_report(row, report):
    for key, value in report.items():
        if key == "wall_s":
            continue
        cell = row[key]
        got = json.loads(cell) if isinstance(value, (dict, list)) else cell
        assert same(got, value), (key, got, value)


def test_rows_equal_lab_simulate_serving(tmp_path, capsys):
    summary = sweep(capsys, SMALL + ["max_num_seqs=16,64", "token_budget=2048:8192:6144", "slo_ttft_ms=5000",
                                     "arrival=poisson", "seeds=3,5"], tmp_path)
    assert summary["points"]["done"] == 8
    rows = rows_of(tmp_path)
    assert sorted({r["seed"] for r in rows}) == [3, 5]
    for row in rows:
        args = SMALL + [f"max_num_seqs={row['param.max_num_seqs']}", f"token_budget={row['param.token_budget']}",
                        "slo_ttft_ms=5000", "arrival=poisson", f"seed={row['seed']}"]
        assert_row_is_the_report(row, simulate(capsys, args))
        assert 0.0 <= row["slo_attainment"] <= 1.0 and "wall_s" in row


def test_trace_rows_equal_lab_simulate_serving_per_time_scale(tmp_path, capsys):
    trace = tmp_path / "t.csv"
    trace.write_text("arrival_s,input_tokens,output_tokens\n"
                     + "".join(f"{i * 0.37:.2f},{300 + 17 * i},{40 + i % 9}\n" for i in range(60)))
    out = tmp_path / "sweep"
    sweep(capsys, [f"trace={trace}", "time_scale=1,4", "max_num_seqs=8"], out)
    rows = rows_of(out)
    assert sorted(r["requests"] for r in rows) == [60, 60]
    assert sorted(r["param.time_scale"] for r in rows) == [1.0, 4.0]
    for row in rows:
        report = simulate(capsys, [f"trace={trace}", f"time_scale={row['param.time_scale']!r}", "max_num_seqs=8"])
        assert_row_is_the_report(row, report)


def test_resume_computes_only_new_points(tmp_path, capsys):
    first = sweep(capsys, SMALL + ["max_num_seqs=16,32"], tmp_path)
    assert (first["points"]["reused"], first["points"]["computed"]) == (0, 2)
    again = sweep(capsys, SMALL + ["max_num_seqs=16,32,64"], tmp_path)
    assert (again["points"]["reused"], again["points"]["computed"]) == (2, 1)
    assert len(rows_of(tmp_path)) == 3  # appended, not rewritten


def test_capacity_search_brackets_the_slo(tmp_path, capsys):
    summary = sweep(capsys, ["max_num_seqs=64", "search=max_rate", "slo_ttft_ms=2000", "tolerance=0.05"], tmp_path)
    (cap,) = summary["capacity"]
    (row,) = rows_of(tmp_path)
    assert row["slo_attainment"] >= 0.9 and not cap["capped"]
    m, upper = row["search.max_rate_multiplier"], row["search.upper_multiplier"]
    assert (upper - m) / m <= 0.05
    assert cap["search.max_rate_per_s"] == pytest.approx(4.0 * m)  # the book's 4 req/s, scaled
    failing = simulate(capsys, [f"rates_per_s={4.0 * upper!r},{4.0 * upper!r}", "slo_ttft_ms=2000"])
    assert failing["request_goodput"] * failing["duration"] < 0.9 * failing["requests"]  # the rate above fails
    assert summary["cheapest_meeting_slo"]["values"] == {}
    assert row["search.replays"] >= 4


@pytest.mark.parametrize("args, field, words", [
    (["max_num_seq=16,32"], "max_num_seq", "valid: seeds, search"),
    (["token_budget=8192:2048:1024"], "token_budget", "empty range"),
    (["max_num_seqs=1:8:0"], "max_num_seqs", "step 0"),
    (["seeds=7-0"], "seeds", "descending"),
    (["max_num_seqs=0,16"], "max_num_seqs", "valid:"),
    (["search=max_rate"], "search", "needs an SLO"),
    (["--engine", "spark"], "--engine", "valid: local, ray"),
    (["--workers", "0"], "--workers", "valid:"),
])
def test_bad_input_exits_2_naming_the_key(tmp_path, capsys, args, field, words):
    code = main(["sweep", "serving", *SMALL, *args, "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"lab sweep serving: {field}: ") and words in err, err
    assert not (tmp_path / "x" / "points.jsonl").exists()


def test_out_is_required_and_another_sweep_needs_force(tmp_path, capsys):
    assert main(["sweep", "serving", *SMALL]) == 2
    assert "--out: required" in capsys.readouterr().err
    sweep(capsys, SMALL + ["max_num_seqs=16"], tmp_path)
    assert main(["sweep", "serving", *SMALL, "max_num_seqs=16", "block_size=32", "--out", str(tmp_path)]) == 2
    assert "holds another sweep" in capsys.readouterr().err
    forced = sweep(capsys, SMALL + ["max_num_seqs=16", "block_size=32", "--force"], tmp_path)
    assert forced["points"]["computed"] == 1


def test_text_summary(tmp_path, capsys):
    assert main(["sweep", "serving", *SMALL, "max_num_seqs=16,64", "slo_ttft_ms=0.01", "--out", str(tmp_path),
                 "--workers", "1"]) == 0
    text = capsys.readouterr().out
    assert "2 of 2 points (0 reused, 2 computed)" in text
    assert "cheapest meeting the SLOs: none" in text and "no setting meets the SLOs" in text


def test_capacity_search_on_a_trace_scales_its_time_axis(tmp_path, capsys):
    trace = tmp_path / "t.csv"
    trace.write_text("arrival_s,input_tokens,output_tokens\n"
                     + "".join(f"{i * 0.5:.2f},{2000 + 37 * i},{60 + i % 7}\n" for i in range(80)))
    out = tmp_path / "sweep"
    summary = sweep(capsys, [f"trace={trace}", "max_num_seqs=4,32", "search=max_rate", "slo_ttft_ms=1500"], out)
    rows = {r["param.max_num_seqs"]: r for r in rows_of(out)}
    for row in rows.values():
        m = row["search.max_rate_multiplier"]
        report = simulate(capsys, [f"trace={trace}", f"time_scale={m!r}", f"max_num_seqs={row['param.max_num_seqs']}",
                                   "slo_ttft_ms=1500"])
        assert_row_is_the_report(row, report)  # the row is the replay at the rate found
        assert row["search.max_rate_per_s"] == pytest.approx(80 / (79 * 0.5 / m))
    assert rows[32]["search.max_rate_multiplier"] >= rows[4]["search.max_rate_multiplier"]  # more seats, more rate
    assert len(summary["capacity"]) == 2


def test_progress_bar_on_a_terminal_only(tmp_path, capsys, monkeypatch):
    import io
    import sys

    class Terminal(io.StringIO):
        def isatty(self):
            return True
    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    assert main(["sweep", "serving", *SMALL, "max_num_seqs=16,32", "--out", str(tmp_path), "--workers", "1"]) == 0
    assert "2/2" in term.getvalue() and "pt/s" in term.getvalue()  # tqdm: count and rate
    monkeypatch.undo()
    assert main(["sweep", "serving", *SMALL, "max_num_seqs=16,32", "--out", str(tmp_path), "--json"]) == 0
    assert capsys.readouterr().err == ""  # a pipe gets no bar


def test_a_point_the_replay_refuses_is_a_row_with_its_error(tmp_path, capsys):
    trace = tmp_path / "t.csv"
    trace.write_text("arrival_s,input_tokens,output_tokens\n" + "".join(f"{i * 0.5:.1f},{20000 + i},50\n" for i in range(20)))
    code = main(["simulate", "serving", f"trace={trace}", "kv_pool_bytes=2GB", "--json"])
    expected = capsys.readouterr().err.strip().split(": ", 1)[1]
    assert code == 2
    summary = sweep(capsys, [f"trace={trace}", "kv_pool_bytes=2GB,24GiB"], tmp_path / "out")
    assert summary["points"]["refused"] == 1 and summary["points"]["done"] == 2
    (refused,) = summary["refused"]
    assert refused["values"] == {"kv_pool_bytes": "2GB"} and refused["error"] == expected
    rows = {r["param.kv_pool_bytes"]: r for r in rows_of(tmp_path / "out")}
    assert "p99_ttft_ms" not in rows[2e9] and rows[24 * 2**30]["requests"] == 20


def test_a_search_on_a_setting_the_replay_refuses_keeps_the_reason(tmp_path, capsys):
    trace = tmp_path / "t.csv"
    trace.write_text("arrival_s,input_tokens,output_tokens\n" + "".join(f"{i * 0.5:.1f},{20000 + i},50\n" for i in range(20)))
    summary = sweep(capsys, [f"trace={trace}", "kv_pool_bytes=2GB,24GiB", "search=max_rate", "slo_ttft_ms=60000"],
                    tmp_path / "out")
    (refused,) = summary["refused"]
    assert refused["values"] == {"kv_pool_bytes": "2GB"} and refused["error"].startswith("kv_pool_bytes: ")
    (found,) = [c for c in summary["capacity"] if c["values"] == {"kv_pool_bytes": "24GiB"}]
    assert found["search.max_rate_per_s"] > 0


def test_ctrl_c_keeps_finished_points_in_a_real_process(tmp_path, capsys):
    """SIGINT to a running `lab sweep` (waiting on its progress bar through a pseudo-terminal,
    not on a clock): exit 130, the finished points kept, a rerun computes only the rest."""
    import fcntl
    import os
    import pty
    import re
    import select
    import signal
    import struct
    import subprocess
    import sys
    import termios
    from pathlib import Path

    root = Path(__file__).absolute().parents[2]
    out = tmp_path / "out"
    # Points of 9,000 requests (about 0.1 s each): SMALL's take about a millisecond, and all 16
    # could be done before the signal lands.
    args = ["durations_s=3000", "rates_per_s=3", "shares_long_input=0.5", "max_num_seqs=8:64:8",
            "token_budget=2048,8192"]
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a terminal 100 columns wide
    proc = subprocess.Popen([sys.executable, "-m", "lab", "sweep", "serving", *args, "--out", str(out), "--workers", "2"],
                            cwd=root, env=dict(os.environ, PYTHONPATH=str(root)), stdout=subprocess.PIPE,
                            stderr=slave, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    os.close(slave)
    seen = b""
    while not re.search(rb"\b([1-9]|1[0-5])/16\b", seen):  # tqdm's count: a point has finished, not all
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the process closed the terminal (it ended)
            chunk = b""
        assert chunk, (seen, proc.wait(), proc.stdout.read())
        seen += chunk
    proc.send_signal(signal.SIGINT)
    # Read the terminal to its end (a writer to a full terminal would wait for us), for at
    # most as long as the process may take to stop.
    while select.select([master], [], [], 120)[0]:
        try:
            if not os.read(master, 4096):
                break
        except OSError:  # EIO: the process closed the terminal (it ended)
            break
    assert proc.wait(timeout=120) == 130
    os.close(master)
    kept = len((out / "points.jsonl").read_text().splitlines())
    summary = json.loads((out / "summary.json").read_text())
    assert 1 <= kept < 16 and summary["points"]["done"] == kept and summary["points"]["left"] == 16 - kept
    again = sweep(capsys, args, out)
    assert (again["points"]["reused"], again["points"]["computed"]) == (kept, 16 - kept)


def test_a_misspelt_sweep_key_gets_did_you_mean(tmp_path):
    done = subprocess.run([sys.executable, "-m", "lab", "sweep", "serving", "max_num_seq=1,2", "--out", str(tmp_path / "s")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "max_num_seq: did you mean max_num_seqs=?" in done.stderr
