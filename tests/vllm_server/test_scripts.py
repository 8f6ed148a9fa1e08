"""The helper scripts of scripts/vllm_cpu that need no server: the fixture trimmer, the end
to end's table, the model's vocabulary, the launcher's shell."""
from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts" / "vllm_cpu"


def script(name: str):
    spec = importlib.util.spec_from_file_location(f"vllm_cpu_{name}", SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_trim_empties_texts_and_rounds_times_only():
    trim = script("trim_result").trim
    got = trim({"generated_texts": ["w1 w2", "w3"], "ttfts": [0.0123456789, 0.5], "input_lens": [2, 1],
                "lab_observe": {"end_s": [1.00000049], "metrics": {"delta": {"x": 3.0}}}, "model_id": "m"})
    assert got == {"generated_texts": ["", ""], "ttfts": [0.012346, 0.5], "input_lens": [2, 1],
                   "lab_observe": {"end_s": [1.0], "metrics": {"delta": {"x": 3.0}}}, "model_id": "m"}


def test_the_model_is_the_labs_config_with_one_token_a_word():
    make = script("make_model")
    lab = json.loads((SCRIPTS.parents[1] / "core/data/model_configs/tiny-llama-cpu.json").read_text())
    assert make.CONFIG == lab
    words = make.words()
    assert len(words) == lab["vocab_size"] == 4096 and len(set(words)) == 4096
    assert words[:4] == ["<unk>", "<s>", "</s>", "<pad>"] and words[4] == "w0" and words[-1] == "w4091"
    assert words.index("<s>") == lab["bos_token_id"] and words.index("</s>") == lab["eos_token_id"]


def test_the_end_to_end_table():
    table = script("e2e_table").table
    metric = {"measured": 10.0, "predicted": 12.0, "error_pct": 20.0, "within": True}
    report = {"runs": [{"run": "medium", "regime": "low load",
                        "metrics": {"median_ttft_ms": metric, "median_tpot_ms": dict(metric, within=False),
                                    "preemptions": {"measured": 4, "predicted": 5, "within": True}}}]}
    lines = table(report).splitlines()
    assert lines[0].startswith("| run | regime | median TTFT ms")
    assert lines[2] == ("| medium (fitted) | low load | 10 → 12 (+20% ok) | 10 → 12 (+20%) | - | 4 → 5 ok | - |")
    assert len(lines) == 3  # no summary, no held-out line
    report["summary"] = {"median_ttft_ms": {"held out": {"median_abs_error": 31.6, "worst_abs_error": 51.2,
                                                         "worst_run": "low"}}}
    assert table(report).splitlines()[-1] == "held out, median |error| (worst): TTFT 32% (51%, low)"


@pytest.mark.parametrize("name", ["serve.sh", "ci_stage.sh", "end_to_end.sh", "record_fixtures.sh", "install.sh",
                                  "vllm", "../../.ci/run"])
def test_the_shell_scripts_parse(name):
    done = subprocess.run(["bash", "-n", str(SCRIPTS / name)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_serve_without_a_command_says_how():
    done = subprocess.run(["bash", str(SCRIPTS / "serve.sh")], capture_output=True, text=True)
    assert done.returncode == 2 and "usage: serve.sh start|stop|url" in done.stderr
