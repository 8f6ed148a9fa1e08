"""lab observe --config FILE writes the keys it resolved to DIR/config.toml, and a rerun
from that file sends the same workload (lengths, schedule) to the server; the prompts' texts
are new each run unless prompt_seed= is given (core/observe/prompts.py: a run's prompts stay
out of the server's prefix cache for the next), then they are the same too. Against the
small endpoint of tests/observe (a word is a token)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from lab.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "observe"))  # its endpoints.py
from endpoints import Endpoint

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10 (requires-python): the same parser as a package
    import tomli as tomllib


def _observe(url, out, *words):
    assert main(["observe", url, "--out", str(out), *words]) == 0
    return json.loads((out / "result.json").read_text())


def test_observe_reruns_from_its_written_config(tmp_path, capsys):
    plan = tmp_path / "plan.toml"
    plan.write_text('num-prompts = 6\nrandom_input_len = 24\nrandom-output-len = 4\nrequest_rate = 50\n')
    first, again = tmp_path / "first", tmp_path / "again"
    with Endpoint() as ep:
        res1 = _observe(ep.url, first, "--config", str(plan), "seed=3")  # the command line adds a key
        sent1 = [(len(b["prompt"].split()), b["max_tokens"]) for b in ep.seen]
        written = tomllib.loads((first / "config.toml").read_text())
        assert written == {"num_prompts": "6", "random_input_len": "24", "random_output_len": "4",
                           "request_rate": "50", "seed": "3"}
        ep.seen.clear()
        res2 = _observe(ep.url, again, "--config", str(first / "config.toml"))
        sent2 = [(len(b["prompt"].split()), b["max_tokens"]) for b in ep.seen]
    capsys.readouterr()
    assert sorted(sent2) == sorted(sent1) and len(sent1) == 6  # arrival order at the server may differ
    assert res2["input_lens"] == res1["input_lens"] and res2["output_lens"] == res1["output_lens"]
    assert res2["lab_observe"]["scheduled_s"] == res1["lab_observe"]["scheduled_s"]
    assert (again / "config.toml").read_text() == (first / "config.toml").read_text()


def test_with_a_prompt_seed_the_rerun_sends_the_same_texts(tmp_path, capsys):
    plan = tmp_path / "plan.json"
    plan.write_text('{"num_prompts": 4, "random_input_len": 16, "random_output_len": 3, "prompt_seed": 11}')
    texts = []
    with Endpoint() as ep:
        for i, config in enumerate((plan, tmp_path / "r0" / "config.toml")):
            _observe(ep.url, tmp_path / f"r{i}", "--config", str(config))
            texts.append(sorted(b["prompt"] for b in ep.seen))
            ep.seen.clear()
    capsys.readouterr()
    assert texts[0] == texts[1] and len(texts[0]) == 4
