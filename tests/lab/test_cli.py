import json
import os
import subprocess
import sys

import pytest

from lab.cli import main


def run_lab(*args, env=None):
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "lab", *args], capture_output=True, text=True, env=full_env,
                          timeout=120)


def test_list_json_has_parameters_with_ranges(capsys):
    assert main(["list", "--json"]) == 0
    calcs = {c["name"]: c for c in json.loads(capsys.readouterr().out)}
    split = calcs["request.split"]
    requests = next(p for p in split["params"] if p["name"] == "requests")
    assert (requests["unit"], requests["default"], requests["min"], requests["max"]) == ("requests", 8, 1, 100000)
    assert {o["name"] for o in split["outputs"]} >= {"weight_read_rounds", "decode_steps_total"}


def test_calc_json_is_base_units(capsys):
    assert main(["calc", "state.area", "wait_s=5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mean_occupancy_bytes"] == 10 * 1024**3
    assert out["mean_waiting_tasks"] == 10


def test_calc_accepts_lists_and_suffixes(capsys):
    assert main(["calc", "metrics.percentile", "values=" + ",".join(map(str, range(1, 481))), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"rank": 456, "value": 456.0, "n": 480}
    assert main(["calc", "state.area", "state_bytes=2GiB", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["mean_occupancy_bytes"] == 40 * 1024**3


def test_zero_success_json_has_null_not_inf(capsys):
    assert main(["calc", "cost.success", "successes=0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["cost_per_success"] is None and out["failures"] == 100


@pytest.mark.parametrize("args,field", [
    (["calc", "request.anatomy", "output_tokens=-3"], "output_tokens"),
    (["calc", "request.split", "requests=3"], "output_tokens_total"),
    (["calc", "metrics.percentile", "q=2"], "q"),
    (["calc", "state.area", "arrival_rate_per_s=0"], "arrival_rate_per_s"),
    (["calc", "no.such"], "NAME"),
    (["calc", "state.area", "wait_s"], "key=value"),
])
def test_invalid_input_exits_2_with_one_line(args, field, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert field in err and "\n" not in err


def test_invalid_input_through_the_console_entry_point():
    proc = run_lab("calc", "request.anatomy", "input_tokens=abc")
    assert proc.returncode == 2
    assert "input_tokens" in proc.stderr and "valid:" in proc.stderr


def test_verify_passes_and_shows_book_beside_computed(capsys):
    assert main(["verify"]) == 0
    text = capsys.readouterr().out
    assert "1 GiB 状态占用 10 秒 = 10 GiB·s" in text
    assert " 0 failed" in text


def test_verify_json(capsys):
    assert main(["verify", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["failed"] == 0 and report["passed"] == len(report["rows"]) > 20
    row = next(r for r in report["rows"] if r["output"] == "rank" and r["book"] == 456)
    assert row["computed"] == 456 and row["ok"]


def test_gui_without_display_says_so():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    proc = subprocess.run([sys.executable, "-m", "lab"], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 1
    assert "no display" in proc.stderr and "lab snapshot" in proc.stderr and "lab verify" in proc.stderr


def test_snapshot_writes_a_real_png(tmp_path):
    out = tmp_path / "request.png"
    proc = run_lab("snapshot", "request", "--out", str(out), "--size", "1200x900",
                   env={"QT_QPA_PLATFORM": "offscreen"})
    assert proc.returncode == 0, proc.stderr
    from PIL import Image

    with Image.open(out) as img:
        assert img.size == (1200, 900)
        colours = img.convert("RGB").getcolors(maxcolors=1_000_000)
        assert colours is None or len(colours) > 50  # a drawn panel, not a blank frame


def test_snapshot_refuses_bad_size_and_panel(capsys):
    assert main(["snapshot", "request", "--out", "x.png", "--size", "12x"]) == 2
    assert "--size" in capsys.readouterr().err
    assert main(["snapshot", "nope", "--out", "x.png"]) == 2
    assert "PANEL" in capsys.readouterr().err


def test_snapshot_to_an_unwritable_path_exits_2(tmp_path):
    proc = run_lab("snapshot", "request", "--out", str(tmp_path / "no" / "such" / "dir.png"),
                   env={"QT_QPA_PLATFORM": "offscreen"})
    assert proc.returncode == 2 and "--out" in proc.stderr
