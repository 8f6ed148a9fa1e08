"""`lab simulate serving` with prefill/decode pools: the report of a P/D run, headless.

    report, (result, workload) = disagg_report({"pools": "2P4D", "kv_link": "rdma-400g"})

It keeps the plain report's keys where they mean the same (the book's metrics, vllm bench
serve's names, the prefix cache's figures: all of the merged run, TTFT from the prefill
pool, TPOT and E2E to the decode finish, so they include the transfer) and adds
"disaggregation": the pools (instances, router, deployment, cards, steps, KV peak, per
instance), the link and the transfer (bytes, ms), what waited where (p50 / p95 /
max / mean in ms over the requests that decoded; times in ms as the JSON's one-unit rule
has them, lab/cli/report_units.py) and the cost of both pools' cards. Bad keys raise
ParamError naming the field. No Qt here.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from core.serving import replay as rp
from core.serving.cost import cost_per_million_output_tokens, finished_output_tokens
from core.serving.disagg import keys as pd
from core.serving.disagg import links
from core.serving.disagg.run import DisaggConfig, DisaggRun, prefill_workload, replay_disagg
from core.serving.disagg.sides import Side, resolve_side, shared_workload
from core.serving.engine import validate
from core.serving.gap_runs import Gaps, gap_stats
from core.serving.vllm_metrics import PERCENTILES, bench_metrics, duration_s, itl_gaps, weighted_stats

SLO_KEYS = ("slo_ttft_ms", "slo_tpot_ms", "slo_e2el_ms")


def build(raw: dict, workload=None, progress=None):
    """(DisaggConfig, workload, prefill Side, decode Side, PdKeys) for text keys."""
    k = pd.split(raw)
    prefill = resolve_side("prefill", k.sides["prefill"], k.prefill_replicas, frozenset(k.own["prefill"]))
    decode = resolve_side("decode", k.sides["decode"], k.decode_replicas, frozenset(k.own["decode"]))
    if prefill.expanded.choice.model != decode.expanded.choice.model:  # pragma: no cover - model= is shared
        raise AssertionError("the two pools serve one model")
    work = shared_workload(prefill, workload, progress)
    validate(prefill.config, prefill_workload(work))
    validate(decode.config, work)
    link = links.resolve(k.kv_link, prefill.card, decode.card, k.kv_link_latency_s)
    cfg = DisaggConfig(prefill=prefill.config, decode=decode.config, prefill_replicas=k.prefill_replicas,
                       decode_replicas=k.decode_replicas, link=link, kv_transfer=k.kv_transfer,
                       prefill_router=k.prefill_router, decode_router=k.decode_router,
                       kv_bytes_per_token=decode.kv_bytes_per_token,
                       kv_bytes_per_token_per_card=decode.kv_bytes_per_token_per_card, layers=decode.layers)
    return cfg, work, prefill, decode, k


def disagg_report(raw: dict, workload=None, progress=None) -> tuple[dict, tuple]:
    cfg, work, prefill, decode, k = build(raw, workload, progress)
    return report_of(raw, cfg, work, prefill, decode, k, replay_disagg(work, cfg))


def report_of(raw: dict, cfg: DisaggConfig, work, prefill: Side, decode: Side, k, run: DisaggRun,
              arrival_s: np.ndarray | None = None) -> tuple[dict, tuple]:
    """The report of a run of work (the prefill pool's arrivals). arrival_s: the requests'
    arrival at the system where the prefill pool saw them later (an EPD stage in front):
    the book's metrics and vllm bench's names count from it; the pools' own figures and
    what waited where from the prefill pool's arrivals."""
    block = disaggregation(run, cfg, prefill, decode, k)
    result = run.result
    if arrival_s is not None:
        result = dataclasses.replace(result, arrival_s=np.asarray(arrival_s, float))
        work = dataclasses.replace(work, arrival_s=np.asarray(arrival_s, float))
        if block["cost_per_hour"] is not None:  # over the run's duration from the first arrival at the system
            block["cost_per_million_output_tokens"] = cost_per_million_output_tokens(
                block["cost_per_hour"], duration_s(result), finished_output_tokens(result))
    summary = rp.summarize(result, work, decode.config)
    report = {key: v for key, v in summary.items() if not key.startswith("series_")}
    got = prefill.expanded.got
    report["source"] = (f"trace {got['trace']}" if "trace" in got else f"dataset {got['dataset']}"
                        if got.get("dataset") else f"scenario {got['scenario']}" if "scenario" in got else "windows")
    if "model" in got or "hardware" in got:
        report["model"], report["hardware"] = got.get("model"), got.get("hardware")
    slos = {key: got[key] for key in SLO_KEYS if key in got}
    report.update(bench_metrics(result, work, cost=decode.config.cost, **slos))
    report.update(decode_itl(run, decode.config.cost))
    if slos:
        report["goodput_slos_ms"] = {key[4:-3]: v for key, v in slos.items()}
    cached = 0 if result.cached_tokens is None else int(np.sum(result.cached_tokens))
    prompt = int(np.sum(result.input_tokens))
    report.update(prefix_caching=bool(prefill.values["prefix_caching"]), cached_tokens_total=cached,
                  cache_hit_rate=cached / prompt if prompt else 0.0,
                  prefix_information=work.prefix is not None)
    if "seeds" in got:  # the book's metrics over seeds, each run as this one (a trace is refused seeds)
        runs = []
        for seed in got["seeds"]:
            cfg_s, work_s, *_ = build(dict(_without(raw, "seeds"), seed=str(seed)))
            runs.append(rp.summarize(replay_disagg(work_s, cfg_s).result, work_s, decode.config))
        report["band"] = {m: {"min": float(np.min([r[m] for r in runs])), "median": float(np.median([r[m] for r in runs])),
                              "max": float(np.max([r[m] for r in runs]))} for m in rp.METRICS}
        report["seeds"] = got["seeds"]
    report["disaggregation"] = block
    # at the top as a plain run has them: a sweep's Pareto set and cheapest setting read them
    report.update(cards=block["cards"], cost_per_hour=block["cost_per_hour"],
                  cost_per_million_output_tokens=block["cost_per_million_output_tokens"])
    return report, (result, work)


def _without(raw: dict, key: str) -> dict:
    return {k: v for k, v in raw.items() if k != key}


def decode_itl(run: DisaggRun, cost) -> dict:
    """vllm bench's itl figures from the decode instances' own steps (each engine's series:
    the merged series' union grid would cut a decode step at every prefill event). The
    handoff gap (token 1 at the prefill, token 2 at the decode) is not among them: it is
    the waits (decode queue, transfer, seat), and TPOT and E2E include it."""
    if run.decode is None:
        return {}
    parts = []
    for i, r in enumerate(run.decode.results):
        if r is None:
            continue
        mine = run.decode.engine_of == i  # an engine's result lists every request; its own decoded here
        own = dataclasses.replace(r, output_tokens=np.where(mine, r.output_tokens, 0),
                                  first_token_s=np.where(mine, r.first_token_s, 0.0),
                                  finish_s=np.where(mine, r.finish_s, 0.0))
        parts.append(itl_gaps(own, cost))
    gaps = Gaps(*(np.concatenate([getattr(g, f.name) for g in parts]) for f in dataclasses.fields(Gaps)))
    return {f"{stat}_itl_ms": value * 1000.0 for stat, value in gap_stats(gaps, weighted_stats, PERCENTILES).items()}


def disaggregation(run: DisaggRun, cfg: DisaggConfig, prefill: Side, decode: Side, k) -> dict:
    result = run.result
    assert result.kv_alloc_s is not None and result.kv_ready_s is not None  # merged_result sets both
    cols = result.extras["request_columns"]
    decoded = cols["decode_instance"] >= 0
    waits = {"prefill_queue_ms": result.first_schedule_s - result.arrival_s,
             "prefill_ms": result.first_token_s - result.first_schedule_s,
             "decode_queue_for_blocks_ms": result.kv_alloc_s - cols["prefill_done_s"],
             "transfer_ms": result.kv_ready_s - result.kv_alloc_s,
             "decode_seat_after_landing_ms": cols["decode_start_s"] - result.kv_ready_s,
             "decode_ms": result.finish_s - cols["decode_start_s"]}
    block = {"pools": k.label, "kv_transfer": cfg.kv_transfer, "kv_link": cfg.link.report(),
             "transfer": {"requests": int(decoded.sum()), "bytes_total": float(np.sum(run.transfer_bytes)),
                          "kv_bytes_per_token": cfg.bytes_per_token,
                          "kv_bytes_per_token_per_card": cfg.bytes_per_token_per_card,
                          "kv_cache_dtype": decode.deployment.kv_cache_dtype if decode.deployment else "auto",
                          "ms": _stats(run.transfer_s[decoded])},
             "waits": {name: _stats(v[decoded] if name not in ("prefill_queue_ms", "prefill_ms") else v)
                       for name, v in waits.items()}}
    cost = 0.0
    priced = True
    for side, pool, n, router in ((prefill, run.prefill, cfg.prefill_replicas, cfg.prefill_router),
                                  (decode, run.decode, cfg.decode_replicas, cfg.decode_router)):
        block[side.name] = _pool_block(side, pool, n, router)
        price = side.price_per_card_hour
        if price is None:
            priced = False
        else:
            cost += n * side.cards_per_instance * price
    block["cards"] = sum(block[s]["cards"] for s in ("prefill", "decode"))
    block["cost_per_hour"] = cost if priced else None
    block["cost_per_million_output_tokens"] = (cost_per_million_output_tokens(
        cost, duration_s(result), finished_output_tokens(result)) if priced else None)
    return block


def _pool_block(side: Side, pool, n: int, router: str) -> dict:
    out: dict[str, Any] = {"instances": n, "router": router, "cards_per_instance": side.cards_per_instance,
           "cards": n * side.cards_per_instance, "price_per_card_hour": side.price_per_card_hour,
           "price_source": side.expanded.price_note or "this card has no price; give "
                                                       f"{side.name}_price_per_card_hour=",
           "frontend": side.config.frontend.report() if side.config.frontend is not None else "off"}
    if side.deployment is not None:
        out["deployment"] = side.deployment.report()
    if pool is None:
        out.update(requests=0, engine_steps=0, preemptions=0, kv_peak_fraction=0.0, per_instance=[])
        return out
    r = pool.merged
    out.update(requests=int(pool.engine_of.size), engine_steps=int(r.engine_steps),
               preemptions=int(np.sum(r.preemptions)), kv_pool_blocks_per_instance=int(pool.results[0].num_blocks)
               if pool.results[0] is not None else 0,
               per_instance=[_instance(i, res, pool.engine_of) for i, res in enumerate(pool.results)])
    out["kv_peak_fraction"] = max((row["kv_peak_fraction"] for row in out["per_instance"]), default=0.0)
    if side.name == "prefill":  # the pool's own latency: TTFT is the prefill's
        out["ttft_ms"] = _stats(r.first_token_s - r.arrival_s)
    else:  # per token from the KV's landing to the last token (the decode instance's own pace)
        landed = np.asarray(r.kv_ready_s, float)
        out["tpot_from_landing_ms"] = _stats((r.finish_s - landed) / np.maximum(r.output_tokens - 1, 1))
    return out


def _instance(i: int, r, engine_of: np.ndarray) -> dict:
    if r is None:
        return {"instance": i, "requests": 0, "engine_steps": 0, "preemptions": 0, "kv_peak_fraction": 0.0}
    mine = engine_of == i
    return {"instance": i, "requests": int(mine.sum()), "engine_steps": int(r.engine_steps),
            "preemptions": int(np.sum(r.preemptions[mine])),
            "kv_peak_fraction": r.kv_peak_blocks / r.num_blocks if r.num_blocks else 0.0}


def _stats(values_s: np.ndarray) -> dict:
    """p50 (numpy's median), p95 (nearest rank), max, mean of the finite values, in ms (the
    report's JSON unit for times outside the book's figures)."""
    v = np.asarray(values_s, float) * 1e3
    v = v[np.isfinite(v)]
    if v.size == 0:
        return {"p50": None, "p95": None, "max": None, "mean": None}
    p95 = rp.nearest_rank_p95(v)
    return {"p50": float(np.median(v)), "p95": None if p95 is None or math.isnan(p95) else float(p95),
            "max": float(v.max()), "mean": float(v.mean())}
