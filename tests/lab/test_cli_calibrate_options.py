"""lab calibrate takes its replay keys every way the other commands do (key=value, --key
value, --key=value, dashes, vLLM's names and flags), and a misspelt --key gets "did you
mean" and exit 2, through the real parser. One recorded run (tests/data/vllm_cpu/low.json)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from lab.cli import main

RUN = str(Path(__file__).resolve().parents[1] / "data" / "vllm_cpu" / "low.json")
BASE = ["calibrate", RUN, "model=qwen3-8b", "hardware=h200", "--bootstrap", "0", "--json"]


def _fit(capsys, *argv):
    assert main([*BASE, *argv]) == 0, argv
    report = json.loads(capsys.readouterr().out)
    report.pop("timings")  # wall clock
    return report


def test_every_spelling_of_a_replay_key_fits_the_same(capsys):
    ours = _fit(capsys, "max_num_seqs=2")
    for argv in (["--max-num-seqs", "2"], ["--max-num-seqs=2"], ["--max_num_seqs", "2"], ["max-num-seqs=2"]):
        assert _fit(capsys, *argv) == ours, argv
    assert ours != _fit(capsys)  # two at a time against the run's own limit: the key took effect
    assert _fit(capsys, "--max-num-batched-tokens", "4096") == _fit(capsys, "token_budget=4096")
    assert _fit(capsys, "--no-enable-prefix-caching") == _fit(capsys, "prefix_caching=false")


@pytest.mark.parametrize("argv, said", [
    (["--max-num-seq", "2"], "lab calibrate: max_num_seq: did you mean max_num_seqs=?"),
    (["--max-num-batched-token=64"], "lab calibrate: max_num_batched_token: did you mean token_budget=?"),
    (["-x"], "lab calibrate: -x: unknown option; valid: --out, --fit-keys"),
    (["--max-num-seqs"], "lab calibrate: --max-num-seqs: needs a value; valid: --max-num-seqs VALUE"),
])
def test_a_misspelt_option_is_refused_with_exit_2(capsys, argv, said):
    assert main([*BASE, *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(said) and err.count("\n") == 1, err
