"""Issue 12's step-time model: what the basis terms cost the compiled engine.

One BurstGPT-like stream (bench/serving_workloads.py) replayed on four engines in one
process, interleaved run by run: Llama-3.1-8B at tp=1 (dense) and Qwen3-30B-A3B at tp=8
(MoE: distinct experts, all-reduces) on H100 SXM, each priced by the roofline kind (the
deployment's figures through StepCost) and by the basis kind (core/serving/step_basis.py).
Prints JSON: CPU µs per request and per engine event (median/min/max over the runs), and
the ratio basis/roofline of each pair of runs taken back to back against the 20% bound
(the new terms must not slow the engine by more than 20%). The schedules differ a little
(the step times do), so µs per event is printed beside µs per request.

    PYTHONPATH=. .venv/bin/python bench/bench_step_model.py [--requests N] [--runs N]
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from benchstats import stats
from serving_workloads import synthetic_trace

from core.hardware_config import load_hardware
from core.model_config import model_spec
from core.serving.deployment import plan
from core.serving.engine import EngineConfig, replay
from core.serving.step_basis import from_deployment
from core.serving.step_cost import StepCost

BOUND = 1.20  # basis / roofline CPU time


def _configs():
    card = load_hardware("h100-sxm")
    out = {}
    for name, model, tp in (("dense_tp1", "llama-3.1-8b", 1), ("moe_tp8", "qwen3-30b-a3b", 8)):
        d = plan(model_spec(model), card, tp=tp, token_budget=8192, max_num_seqs=256)
        values = dict(d.replay_values(), bandwidth_bytes_per_s=card.bandwidth_bytes_per_s,
                      bandwidth_efficiency=0.85, prefill_mfu=0.5)
        roof = StepCost(**{k: float(values[k]) for k in ("weights_bytes", "kv_bytes_per_token", "matrix_flops_per_token",
                                                       "lm_head_flops_per_row", "attention_flops_per_pair",
                                                       "bandwidth_bytes_per_s", "peak_flops")})
        common = dict(max_num_seqs=256, block_size=16, kv_pool_bytes=d.engine_kv_pool_bytes, token_budget=8192)
        out[name] = {"roofline": EngineConfig(cost=roof, **common),
                     "basis": EngineConfig(cost=from_deployment(d, values), **common)}
    return out


def _timed(work, config):
    gc.collect()
    c0 = time.process_time()
    result = replay(work, config)
    return time.process_time() - c0, result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=50_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    work = synthetic_trace(args.requests, seed=3, rate_per_s=8.0)
    configs = _configs()
    for pair in configs.values():  # compile (or load the cache) outside the timings
        for config in pair.values():
            replay(synthetic_trace(200, seed=4, rate_per_s=8.0), config)
    times = {f"{n}_{k}": [] for n in configs for k in ("roofline", "basis")}
    events = {}
    ratios = {n: [] for n in configs}
    for _ in range(args.runs):
        for name, pair in configs.items():
            cpu = {}
            for kind, config in pair.items():
                cpu[kind], result = _timed(work, config)
                times[f"{name}_{kind}"].append(cpu[kind])
                events[f"{name}_{kind}"] = result.events
            ratios[name].append(cpu["basis"] / cpu["roofline"])
    n = len(work)
    report = {
        "requests": n, "runs": args.runs,
        "us_per_request": {k: stats(v, scale=1e6 / n, unit="µs") for k, v in times.items()},
        "us_per_event": {k: stats(v, scale=1e6 / events[k], unit="µs") for k, v in times.items()},
        "events": events,
        "basis_over_roofline": {k: stats(v, target=BOUND) for k, v in ratios.items()},
        "moe_tp8_over_dense_tp1_basis": stats([a / b for a, b in zip(times["moe_tp8_basis"], times["dense_tp1_basis"])]),
    }
    print(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
