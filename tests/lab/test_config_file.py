"""--config FILE.toml|.json|.yaml: the same keys (names or aliases) under the command line's,
config.toml written beside a result, a rerun from it bit-identical, and a bad key in a file
named with the file and its line (exit 2)."""
from __future__ import annotations

import json
import sys

import pytest

from lab.cli import config_file, main

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10 (requires-python): the same parser as a package
    import tomli as tomllib

PLAN = """# a plan written down
durations_s = [20, 20]
rates_per_s = [2, 3]
shares-long-input = "0.5,0.5"
max_num_batched_tokens = 1024
max-num-seqs = 16
"""


def _run(argv, capsys):
    code = main(["simulate", "serving", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _summary(folder):
    report = json.loads((folder / "summary.json").read_text())
    report.pop("wall_ms")
    report.pop("out", None)
    return report


def test_a_file_gives_the_keys_and_the_command_line_wins(tmp_path, capsys):
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    code, from_file, _ = _run(["--config", str(plan), "--json"], capsys)
    assert code == 0
    code, by_hand, _ = _run(["durations_s=20,20", "rates_per_s=2,3", "shares_long_input=0.5,0.5",
                             "token_budget=1024", "max_num_seqs=16", "--json"], capsys)
    drop = lambda text: {k: v for k, v in json.loads(text).items() if k != "wall_ms"}  # noqa: E731
    assert drop(from_file) == drop(by_hand)
    code, over, _ = _run([f"--config={plan}", "--max-num-seqs", "2", "--json"], capsys)
    code, over_hand, _ = _run(["durations_s=20,20", "rates_per_s=2,3", "shares_long_input=0.5,0.5",
                               "token_budget=1024", "max_num_seqs=2", "--json"], capsys)
    assert drop(over) == drop(over_hand) != drop(from_file)


def test_the_written_config_reruns_the_result_bit_identically(tmp_path, capsys):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"durations_s": [20, 20], "rates_per_s": [2, 3], "shares_long_input": [0.5, 0.5],
                                "tensor_parallel_size": 2, "model": "qwen3-8b", "hardware": "h100-sxm"}))
    first, again = tmp_path / "first", tmp_path / "again"
    assert _run(["--config", str(plan), "seed=7", "--out", str(first)], capsys)[0] == 0
    written = tomllib.loads((first / "config.toml").read_text())
    assert written == {"durations_s": "20,20", "rates_per_s": "2,3", "shares_long_input": "0.5,0.5", "tp": "2",
                       "model": "qwen3-8b", "hardware": "h100-sxm", "seed": "7"}
    assert _run(["--config", str(first / "config.toml"), "--out", str(again)], capsys)[0] == 0
    assert _summary(first) == _summary(again)
    for name in ("requests.csv", "series.csv", "preemptions.csv"):
        assert (first / name).read_bytes() == (again / name).read_bytes(), name
    assert (again / "config.toml").read_text() == (first / "config.toml").read_text()


@pytest.mark.parametrize("name, text, said", [
    ("bad.toml", "max_num_seqs = 16\n\nmax_num_seq = 3\n", "bad.toml:3: max_num_seq: did you mean max_num_seqs=?"),
    ("bad.json", '{\n  "max_num_seqs": 16,\n  "token_budget": -5\n}\n', "bad.json:3: token_budget: got -5"),
    ("bad.toml", "[engine]\nmax_num_seqs = 3\n", "bad.toml:1: engine: got {"),
    ("bad.toml", "max_num_seqs = \n", "bad.toml: Invalid value"),
    ("bad.ini", "x=1\n", "valid: a .toml, .yaml, .yml or .json file"),
])
def test_a_bad_key_in_a_file_names_the_file_and_line(tmp_path, capsys, name, text, said):
    path = tmp_path / name
    path.write_text(text)
    code, _, err = _run(["--config", str(path), "--json"], capsys)
    assert code == 2 and said.replace("bad.", str(tmp_path / "bad.")) in err, err
    assert err.count("\n") == 1


def test_a_bad_key_on_the_command_line_is_not_blamed_on_the_file(tmp_path, capsys):
    path = tmp_path / "plan.toml"
    path.write_text("max_num_seqs = 16\n")
    code, _, err = _run(["--config", str(path), "max_num_seqs=-1", "--json"], capsys)
    assert code == 2 and err.startswith("lab simulate serving: max_num_seqs: got -1")


def test_yaml_needs_pyyaml_and_says_so(tmp_path, capsys, monkeypatch):
    path = tmp_path / "plan.yaml"
    path.write_text("durations_s: [20]\nrates_per_s: [2]\nshares_long_input: 0.5\nmax-num-seqs: 4\n")
    monkeypatch.setitem(__import__("sys").modules, "yaml", None)  # import yaml fails as where it is not installed
    code, _, err = _run(["--config", str(path), "--json"], capsys)
    assert code == 2 and "YAML needs PyYAML, which Load Lab does not depend on" in err


def test_yaml_reads_where_pyyaml_is_installed(tmp_path, capsys):
    pytest.importorskip("yaml")
    path = tmp_path / "plan.yaml"
    path.write_text("durations_s: [20]\nrates_per_s: [2]\nshares_long_input: 0.5\nmax-num-seqs: 4\nmax_num_seq: 1\n")
    code, _, err = _run(["--config", str(path), "--json"], capsys)
    assert code == 2 and f"{path}:5: max_num_seq: did you mean max_num_seqs=?" in err


def test_values_become_command_line_text_exactly():
    assert config_file._text("f", 1, "k", 0.1) == "0.1"
    assert config_file._text("f", 1, "k", float("inf")) == "inf"
    assert config_file._text("f", 1, "k", True) == "true"
    assert config_file._text("f", 1, "k", [1, 2.5, "3"]) == "1,2.5,3"
    assert config_file.split_argv(["simulate", "serving", "--config", "a.toml", "x=1"]) == (
        ["simulate", "serving", "x=1"], "a.toml")
    assert config_file.split_argv(["list", "--config", "a.toml"])[1] is None  # list takes no keys


def test_a_sweep_reruns_from_its_config_toml(tmp_path, capsys):
    import csv

    plan = tmp_path / "sweep.toml"
    plan.write_text('durations_s = [20]\nrates_per_s = [2]\nshares_long_input = 0.5\nmax-num-seqs = "4,8"\n')
    first, again = tmp_path / "first", tmp_path / "again"
    argv = ["sweep", "serving", "--config", str(plan), "--max-num-batched-tokens", "512", "--workers", "1", "--json"]
    assert main(argv + ["--out", str(first)]) == 0
    assert tomllib.loads((first / "config.toml").read_text()) == {
        "durations_s": "20", "rates_per_s": "2", "shares_long_input": "0.5", "max_num_seqs": "4,8", "token_budget": "512"}
    assert main(["sweep", "serving", "--config", str(first / "config.toml"), "--workers", "1", "--json",
                 "--out", str(again)]) == 0
    capsys.readouterr()

    def rows(folder):
        with open(folder / "results.csv") as f:
            return [{k: v for k, v in r.items() if k != "wall_s"} for r in csv.DictReader(f)]

    assert rows(first) == rows(again) and len(rows(first)) == 2
    assert {r["param.max_num_seqs"] for r in rows(first)} == {"4", "8"}
    assert {r["param.token_budget"] for r in rows(first)} == {"512"}


def test_observe_and_calibrate_name_the_file_and_line_of_a_bad_key(tmp_path, capsys):
    observe = tmp_path / "observe.toml"
    observe.write_text("num-prompts = 3\nnum_promts = 4\n")
    # the keys are checked before any connection: the URL is never reached
    assert main(["observe", "http://127.0.0.1:9", "--config", str(observe), "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.startswith(f"lab observe: {observe}:2: num_promts: ")
    calibrate = tmp_path / "calibrate.toml"
    calibrate.write_text('model = "qwen3-8b"\nhardwre = "h100-sxm"\n')
    assert main(["calibrate", str(tmp_path / "result.json"), "--config", str(calibrate)]) == 2
    assert f"{calibrate}:2: hardwre: did you mean hardware=?" in capsys.readouterr().err


def test_calc_takes_a_config_file(tmp_path, capsys):
    path = tmp_path / "calc.json"
    path.write_text('{"cards": 3, "weights-bytes": 15136811008}')
    assert main(["calc", "serving.decode_rate", "--config", str(path), "--json"]) == 0
    from_file = capsys.readouterr().out
    assert main(["calc", "serving.decode_rate", "cards=3", "weights_bytes=15136811008", "--json"]) == 0
    assert capsys.readouterr().out == from_file
    path.write_text('{\n"cards": 3,\n"card": 2}')
    assert main(["calc", "serving.decode_rate", "--config", str(path)]) == 2
    assert f"{path}:3: card: did you mean cards=?" in capsys.readouterr().err


@pytest.mark.parametrize("line, caching", [("enable-prefix-caching: false", False), ("enable_prefix_caching: true", True),
                                           ("no-enable-prefix-caching: true", False)])
def test_vllms_on_off_flags_are_keys_of_a_file(tmp_path, capsys, line, caching):
    pytest.importorskip("yaml")
    path = tmp_path / "vllm.yaml"  # as vLLM's own --config file spells its flags
    path.write_text(f"durations_s: [20]\nrates_per_s: [2]\nshares_long_input: 0.5\n{line}\n")
    code, out, _ = _run(["--config", str(path), "--json"], capsys)
    assert code == 0 and json.loads(out)["prefix_caching"] is caching
    code, by_hand, _ = _run(["durations_s=20", "rates_per_s=2", "shares_long_input=0.5",
                             f"prefix_caching={str(caching).lower()}", "--json"], capsys)
    drop = lambda text: {k: v for k, v in json.loads(text).items() if k != "wall_ms"}  # noqa: E731
    assert drop(out) == drop(by_hand)


def test_a_flag_in_a_file_takes_true_or_false_only(tmp_path, capsys):
    path = tmp_path / "plan.toml"
    path.write_text('max_num_seqs = 4\nenable-prefix-caching = "maybe"\n')
    code, _, err = _run(["--config", str(path), "--json"], capsys)
    assert code == 2 and f"{path}:2: enable_prefix_caching: got 'maybe'; valid: true or false" in err


def test_a_files_own_error_names_the_command_as_a_keys_does(tmp_path, capsys):
    path = tmp_path / "plan.toml"
    path.write_text("[engine]\nmax_num_seqs = 3\n")
    code, _, err = _run(["--config", str(path), "--json"], capsys)
    assert code == 2 and err.startswith(f"lab simulate serving: {path}:1: engine: ")
    assert main(["sweep", "serving", "--config", str(tmp_path / "none.toml"), "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.startswith("lab sweep serving: --config: ")
