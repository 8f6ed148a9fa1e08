"""lab observe: a misspelt key gets "did you mean" (exit 2, before any connection), and the
options that shape a run (--max-concurrency, --endpoint, --model) go into DIR/config.toml,
so a rerun from it sends the same requests, as many at once, to the same API. Against the
small endpoint of tests/observe (a word is a token)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from lab.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "observe"))  # its endpoints.py
from endpoints import Endpoint

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10 (requires-python): the same parser as a package
    import tomli as tomllib


@pytest.mark.parametrize("argv, said", [
    (["--num-prompt", "3"], "lab observe: num_prompt: did you mean num_prompts=? unknown key; valid: dataset, "),
    (["request_rat=3"], "lab observe: request_rat: did you mean request_rate=? unknown key"),
    (["max_num_seqs=3"], "lab observe: max_num_seqs: unknown key; valid: dataset, "),  # a server's key, not the client's
    (["endpoint=/v2"], "lab observe: endpoint: got '/v2'; valid: one of /v1/completions, /v1/chat/completions"),
])
def test_a_misspelt_key_is_refused_before_any_connection(tmp_path, capsys, argv, said):
    assert main(["observe", "http://127.0.0.1:9", "--out", str(tmp_path / "o"), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(said) and err.count("\n") == 1, err


def test_the_options_of_a_run_rerun_from_its_config(tmp_path, capsys):
    first, again = tmp_path / "first", tmp_path / "again"
    with Endpoint() as ep:
        assert main(["observe", ep.url, "--out", str(first), "num_prompts=5", "random_input_len=12",
                     "random_output_len=3", "--max-concurrency", "2", "--endpoint", "/v1/chat/completions",
                     "--model", "tiny"]) == 0
        sent1 = [(b["model"], len(b["messages"][0]["content"].split()), b["max_completion_tokens"]) for b in ep.seen]
        written = tomllib.loads((first / "config.toml").read_text())
        ep.seen.clear()
        assert main(["observe", ep.url, "--out", str(again), "--config", str(first / "config.toml")]) == 0
        sent2 = [(b["model"], len(b["messages"][0]["content"].split()), b["max_completion_tokens"]) for b in ep.seen]
    capsys.readouterr()
    assert written == {"num_prompts": "5", "random_input_len": "12", "random_output_len": "3",
                       "max_concurrency": "2", "endpoint": "/v1/chat/completions", "model": "tiny"}
    assert sorted(sent2) == sorted(sent1) == [("tiny", 12, 3)] * 5
    res1, res2 = (json.loads((d / "result.json").read_text()) for d in (first, again))
    assert res1["max_concurrency"] == res2["max_concurrency"] == 2
    assert res1["endpoint_type"] == res2["endpoint_type"] and "chat" in res1["endpoint_type"]
    assert (again / "config.toml").read_text() == (first / "config.toml").read_text()
    assert "# Rerun it: lab observe URL --config config.toml --out DIR\n" in (first / "config.toml").read_text()


def test_the_command_line_option_wins_over_the_file(tmp_path, capsys):
    plan = tmp_path / "plan.toml"
    plan.write_text('num_prompts = 3\nrandom_input_len = 8\nrandom_output_len = 2\nmax_concurrency = 1\n')
    with Endpoint() as ep:
        assert main(["observe", ep.url, "--out", str(tmp_path / "o"), "--config", str(plan),
                     "--max-concurrency", "3"]) == 0
    capsys.readouterr()
    assert json.loads((tmp_path / "o" / "result.json").read_text())["max_concurrency"] == 3
    assert tomllib.loads((tmp_path / "o" / "config.toml").read_text())["max_concurrency"] == "3"


def test_keys_before_the_url_and_vllm_bench_base_url(tmp_path, capsys):
    with Endpoint() as ep:
        # vllm bench serve's order: options first; --base-url names the server
        for i, argv in enumerate((["--num-prompts", "3", "--random-input-len", "6", ep.url],
                                  ["--base-url", ep.url, "--num-prompts", "3", "--random-input-len", "6"],
                                  [ep.url, "num_prompts=3", "random_input_len=6"])):
            assert main(["observe", *argv, "--random-output-len", "2", "--out", str(tmp_path / str(i))]) == 0, argv
            assert sorted(len(b["prompt"].split()) for b in ep.seen) == [6, 6, 6]
            ep.seen.clear()
    capsys.readouterr()
    assert main(["observe", "--num-prompt", "3", "http://127.0.0.1:9", "--out", str(tmp_path / "x")]) == 2
    assert capsys.readouterr().err.startswith("lab observe: num_prompt: did you mean num_prompts=?")  # no prefix match
    assert main(["observe", "http://127.0.0.1:8", "--base-url", "http://127.0.0.1:9", "--out", str(tmp_path / "x")]) == 2
    assert "url: given twice" in capsys.readouterr().err
