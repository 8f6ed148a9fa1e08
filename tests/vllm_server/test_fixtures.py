"""The runs recorded from the real vLLM CPU server (tests/data/vllm_cpu, its README says how)
as the lab reads them: its trace loader, the lab_observe metrics, the step log. The main
suite runs these (no server needed)."""
from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from core.observe.steps import compare_steps, lab_cost, predicted_ms, read_steps
from core.serving.traces.vllm_bench import read_vllm_bench

DATA = Path(__file__).resolve().parents[1] / "data" / "vllm_cpu"
REPO = Path(__file__).resolve().parents[2]
LOADS = ("low", "medium", "medium_repeat", "saturated")
RUNS = (*LOADS, "small_kv", "prefix")
CARD = "core/data/hardware/cpu-2core.toml"
# The lab's view of the server's settings (scripts/vllm_cpu/serve.sh): the KV pool given
# as the blocks' bytes in the lab's bf16 accounting (1024 blocks of 32 tokens).
ENGINE = {"model": "tiny-llama-cpu", "hardware": CARD, "block_size": "32", "max_num_seqs": "128",
          "token_budget": "2048", "kv_pool_bytes": str(1024 * 32 * 2048)}


def load(name: str) -> dict:
    return json.loads((DATA / f"{name}.json").read_text())


def delta(run: dict, name: str) -> float:
    return float(run["lab_observe"]["metrics"]["delta"][f"vllm:{name}"])


@pytest.mark.parametrize("name", RUNS)
def test_every_run_is_read_by_the_lab_with_its_token_counts(name):
    run = load(name)
    n = run["num_prompts"]
    assert run["completed"] == n and run["failed"] == 0 and run["errors"] == [""] * n
    lab = run["lab_observe"]
    # the server's usage: exactly the lengths drawn
    assert run["input_lens"] == lab["planned_input_lens"]
    assert run["output_lens"] == lab["planned_output_lens"]
    assert set(lab["token_count_source"]) == {"server"}
    assert delta(run, "prompt_tokens_total") == sum(run["input_lens"])
    assert delta(run, "generation_tokens_total") == sum(run["output_lens"])
    assert delta(run, "request_success_total") == n
    parsed = read_vllm_bench((DATA / f"{name}.json").read_text())
    assert parsed.input_tokens.tolist() == run["input_lens"]
    assert parsed.output_tokens.tolist() == run["output_lens"]
    assert len(parsed.measured["ttfts_s"]) == n
    assert (DATA / f"{name}.json").stat().st_size < 40_000  # a small fixture


def test_the_three_loads_share_one_workload_at_rising_rates():
    runs = {name: load(name) for name in LOADS}
    assert [runs[n]["request_rate"] for n in LOADS] == [2.0, 8.0, 8.0, "inf"]
    for run in runs.values():
        assert run["num_prompts"] == 30
        assert min(run["input_lens"]) >= 64 and max(run["input_lens"]) <= 192  # 128, range ratio 0.5
        assert min(run["output_lens"]) >= 12 and max(run["output_lens"]) <= 36
    # each run drew its own prompts (a repeat of another's would hit the prefix cache)
    assert all(delta(run, "prefix_cache_hits_total") == 0 for run in runs.values())
    ttft = {n: statistics.median(runs[n]["ttfts"]) for n in LOADS}
    assert ttft["saturated"] > 3 * ttft["low"]  # queueing: the burst waits for the budget's steps


def test_a_small_pool_preempts():
    run = load("small_kv")
    cache = run["lab_observe"]["metrics"]["cache_config"]
    assert cache["num_gpu_blocks"] == "32" and cache["block_size"] == "32"
    assert delta(run, "num_preemptions_total") > 0
    assert all(load(n)["lab_observe"]["metrics"]["delta"]["vllm:num_preemptions_total"] == 0 for n in LOADS)


def test_a_shared_prefix_hits_the_cache():
    run = load("prefix")
    assert run["input_lens"] == [448] * 16  # 384 shared + 64 own
    hits, queries = delta(run, "prefix_cache_hits_total"), delta(run, "prefix_cache_queries_total")
    assert queries == 16 * 448 and hits == 15 * 384  # all but the first found the 12 blocks
    assert run["lab_observe"]["metrics"]["prefix_cache_hit_rate"] == pytest.approx(hits / queries)
    assert hits / queries > 0.75


def test_the_step_log_is_the_medium_run():
    """The medium run's step lines: prompts' tokens add up to its prompts, decodes' to every
    output token but each request's first (sampled by its prefill step)."""
    steps = read_steps(str(DATA / "medium_steps.log"))
    run = load("medium")
    assert steps.pool_tokens == 32768
    assert int(steps.ctx_tokens.sum()) == sum(run["input_lens"])
    assert int(steps.gen_tokens.sum()) == sum(run["output_lens"]) - len(run["output_lens"])
    assert int(steps.ctx_requests.sum()) == len(run["input_lens"])
    assert (steps.elapsed_ms > 0).all() and (steps.index[1:] > steps.index[:-1]).all()


def test_the_step_log_against_the_lab_model():
    steps = read_steps(str(DATA / "medium_steps.log"))
    report = compare_steps(steps, predicted_ms(steps, lab_cost(ENGINE)))
    assert report["all"]["steps"] == len(steps)
    assert report["decode"]["steps"] + report["prefill"]["steps"] + report["mixed"]["steps"] == len(steps)
    for kind in report.values():
        assert kind["predicted_median_ms"] > 0 and kind["measured_median_ms"] > 0


def test_lab_simulate_serving_replays_a_recorded_run():
    """`lab simulate serving trace=` of the medium run: its requests, the server's pool in
    blocks, and the same prompt and decode tokens as the server's step log counted."""
    args = [f"{k}={v}" for k, v in ENGINE.items()]
    done = subprocess.run([sys.executable, "-m", "lab", "simulate", "serving", f"trace={DATA / 'medium.json'}",
                           *args, "--json"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    steps = read_steps(str(DATA / "medium_steps.log"))
    assert out["requests"] == out["completed"] == 30 and out["failed"] == 0
    assert out["kv_pool_blocks"] == 1024 == steps.pool_tokens // 32
    assert out["prefill_tokens_total"] == int(steps.ctx_tokens.sum())
    assert out["decode_steps_total"] == int(steps.gen_tokens.sum())
    assert out["step_model"]["kind"] == "basis"


def test_vllm_bench_serve_of_the_same_server_is_read_alike():
    """A `vllm bench serve --save-result --save-detailed` result (vLLM 0.32's own client)
    of the same server: the lab reads it as it reads lab observe's, and lab observe writes
    every per-request key of it the lab reads."""
    bench = load("vllm_bench")
    assert bench["completed"] == 20 and bench["errors"] == [""] * 20
    assert sum(bench["input_lens"]) == bench["total_input_tokens"]
    assert sum(bench["output_lens"]) == bench["total_output_tokens"]
    # vllm bench counts a stream's chunks too: a chunk may carry several tokens
    assert all(1 <= len(g) <= n - 1 for g, n in zip(bench["itls"], bench["output_lens"]))
    parsed = read_vllm_bench((DATA / "vllm_bench.json").read_text())
    assert parsed.input_tokens.tolist() == bench["input_lens"]
    assert parsed.output_tokens.tolist() == bench["output_lens"]
    observed = load("medium")
    per_request = {"input_lens", "output_lens", "ttfts", "itls", "start_times", "errors", "generated_texts"}
    assert per_request <= set(bench) and per_request <= set(observed)
    for key in ("num_prompts", "request_rate", "burstiness", "max_concurrency", "model_id", "duration", "completed"):
        assert key in bench and key in observed
