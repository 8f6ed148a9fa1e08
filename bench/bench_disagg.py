"""Benchmark of prefill/decode disaggregation through the engine (issue 15), printed as one
JSON object.

    .venv/bin/python bench/bench_disagg.py [--copies 100] [--time-scale 4] [--repeats 5]

The workload: the Azure LLM inference 2023 conversation trace's excerpt in tests/data
(tests/data/traces/azure2023_conv_head.csv, its first 30 rows) laid end to end --copies
times (each copy shifted by the excerpt's span, so the arrival pattern repeats), its
arrivals --time-scale times as fast. Qwen3-8B on H200 cards (model= / hardware=: the basis
step model, the API server in front of the prefill pool), KV over rdma-400g, sent whole.
Runs, each timed over --repeats after one warm-up (the compiled loop loaded):
  single      the single-pool replay of the same keys (one engine, the prefill side's config)
  replicas_6  six engines of it behind least_kv (as many engines as 2P4D)
  1P1D, 2P4D  core.serving.disagg.run.replay_disagg (decode_router least_kv: the decode pool
              co-simulated, every engine advanced to each arrival)
  2P4D_round_robin  the same with decode_router=round_robin (each decode engine replayed alone)
For each: µs per request (this process's CPU time / requests, median/min/max; the wall's
too), and for the P/D runs the ratio of their CPU median to the single pool's in this
run, TTFT and E2E p50/p95 (nearest rank), the transfer's p50, and what waited where.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.benchstats import stats, timed_cpu  # noqa: E402
from core.request.metrics import nearest_rank_value  # noqa: E402
from core.serving import traces  # noqa: E402
from core.serving.disagg.report import build  # noqa: E402
from core.serving.disagg.run import replay_disagg  # noqa: E402
from core.serving.engine import replay  # noqa: E402
from core.serving.replicas import replay_replicas  # noqa: E402

EXCERPT = ROOT / "tests" / "data" / "traces" / "azure2023_conv_head.csv"
KEYS = {"model": "qwen3-8b", "hardware": "h200", "kv_link": "rdma-400g"}


def tiled_trace(copies: int, time_scale: float, folder: Path) -> Path:
    head = traces.load_trace(EXCERPT)
    span = float(head.arrival_s.max() - head.arrival_s.min()) + 1.0
    a = np.concatenate([head.arrival_s + k * span for k in range(copies)]) / time_scale
    p = np.tile(head.input_tokens, copies)
    g = np.tile(head.output_tokens, copies)
    path = folder / "azure_conv_tiled.csv"
    path.write_text("arrival_s,input_tokens,output_tokens\n"
                    + "".join(f"{x!r},{i},{o}\n" for x, i, o in zip(a.tolist(), p.tolist(), g.tolist())))
    return path


def _p(values, q):
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    return None if v.size == 0 else round(float(nearest_rank_value(v, q)), 4)


def _latency(result) -> dict:
    ttft, e2e = result.first_token_s - result.arrival_s, result.finish_s - result.arrival_s
    return {"ttft_p50_s": _p(ttft, 0.5), "ttft_p95_s": _p(ttft, 0.95), "e2e_p50_s": _p(e2e, 0.5),
            "e2e_p95_s": _p(e2e, 0.95)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--copies", type=int, default=100)
    ap.add_argument("--time-scale", type=float, default=4.0)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = tiled_trace(args.copies, args.time_scale, Path(tmp))
        cfg_1, work, prefill, _, _ = build(dict(KEYS, trace=str(path), pools="1P1D"))
        cfg_2 = build(dict(KEYS, trace=str(path), pools="2P4D"))[0]
    n = len(work)
    single_cfg = prefill.config
    out: dict = {"workload": {"source": f"{EXCERPT.name} x {args.copies}, time_scale {args.time_scale:g}",
                              "requests": n, "span_s": round(float(work.arrival_s.max()), 3),
                              "mean_input_tokens": round(float(work.input_tokens.mean()), 1),
                              "mean_output_tokens": round(float(work.output_tokens.mean()), 1)},
                 "keys": KEYS, "repeats": args.repeats, "runs": {}}
    runs = {"single": lambda: replay(work, single_cfg),
            "replicas_6": lambda: replay_replicas(work, single_cfg, 6, "least_kv"),
            "1P1D": lambda: replay_disagg(work, cfg_1).result,
            "2P4D": lambda: replay_disagg(work, dataclasses.replace(cfg_2, decode_router="least_kv")).result,
            "2P4D_round_robin": lambda: replay_disagg(work, dataclasses.replace(cfg_2, decode_router="round_robin")).result}
    medians = {}
    for name, fn in runs.items():
        result, walls, cpus = timed_cpu(fn, args.repeats, warm_up=True)
        us = stats([c / n for c in cpus], scale=1e6, digits=2, unit="CPU us/request")
        medians[name] = us["median"]
        row = {"us_per_request": us, "wall_us_per_request": stats([w / n for w in walls], scale=1e6, digits=2,
                                                                    unit="us/request"), **_latency(result)}
        if name.startswith(("1P1D", "2P4D")):
            cols = result.extras["request_columns"]
            decoded = cols["decode_instance"] >= 0
            row["transfer_p50_ms"] = round(float(np.median(cols["kv_transfer_s"][decoded])) * 1e3, 4)
            row["decode_wait_for_blocks_p95_s"] = _p((result.kv_alloc_s - cols["prefill_done_s"])[decoded], 0.95)
            row["prefill_queue_p95_s"] = _p(result.first_schedule_s - result.arrival_s, 0.95)
        out["runs"][name] = row
    out["ratio_to_single_median"] = {k: round(medians[k] / medians["single"], 2) for k in runs if k != "single"}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
