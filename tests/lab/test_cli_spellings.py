"""Issue 17's flags and names through the real parser: dashes, --key=value, vLLM's aliases
and flags, and one "did you mean" over names and aliases (exit 2)."""
from __future__ import annotations

import json

import pytest

from core.serving import aliases
from lab.cli import main

SMALL = ["durations_s=20", "rates_per_s=2", "shares_long_input=0.5", "--json"]


def _summary(capsys, argv):
    assert main(["simulate", "serving", *SMALL, *argv]) == 0, argv
    report = json.loads(capsys.readouterr().out)
    report.pop("wall_ms", None)
    return report


def test_every_spelling_of_a_key_runs_the_same_replay(capsys):
    runs = [_summary(capsys, argv) for argv in (
        ["max_num_seqs=8"], ["max-num-seqs=8"], ["--max_num_seqs", "8"], ["--max-num-seqs", "8"],
        ["--max-num-seqs=8"], ["--max_num_seqs=8"])]
    assert all(r == runs[0] for r in runs)
    assert runs[0] != _summary(capsys, ["max_num_seqs=2"])  # the key took effect


def test_vllm_names_are_aliases_of_ours(capsys):
    ours = _summary(capsys, ["token_budget=512"])
    for argv in (["max_num_batched_tokens=512"], ["--max-num-batched-tokens", "512"],
                 ["--max-num-batched-tokens=512"]):
        assert _summary(capsys, argv) == ours
    assert ours != _summary(capsys, ["token_budget=8192"])


def test_parallel_sizes_and_the_prefix_caching_flags(capsys):
    deploy = ["model=qwen3-8b", "hardware=h100-sxm"]
    tp2 = _summary(capsys, deploy + ["tp=2"])
    assert _summary(capsys, deploy + ["-tp", "2"]) == tp2
    assert _summary(capsys, deploy + ["--tensor-parallel-size", "2"]) == tp2
    assert _summary(capsys, deploy + ["tensor_parallel_size=2"]) == tp2
    assert tp2 != _summary(capsys, deploy)  # tp=2 took effect
    off = _summary(capsys, ["prefix_caching=false"])
    assert _summary(capsys, ["--no-enable-prefix-caching"]) == off
    assert _summary(capsys, ["--enable-prefix-caching"]) == _summary(capsys, ["prefix_caching=true"])


def test_the_command_line_after_an_alias_wins_as_any_repeat(capsys):
    assert _summary(capsys, ["token_budget=8192", "max_num_batched_tokens=512"]) == _summary(capsys, ["token_budget=512"])


@pytest.mark.parametrize("argv, said", [
    (["--max-num-seq", "8"], "max_num_seq: did you mean max_num_seqs=?"),
    (["max_num_batched_token=512"], "max_num_batched_token: did you mean token_budget=? (vLLM's max_num_batched_tokens)"),
    (["--tensor-paralel-size=2"], "did you mean tp=? (vLLM's tensor_parallel_size)"),
])
def test_a_misspelt_key_gets_did_you_mean_and_exit_2(argv, said, capsys):
    assert main(["simulate", "serving", *SMALL, *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lab simulate serving: ") and said in err and err.count("\n") == 1


def test_calc_takes_dashes_and_says_did_you_mean(capsys):
    assert main(["calc", "serving.decode_rate", "--json", "--weights-bytes=15136811008"]) == 0
    dashed = capsys.readouterr().out
    assert main(["calc", "serving.decode_rate", "--json", "weights_bytes=15136811008"]) == 0
    assert capsys.readouterr().out == dashed
    assert main(["calc", "serving.decode_rate", "card=3"]) == 2
    assert "card: did you mean cards=?" in capsys.readouterr().err


def test_help_shows_the_aliases_beside_our_names(capsys):
    assert main(["simulate", "serving", "--help"]) == 0
    text = capsys.readouterr().out
    for line in ("--token_budget, --max-num-batched-tokens N", "--tp, -tp, --tensor-parallel-size N",
                 "--pp, -pp, --pipeline-parallel-size N", "--dataset, --dataset-name", "--trace, --dataset-path FILE",
                 "--enable-prefix-caching", "--no-enable-prefix-caching", "--replicas, -dp, --data-parallel-size"):
        assert line in text, line
    assert "takes dashes (--max-num-seqs is max_num_seqs)" in " ".join(text.split())


def test_one_alias_table_maps_only_onto_a_commands_own_names():
    assert aliases.canonical("--max-num-batched-tokens") == "token_budget"
    assert aliases.canonical("-tp") == "tp"
    assert aliases.canonical("--random-input-len") == "random_input_len"
    assert aliases.canonical("dataset_path", ["dataset_path"]) == "dataset_path"  # a command's own name wins
    assert aliases.canonical("dataset_path", ["x"]) == "dataset_path"  # no target there: left to be refused
    assert aliases.flag("--enable-prefix-caching") == ("prefix_caching", "true")
    assert aliases.flag("enable_prefix_caching") is None  # a flag is an option, key=value is a key
    assert aliases.suggestion("max_num_seq", ["max_num_seqs", "tp"]) == "max_num_seqs"
    assert aliases.suggestion("zzzz", ["max_num_seqs"]) is None


def test_vllm_bench_goodput_sets_our_slo_keys(capsys, tmp_path):
    ours = _summary(capsys, ["slo_ttft_ms=2000", "slo_tpot_ms=50"])
    assert ours["goodput_slos_ms"] == {"ttft": 2000.0, "tpot": 50.0} and ours["request_goodput"] is not None
    for argv in (["--goodput", "ttft:2000", "tpot:50"], ["--goodput=ttft:2000,tpot:50"], ["goodput=ttft:2000,tpot:50"],
                 ["--goodput", "ttft:2000", "tpot:50", "--max-num-seqs", "64"]):  # the option ends at a --key
        assert _summary(capsys, argv) == ours, argv
    plan = tmp_path / "plan.toml"
    plan.write_text('goodput = "ttft:2000 tpot:50"\n')
    assert _summary(capsys, ["--config", str(plan)]) == ours
    import loadlab

    api = loadlab.simulate_serving(durations_s=20, rates_per_s=2, shares_long_input=0.5, goodput="ttft:2000 tpot:50")
    assert api.summary["request_goodput"] == ours["request_goodput"]


@pytest.mark.parametrize("argv, said", [
    (["--goodput", "itl:5"], "goodput: got 'itl:5'; valid: KEY:MS pairs with KEY one of ttft, tpot, e2el"),
    (["--goodpt", "ttft:5"], "goodpt: did you mean goodput=?"),
])
def test_a_bad_goodput_is_refused(capsys, argv, said):
    assert main(["simulate", "serving", *SMALL, *argv]) == 2
    assert said in capsys.readouterr().err
