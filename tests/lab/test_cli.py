import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from core.registry import get, registry
from lab.cli import EXIT_MISMATCH, EXIT_NO_DISPLAY, EXIT_USAGE, main


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
    assert proc.returncode == 3  # its own code: 1 is a verify mismatch
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


def test_version(capsys):
    from lab import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"lab {__version__}"


@pytest.mark.parametrize("name", registry().names())
def test_calc_help_lists_every_parameter_and_output(name, capsys):
    assert main(["calc", name, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    calc = get(name)
    for p in calc.params:
        assert f"--{p.name}" in text
        assert " ".join(p.help.split()) in text and " ".join(p.range_text().split()) in text
        if p.unit and p.kind not in ("choice", "bool"):
            assert f"[{p.unit}]" in text
        assert "; default " in text
    for o in calc.outputs:
        assert f"{o.name} [{o.unit or '-'}]" in text


def test_calc_help_shows_defaults_exactly(capsys):
    assert main(["calc", "serving.decode_rate", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--cards N" in text and "default 2;" in text
    assert "default 15136811008 (" in text  # not 1.51368e+10
    assert "times ns, us, µs, ms, s, min, h" in text and "KiB" in text  # the epilog names every suffix family


def test_calc_takes_key_value_and_dash_dash_key(capsys):
    results = []
    for argv in (["cards=3"], ["--cards", "3"], ["--cards=3"], ["--cards", "3", "weights_bytes=15136811008"],
                 ["weights_bytes=15136811008", "--cards", "3"]):
        assert main(["calc", "serving.decode_rate", *argv, "--json"]) == 0, argv
        results.append(json.loads(capsys.readouterr().out))
    assert all(r == results[0] for r in results)
    assert main(["calc", "serving.decode_rate", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["steps_per_s"] * 1.5 == pytest.approx(results[0]["steps_per_s"])


@pytest.mark.parametrize("args,field,also", [
    (["calc", "serving.decode_rate", "--colour", "red"], "colour", "valid: weights_bytes"),
    (["calc", "serving.decode_rate", "--cards"], "--cards", "expected one argument"),
    (["calc", "serving.decode_rate", "--cards=-3"], "cards", "valid: a whole number [1, 100000] cards"),
    (["calc", "serving.decode_rate", "weights_bytes=40ms"], "weights_bytes", "'40ms' is a time, not a size in bytes"),
    (["calc", "serving.decode_rate", "cards=1GiB"], "cards", "'1GiB' is a size in bytes, not a count"),
    (["calc", "serving.decode_rate", "--cards", "2s"], "cards", "'2s' is a time, not a count"),
    (["calc", "agent.amdahl", "speedup=1,5"], "speedup", "has a comma"),
    (["calc", "request.split", "requests=" + "9" * 400], "requests", "is too large"),
    (["calc", "request.split", "requests=nan"], "requests", "is not a number"),
    (["calc", "audio.timeline", "chunk_ms=3k"], "chunk_ms", "'3k' is a count, not a time"),
    (["calc"], "NAME", "required"),
    (["list", "--bogus"], "--bogus", "unknown option"),
    (["frobnicate"], "command", "valid: gui, list, calc, verify, simulate, snapshot"),
    (["simulate", "weather"], "KIND", "valid: serving"),
])
def test_bad_input_exits_2_naming_the_field_and_what_is_valid(args, field, also, capsys):
    assert main(args) == EXIT_USAGE
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f" {field}: " in err and also in err and "valid:" in err


def test_durations_and_counts_take_their_suffixes(capsys):
    def outputs(*argv):
        assert main(["calc", *argv, "--json"]) == 0, argv
        return json.loads(capsys.readouterr().out)

    book = outputs("audio.timeline")
    assert outputs("audio.timeline", "chunk_ms=20ms") == book
    assert outputs("audio.timeline", "--chunk_ms", "0.02s") == book
    assert outputs("audio.timeline", "process_ms=12000us", "send_ms=1000000ns") == book
    assert outputs("state.area", "wait_s=2min") == outputs("state.area", "wait_s=120")
    assert outputs("state.area", "wait_s=1h") == outputs("state.area", "wait_s=3600")
    assert outputs("request.anatomy", "input_tokens=4k") == outputs("request.anatomy", "input_tokens=4000")


def test_snapshot_list_needs_no_panel(capsys, monkeypatch):
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert main(["snapshot", "--list"]) == 0
    keys = capsys.readouterr().out.split()
    assert keys[0] == "main" and "request" in keys and "serving" in keys
    assert main(["snapshot"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "PANEL" in err and "valid: main, request" in err


def test_no_display_is_exit_3_not_the_mismatch_code(capsys, monkeypatch):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    assert main(["gui"]) == EXIT_NO_DISPLAY == 3
    assert main([]) == 3
    assert "no display" in capsys.readouterr().err


def test_a_mismatch_is_exit_1(capsys, monkeypatch):
    import core.verify

    row = SimpleNamespace(calculator="x.y", output="z", book_value=1, computed=2, tolerance_text="1e-09 rel",
                          ok=False, printed="1", params={}, derived=False)
    monkeypatch.setattr(core.verify, "verify_all", lambda: [row])
    assert main(["verify"]) == EXIT_MISMATCH == 1
    assert "MISMATCH" in capsys.readouterr().out


def _into_a_closed_pipe(*args):
    """Run `lab ARGS` with stdout a small pipe that is closed after one line is read."""
    import fcntl

    read_fd, write_fd = os.pipe()
    if hasattr(fcntl, "F_SETPIPE_SZ"):  # a small pipe, so the output does not fit and the write fails
        fcntl.fcntl(write_fd, fcntl.F_SETPIPE_SZ, 4096)
    proc = subprocess.Popen([sys.executable, "-m", "lab", *args], stdout=write_fd, stderr=subprocess.PIPE, text=True)
    os.close(write_fd)
    with os.fdopen(read_fd, encoding="utf-8") as reader:
        first = reader.readline()
    err = proc.stderr.read()
    proc.stderr.close()
    return first, proc.wait(timeout=120), err


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")
@pytest.mark.parametrize("args", [("list",), ("verify",), ("calc", "serving.replay", "--help")])
def test_a_closed_pipe_ends_quietly(args):
    first, code, err = _into_a_closed_pipe(*args)
    assert first.strip()
    assert err == "" and code == 0  # no BrokenPipeError traceback


def test_calc_text_reads_like_the_book_and_json_keeps_every_digit(capsys):
    assert main(["calc", "scaling.train_vs_serve"]) == 0
    text = capsys.readouterr().out
    assert "298.6B tokens" in text and "0.001292 GPU·s" in text and "yes" in text
    assert "e+" not in text and "2.98579e+11" not in text
    assert main(["calc", "scaling.train_vs_serve", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["small_tokens"] == pytest.approx(298578849033.8972)
