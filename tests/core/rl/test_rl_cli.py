"""`lab simulate rl`: registered as a simulation, bad input exit 2 naming the field, --out files."""
import csv
import json

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
    assert report["files"] == ["steps.csv", "samples.csv", "timeline.json", "summary.json"]
    steps = list(csv.DictReader((out / "steps.csv").open()))
    samples = list(csv.DictReader((out / "samples.csv").open()))
    assert len(steps) == 3 and len(samples) == 3 * 32
    assert sum(int(r["kept"]) for r in steps) == report["kept_samples"] == 48
    assert float(steps[-1]["sync_end_s"]) == report["total_s"]
    events = json.loads((out / "timeline.json").read_text())["traceEvents"]
    updates = [e for e in events if e["name"].startswith("update ")]
    assert [e["args"]["step"] for e in updates] == [0, 1, 2]
    assert updates[0]["ts"] == float(steps[0]["update_start_s"]) * 1e6
