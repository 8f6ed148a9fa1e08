"""`lab simulate rl`: registered as a simulation, bad input exit 2 naming the field, --out files."""
import csv
import json

import pytest

from lab.cli import main


def test_help_lists_the_keys(capsys):
    try:
        main(["simulate", "rl", "--help"])
    except SystemExit as stop:
        assert stop.code == 0
    text = capsys.readouterr().out
    assert "lab simulate rl" in text and "--staleness" in text and "step_time_s" in text


def test_bad_input_exits_2_naming_the_field(capsys):
    assert main(["simulate", "rl", "mode=async", "placement=colocated"]) == 2
    assert "mode:" in capsys.readouterr().err
    assert main(["simulate", "rl", "steps=100000", "prompts=512", "group=8"]) == 2
    assert "steps:" in capsys.readouterr().err


def test_out_writes_steps_and_samples(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["simulate", "rl", "steps=3", "--json", "--out", str(out)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["files"] == ["steps.csv", "samples.csv", "trace.json", "summary.json"]
    steps = list(csv.DictReader((out / "steps.csv").open()))
    samples = list(csv.DictReader((out / "samples.csv").open()))
    assert len(steps) == 3 and len(samples) == 3 * 32
    assert sum(int(r["kept"]) for r in steps) == report["kept_samples"] == 48
    assert float(steps[-1]["sync_end_s"]) == report["total_s"]
    events = json.loads((out / "trace.json").read_text())["traceEvents"]
    updates = [e for e in events if e["name"].startswith("update ")]
    assert [e["args"]["step"] for e in updates] == [0, 1, 2]
    assert updates[0]["ts"] == float(steps[0]["update_start_s"]) * 1e6


def test_trace_json_has_a_track_per_pool_and_disjoint_slices_in_async_mode(tmp_path, capsys):
    # Async batches overlap on a replica: Perfetto needs each thread's complete slices to
    # nest, so an overlapping batch takes the replica's next lane.
    out = tmp_path / "async"
    assert main(["simulate", "rl", "mode=async", "staleness=2", "steps=6", "lengths=pareto", "alpha=1.1",
                 "output_tokens=50", "max_tokens=4000", "prompts=4", "group=8", "rollout_replicas=2",
                 "--out", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    events = json.loads((out / "trace.json").read_text())["traceEvents"]
    pools = {e["args"]["name"] for e in events if e["name"] == "process_name"}
    assert pools == {"rollout pool", "trainer pool", "reward pool"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["name"] == "thread_name"}
    slices = [e for e in events if e["ph"] == "X"]
    assert all((e["pid"], e["tid"]) in threads for e in slices)
    by_thread: dict = {}
    for e in slices:
        by_thread.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    for spans in by_thread.values():
        spans.sort()
        # Disjoint (to a float's rounding of the µs): nothing to mis-nest.
        assert all(a[1] <= b[0] * (1 + 1e-15) for a, b in zip(spans, spans[1:]))
    assert any(" · " in name for name in threads.values())  # some batch did overlap its predecessor
    # A slice per stage per step on the trainer, ending where the run ends.
    for stage in ("reference", "update", "sync"):
        assert sorted(e["args"]["step"] for e in slices if e["name"].startswith(stage + " ")) == list(range(6))
    end = max(e["ts"] + e["dur"] for e in slices if e["pid"] == 2)
    assert end == pytest.approx(report["total_s"] * 1e6, rel=1e-12)
