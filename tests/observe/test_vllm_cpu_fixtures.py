"""Results `lab observe` recorded from the real CPU vLLM server (tests/data/vllm_cpu/,
brief V's runs) read back by the lab's loader: the server counted exactly the tokens the
plan asked for, and what the server's counters say holds (prefix hits with a shared
prefix, preemptions with a small pool, queueing at a high rate)."""
import json
from pathlib import Path

import numpy as np
import pytest

from core.serving import traces

DATA = Path(__file__).resolve().parents[1] / "data" / "vllm_cpu"
RUNS = ("low", "medium", "medium_repeat", "saturated", "prefix", "small_kv")


def _load(name):
    path = DATA / f"{name}.json"
    return json.loads(path.read_text()), traces.load_trace(path)


@pytest.mark.parametrize("name", RUNS)
def test_recorded_run_reads_back_with_exact_counts(name):
    res, work = _load(name)
    lab = res["lab_observe"]
    assert res["failed"] == 0 and res["completed"] == res["num_prompts"] == len(work.input_tokens)
    assert res["input_lens"] == lab["planned_input_lens"]  # one token a word: the server counted what was sent
    assert res["output_lens"] == lab["planned_output_lens"]  # ignore_eos + max_tokens
    assert work.input_tokens.tolist() == res["input_lens"] and work.output_tokens.tolist() == res["output_lens"]
    starts = np.array(res["start_times"])
    assert np.allclose(work.arrival_s, starts - starts.min(), rtol=0, atol=1e-9)
    assert lab["metrics"]["delta"]["vllm:prompt_tokens_total"] == res["total_input_tokens"]
    assert lab["metrics"]["delta"]["vllm:generation_tokens_total"] == res["total_output_tokens"]
    assert [sum(c) for c in lab["chunk_tokens"]] == res["output_lens"]  # the per-chunk usage adds up


def test_a_shared_prefix_hits_the_servers_cache_and_the_replays_blocks():
    res, work = _load("prefix")
    lab = res["lab_observe"]
    block = int(lab["metrics"]["cache_config"]["block_size"])
    full = lab["prefix_tokens"] // block
    hits = lab["metrics"]["delta"]["vllm:prefix_cache_hits_total"]
    assert hits == (res["num_prompts"] - 1) * full * block  # every request after the first hit the whole prefix
    ids, offsets = work.prefix.ids, work.prefix.offsets
    assert work.prefix.block_tokens == block
    for i in range(len(offsets) - 1):
        assert ids[offsets[i]:offsets[i] + full].tolist() == list(range(full))


def test_a_small_pool_preempts_and_load_queues():
    small, _ = _load("small_kv")
    assert small["lab_observe"]["metrics"]["delta"]["vllm:num_preemptions_total"] > 0
    low, _ = _load("low")
    saturated, _ = _load("saturated")
    assert saturated["median_ttft_ms"] > low["median_ttft_ms"]  # all sent at once: they wait for each other
