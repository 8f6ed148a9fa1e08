"""A misspelt vLLM flag (no value) through the real parser: "did you mean" the flag and exit 2,
whether it ends the command line or another option follows it (which is then not taken as
its value)."""
from __future__ import annotations

import pytest

from lab.cli import main


@pytest.mark.parametrize("argv, said", [
    (["--enable-prefix-cache"], "--enable-prefix-cache: did you mean --enable-prefix-caching (a flag, no value)?"),
    (["--enable-prefix-cache", "--max-num-seqs", "4"], "did you mean --enable-prefix-caching (a flag, no value)?"),
    (["--no-enable-prefix-cachin", "--json"], "did you mean --no-enable-prefix-caching (a flag, no value)?"),
    (["--max-num-seqs"], "--max-num-seqs: needs a value; valid: --max-num-seqs VALUE or max-num-seqs=VALUE"),
])
def test_a_value_less_option_is_refused_with_the_flag_it_looks_like(argv, said, capsys):
    assert main(["simulate", "serving", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lab simulate serving: ") and said in err


def test_an_option_value_starting_with_dashes_is_not_swallowed(capsys):
    # before, --max-num-seqs became the value of the misspelt flag and "4" was blamed
    assert main(["simulate", "serving", "--enable-prefix-cache", "--max-num-seqs", "4"]) == 2
    assert "4: expected key=value" not in capsys.readouterr().err


@pytest.mark.parametrize("kind, argv, said", [
    ("rl", ["--stepz", "3"], "lab simulate rl: stepz: did you mean steps=? unknown parameter of lab simulate rl"),
    ("voice", ["turnz=3"], "lab simulate voice: turnz: did you mean turns=? unknown parameter of lab simulate voice"),
])
def test_every_simulation_says_did_you_mean(kind, argv, said, capsys):
    assert main(["simulate", kind, *argv]) == 2
    assert capsys.readouterr().err.startswith(said)


@pytest.mark.parametrize("argv, said", [
    (["calc", "serving.decode_rat"], "lab calc: NAME: did you mean serving.decode_rate? no calculator"),
    (["simulate", "servng"], "lab simulate: KIND: did you mean serving? no simulation 'servng'"),
    (["simulat", "serving"], "lab: command: did you mean simulate? no command 'simulat'"),
    (["calc", "zzz"], "lab calc: NAME: no calculator 'zzz'; valid: see `lab list`"),
])
def test_a_misspelt_command_or_name_gets_did_you_mean(argv, said, capsys):
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith(said)
