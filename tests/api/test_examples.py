"""examples/*.py, the worked examples, run as a user runs them (a fresh interpreter, the
--quick size) so they cannot rot, and their figures checked for what each one shows.
Scripts rather than notebooks: nothing to install beyond Load Lab (no Jupyter kernel in
CI), and a diff of one reads as code."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name, expect", [
    ("capacity_for_slo", "req/s"),
    ("prefix_caching_multiturn", "hit rate by turn"),
    ("voice_turn_under_load", "tail owned by"),
])
def test_each_example_runs_as_a_script(name, expect):
    done = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py"), "--quick"], capture_output=True, text=True,
                          timeout=300, cwd=EXAMPLES.parent)
    assert done.returncode == 0, done.stderr
    assert expect in done.stdout and "Traceback" not in done.stderr


def test_capacity_is_found_for_each_card(capsys):
    rows = _load("capacity_for_slo").main(["--quick"])
    assert [r["card"] for r in rows] == ["h100-sxm", "h200"]
    for r in rows:
        assert r["max_rate_per_s"] > 0 and not r["capped"]
    assert rows[0]["cost"] > 0 and rows[1]["cost"] is None  # the card file names no price


def test_prefix_caching_pays_on_later_turns(capsys):
    out = _load("prefix_caching_multiturn").main(["--quick"])
    on, off = out[True], out[False]
    assert off["hit_rate"] == 0 and on["hit_rate"] > 0.5
    assert on["prefill_tokens"] < off["prefill_tokens"] and on["median_ttft_ms"] < off["median_ttft_ms"]
    assert on["hit_rate_by_turn"][0] == 0 and min(on["hit_rate_by_turn"][1:]) > 0.5  # a first turn has no history


def test_the_voice_tail_grows_with_load(capsys):
    rows = _load("voice_turn_under_load").main(["--quick", "--rates", "0,1.5"])
    quiet, busy = rows
    for r in rows:
        assert r["p50"] <= r["p95"] <= r["p99"]
    assert busy["p95"] > quiet["p95"]
