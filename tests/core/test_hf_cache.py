"""model=ORG/NAME (a Hugging Face id) read from the local Hugging Face cache with no network;
when it is not there the refusal says where it looked and how to get the config.json."""
from __future__ import annotations

import json
import os
import shutil

import pytest

from core.model_config import hf_cache, model_spec, shipped_config_path
from core.registry import ParamError
from lab.cli import main

REPO = "Qwen/Qwen3-8B"
SMALL = ["durations_s=20", "rates_per_s=2", "shares_long_input=0.5", "hardware=h100-sxm", "--json"]


def _cache(root, repo=REPO, revision="abc123", ref=True):
    folder = root / "hub" / ("models--" + repo.replace("/", "--"))
    snap = folder / "snapshots" / revision
    snap.mkdir(parents=True)
    shutil.copy(shipped_config_path("qwen3-8b"), snap / "config.json")
    if ref:
        (folder / "refs").mkdir()
        (folder / "refs" / "main").write_text(revision)
    return snap / "config.json"


def test_an_id_reads_the_cached_config_like_its_path(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    path = _cache(tmp_path)
    spec = model_spec(REPO)
    assert spec.name == REPO and spec.weights_bytes == model_spec(str(path)).weights_bytes
    assert main(["simulate", "serving", f"model={REPO}", *SMALL]) == 0
    by_id = json.loads(capsys.readouterr().out)
    assert main(["simulate", "serving", f"model={path}", *SMALL]) == 0
    by_path = json.loads(capsys.readouterr().out)
    for report in (by_id, by_path):
        report.pop("wall_ms")  # --json: the one-unit rule (lab/cli/report_units.py)
    assert by_id.pop("model") == REPO and by_id["deployment"].pop("model") == REPO  # named by its id
    assert by_path.pop("model") == str(path) and by_path["deployment"].pop("model") == "abc123"  # its folder
    assert by_id == by_path


def test_refs_main_names_the_snapshot_and_hf_hub_cache_wins(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    main_path = _cache(tmp_path, revision="r1")
    other = main_path.parent.parent / "r2" / "config.json"
    other.parent.mkdir()
    shutil.copy(main_path, other)
    assert hf_cache.cached_config(REPO) == str(main_path)
    (main_path.parent.parent.parent / "refs" / "main").unlink()  # no ref: the newest snapshot
    os.utime(other, (2e9, 2e9))
    assert hf_cache.cached_config(REPO) == str(other)


def test_the_default_cache_is_under_home(tmp_path, monkeypatch):
    for name in ("HF_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert hf_cache.hub_cache() == str(tmp_path / ".cache" / "huggingface" / "hub")


def test_an_id_not_cached_says_how_to_get_it(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    with pytest.raises(ParamError) as err:
        model_spec("Org/Missing-1B")
    text = err.value.message
    assert "huggingface-cli download Org/Missing-1B config.json" in text and "nothing is downloaded" in text
    assert str(tmp_path / "hub" / "models--Org--Missing-1B") in text
    assert main(["simulate", "serving", "model=Org/Missing-1B", *SMALL]) == 2
    assert capsys.readouterr().err.startswith("lab simulate serving: model: 'Org/Missing-1B': no Hugging Face")


@pytest.mark.parametrize("text, hub", [("Qwen/Qwen3-8B", True), ("meta-llama/Llama-3.1-8B-Instruct", True),
                                       ("qwen3-8b", False), ("dir/config.json", False), ("a/b/c", False),
                                       ("../x", False), ("/abs/path", False)])
def test_what_counts_as_an_id(text, hub):
    assert hf_cache.looks_like_hub_id(text) is hub
