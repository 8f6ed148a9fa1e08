"""Benchmark of image requests through the engine (issue 15), printed as one JSON object.

    .venv/bin/python bench/bench_multimodal.py [--requests 4000] [--rate 20] [--repeats 5]

The image-heavy workload: Poisson arrivals, 200 text tokens and 128 output tokens per
request, half the requests with one 1280x1280 image (1,600 visual tokens, 8.261e12 encoder
FLOPs, 31.25 MiB EC), the images drawn at random from --distinct ids (a few popular images:
what an encoder cache is for), Qwen3-VL-4B on one H100 (core/serving/multimodal/lm.py),
the encoder in the same instance (vLLM V1). Run twice: without an encoder cache and with
vLLM's default encoder_cache_size (= max_num_batched_tokens, 8,192 visual tokens).
For each: the engine's µs per request (this process's CPU time of the replay / requests,
median/min/max over --repeats, after one warm-up that loads the compiled loop; the wall's too), the encoder plan's µs per
request (the cache decided in Python), TTFT p50/p95 (nearest rank), encoder-cache hits and
encoder seconds added; the text-only replay of the same arrivals as the reference cost;
and E -> P -> D: a 1P1D of the same cards with the cache (core/serving/disagg/run.py), the
prompts' KV, visual tokens included, over rdma-400g.
"""
from __future__ import annotations

import argparse
import json

import numpy as np
from benchstats import stats, timed_cpu

from core.request.metrics import nearest_rank_value
from core.serving.disagg.links import KvLinkSpec
from core.serving.disagg.run import DisaggConfig, replay_disagg
from core.serving.engine import replay
from core.serving.multimodal import encoder as enc
from core.serving.multimodal import images as im
from core.serving.multimodal.lm import engine_config, with_images
from core.serving.workload import Workload
from core.vision.calculator import KV_BYTES_PER_TOKEN

# E -> P -> D's link: one ConnectX-7 NIC a GPU (core/serving/disagg/links.py's rdma-400g).
RDMA_400G = KvLinkSpec("rdma-400g", 50e9, 5e-6, "ConnectX-7, 400 Gbit/s")


def workload(n: int, rate: float, distinct: int, seed: int) -> tuple[Workload, im.ImageTable]:
    rng = np.random.default_rng(seed)
    arrival = np.cumsum(rng.exponential(1.0 / rate, size=n))
    work = Workload(arrival_s=arrival, input_tokens=np.full(n, 200, dtype=np.int64),
                    output_tokens=np.full(n, 128, dtype=np.int64), label="image-heavy")
    carrying = np.diff(np.floor(np.arange(n + 1) * 0.5 + 1e-9)) > 0
    picks = rng.integers(0, distinct, size=n)
    table = im.table([[(f"img{picks[i]}", 1280, 1280)] if carrying[i] else [] for i in range(n)])
    return work, table


def one_way(work: Workload, table: im.ImageTable, capacity: int, repeats: int) -> dict:
    config = engine_config()
    order = np.argsort(work.arrival_s, kind="stable")
    rate = enc.encoder_flops_per_s()
    plan, _, plan_cpus = timed_cpu(lambda: enc.plan(table, order, capacity, rate), repeats)
    lm = with_images(work, table, plan)
    result, walls, cpus = timed_cpu(lambda: replay(lm, config), repeats, warm_up=True)  # the loop loaded once
    n = len(work)
    ttft = result.ttft_s if lm.arrival_s is work.arrival_s else result.first_token_s - work.arrival_s
    return {"encoder_cache_size": capacity, "us_per_request": stats(cpus, 1e6 / n, 2, unit="CPU µs"),
            "wall_us_per_request": stats(walls, 1e6 / n, 2, unit="µs"),
            "plan_us_per_request": stats(plan_cpus, 1e6 / n, 2, unit="CPU µs"),
            "ttft_p50_s": nearest_rank_value(ttft, 0.50), "ttft_p95_s": nearest_rank_value(ttft, 0.95),
            "engine_steps": result.engine_steps, **plan.report(),
            "engine_encoder_s": result.extras.get("encoder_s")}


def pd_way(work: Workload, table: im.ImageTable, capacity: int, repeats: int) -> dict:
    """E -> P -> D: 1P1D of the same cards, the encoder in the prefill instance, the prompt's
    KV (visual tokens included) over rdma-400g to the decode instance."""
    config = engine_config()
    plan = enc.plan(table, np.argsort(work.arrival_s, kind="stable"), capacity, enc.encoder_flops_per_s())
    lm = with_images(work, table, plan)
    cfg = DisaggConfig(prefill=config, decode=config, link=RDMA_400G, kv_bytes_per_token=float(KV_BYTES_PER_TOKEN),
                       layers=36)
    run, walls, cpus = timed_cpu(lambda: replay_disagg(lm, cfg), repeats, warm_up=True)
    r, n = run.result, len(work)
    return {"encoder_cache_size": capacity, "us_per_request": stats(cpus, 1e6 / n, 2, unit="CPU µs"),
            "wall_us_per_request": stats(walls, 1e6 / n, 2, unit="µs"),
            "ttft_p50_s": nearest_rank_value(r.ttft_s, 0.50), "ttft_p95_s": nearest_rank_value(r.ttft_s, 0.95),
            "kv_bytes_moved": float(run.transfer_bytes.sum()),
            "prefill_engine_encoder_s": (run.prefill.merged.extras or {}).get("encoder_s")}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=4000)
    ap.add_argument("--rate", type=float, default=20.0)
    ap.add_argument("--distinct", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    work, table = workload(args.requests, args.rate, args.distinct, args.seed)
    config = engine_config()
    text, text_walls, text_cpus = timed_cpu(lambda: replay(work, config), args.repeats, warm_up=True)
    report = {"requests": args.requests, "rate_per_s": args.rate, "image_requests": int(np.diff(table.offsets).sum()),
              "distinct_images": args.distinct,
              "encoder_card": enc.ENCODER_CARD, "encoder_mfu": enc.ENCODER_MFU,
              "text_only": {"us_per_request": stats(text_cpus, 1e6 / args.requests, 2, unit="CPU µs"),
                            "wall_us_per_request": stats(text_walls, 1e6 / args.requests, 2, unit="µs"),
                            "ttft_p50_s": nearest_rank_value(text.ttft_s, 0.5),
                            "ttft_p95_s": nearest_rank_value(text.ttft_s, 0.95)},
              "without_cache": one_way(work, table, 0, args.repeats),
              "with_cache": one_way(work, table, config.token_budget, args.repeats),
              "pd_1p1d_with_cache": pd_way(work, table, config.token_budget, args.repeats)}
    a, b = report["without_cache"], report["with_cache"]
    report["ratios_one_run"] = {"ttft_p95_without_over_with": a["ttft_p95_s"] / b["ttft_p95_s"],
                                "ttft_p50_without_over_with": a["ttft_p50_s"] / b["ttft_p50_s"],
                                "engine_us_with_images_over_text": b["us_per_request"]["median"]
                                / report["text_only"]["us_per_request"]["median"],
                                "pd_us_over_single_with_cache": report["pd_1p1d_with_cache"]["us_per_request"]["median"]
                                / b["us_per_request"]["median"]}
    print(json.dumps(report, indent=1, ensure_ascii=False))
    return report


if __name__ == "__main__":
    main()
