"""Hostile CLI argument lists: inputs whose implied work once ran for minutes. Each runs
`python -m lab ...` in a subprocess under the corpus's bound (tests/hostile/bounds.py) and
either finishes (exit 0) or is refused up front (exit 2, one line naming the field and its
valid range), never a traceback."""
from __future__ import annotations

import os

import pytest

from tests.hostile.bounds import run_cli

# (argument list, exit status, the field a refusal names)
CASES = {
    "a burst then a window of almost nothing": (
        "simulate serving durations_s=3.2,5.4,378618 rates_per_s=2488,3273,2e-8 shares_long_input=0.5,0.5,0.5", 0, None),
    "the same as a calculator": (
        "calc serving.replay durations_s=3.2,5.4,378618 rates_per_s=2488,3273,2e-8 shares_long_input=0.5,0.5,0.5",
        0, None),
    "two million seconds, the first empty": ("simulate serving durations_s=1000000,1000000 rates_per_s=0,0.05", 0, None),
    "a million seconds at the request bound": (
        "simulate serving durations_s=1000000 rates_per_s=0.1 shares_long_input=0.5", 0, None),
    "outputs of 100k tokens, 10k requests": (
        "simulate serving durations_s=100 rates_per_s=100 shares_long_input=0 long_output_out_tokens=100000 "
        "long_output_in_tokens=10", 2, "rates_per_s"),
    "outputs of 100k tokens, 100k requests": (
        "simulate serving durations_s=1000 rates_per_s=100 shares_long_input=0 long_output_out_tokens=100000 "
        "long_output_in_tokens=10", 2, "rates_per_s"),
    "voice: 20,000 turns alone": ("simulate voice turns=20000 rate=0", 2, "turns"),
    "voice: a billion turns": ("simulate voice turns=1e9", 2, "turns"),
    "voice: negative turns": ("simulate voice turns=-5", 2, "turns"),
    "voice: negative rate": ("simulate voice rate=-1", 2, "rate"),
    "voice: long replies": ("simulate voice turns=2000 reply_tokens=2000", 2, "turns"),
}


@pytest.mark.parametrize("name", CASES)
def test_hostile_argument_list(name):
    args, rc, field = CASES[name]
    run_cli(args.split()).check(name, rc, field)


# Argument lists naming a file the test makes: {fifo} a FIFO nobody writes, {dir} a folder.
FILE_CASES = {
    "lab snapshot --talk FIFO": ("snapshot --talk {fifo} --scene 1 --out {dir}/s.png", 2, "--talk"),
    "lab simulate serving trace=FIFO": ("simulate serving trace={fifo}", 2, "trace"),
    "lab calc agent.round trace=FIFO": ("calc agent.round trace={fifo}", 2, "trace"),
    "lab simulate serving trace=/dev/zero": ("simulate serving trace=/dev/zero", 2, "trace"),
    "lab simulate serving trace=a folder": ("simulate serving trace={dir}", 2, "trace"),
}


@pytest.mark.parametrize("name", FILE_CASES)
def test_hostile_file_argument(tmp_path, name):
    args, rc, field = FILE_CASES[name]
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    run_cli(args.format(fifo=fifo, dir=tmp_path).split()).check(name, rc, field)
