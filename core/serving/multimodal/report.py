"""`lab simulate serving` with images (keys: core/serving/multimodal/keys.py): the book's
windows or a trace, each request's images added (synthetic image_share=, or a trace's
`images` column), through the engine with the encoder in the instance (vLLM V1) or on an
EPD encoder pool; the ordinary report plus an "images" block (hits, EC bytes, encoder
seconds added, what each stage added). TTFT and the other latencies count from a
request's arrival at the system, also when its EC reached the engine later (EPD). No Qt.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from core.registry import ParamError, get
from core.serving import bench_keys, traces
from core.serving import replay as rp
from core.serving import simulate_keys as keys
from core.serving.cost import cost_report
from core.serving.engine import validate
from core.serving.multimodal.keys import pop_image_keys
from core.serving.multimodal.stage import add_encoder_cards, encoder_card, image_stage
from core.serving.traces.transforms import time_scaled
from core.serving.vllm_metrics import bench_metrics


def image_lines(report: dict) -> list[str]:
    """The text report's lines for the images block (none without one)."""
    b = report.get("images")
    if not b:
        return []
    pool = b.get("pool")  # "prefill" in a P/D run (core/serving/multimodal/pd.py)
    mode = (f"EPD: {b['epd_encoders']} encoder card(s), EC over {b['ec_link_gb_s']:g} GB/s"
            + (" to the prefill pool" if pool else "") if b["mode"] == "epd"
            else "encoder in the prefill instance (vLLM V1)" if pool else "encoder in the instance (vLLM V1)")
    lines = [f"  images: {b['images']:,} in {b['image_requests']:,} requests ({b['visual_tokens_total']:,} visual tokens, "
             f"{b['vision_model']} on {b['encoder_card']} at {b['encoder_mfu'] * 100:.0f}% MFU); {mode}",
             f"  encoder cache {b['encoder_cache_size']:,} tokens: {b['encoder_cache_hits']:,} hits, "
             f"{b['encoder_cache_misses']:,} encoded, EC {b['ec_bytes'] / 2**20:,.1f} MiB, "
             f"encoder time added {b['encoder_added_ms']:,.1f} ms"]
    if b.get("encoder_cards"):
        cost = b.get("encoder_cost_per_hour")
        lines.append(f"  {b['encoder_cards']} EPD encoder card(s): "
                     + (f"${cost:.2f}/hour, in the cost above" if cost is not None else "not priced"))
    if b.get("image_link_gb_s") is not None:
        lines.append(f"  image files shipped {b['image_bytes_moved'] / 1e6:,.1f} MB over {b['image_link_gb_s']:g} GB/s "
                     f"(the instance encodes them); added before the engine (p50 / p95): "
                     f"{b['image_link_p50_ms']:,.1f} / {b['image_link_p95_ms']:,.1f} ms")
    if b["mode"] == "epd":
        lines.append(f"  EC moved {b['ec_bytes_moved'] / 2**20:,.1f} MiB; added before the engine (p50 / p95): encoders "
                     f"{b['encoder_p50_ms']:,.1f} / {b['encoder_p95_ms']:,.1f} ms, link "
                     f"{b['ec_link_p50_ms']:,.1f} / {b['ec_link_p95_ms']:,.1f} ms")
    elif b.get("engine_encoder_ms") is not None:
        lines.append(f"  encoder time in engine steps {b['engine_encoder_ms']:,.1f} ms (re-encodes after preemptions "
                     "included)")
    return lines


def multimodal_report(raw: dict, workload=None, progress=None, trace_values=None) -> tuple[dict, tuple]:
    """serving_report's (report, (result, workload)) for a run with images. trace_values:
    headless's (serving.replay's values of a trace run: it dispatches here)."""
    raw = dict(raw)
    mm = pop_image_keys(raw)
    calc = get("serving.replay")
    expanded = keys.expand_checked(raw, lambda: "unknown parameter of lab simulate serving; valid: "
                                   + ", ".join([p.name for p in calc.params] + list(keys.names())))
    got = expanded.got
    for name in ("seeds", "dataset", "profile", "max_concurrency"):
        if name in got:
            raise ParamError(name, "not with images yet; valid: a run of the windows or of a trace")
    work, values = _workload(calc, expanded, workload, progress, trace_values)
    config = rp.config_from(values, expanded.step_cost(values))
    budget = mm["max_num_encoder_input_tokens"] or config.token_budget
    config = dataclasses.replace(config, max_num_encoder_input_tokens=budget)
    stage = image_stage(work, mm, budget, encoder_card(got), int(values["replicas"]))
    lm, block = stage.lm, stage.block
    validate(config, lm)
    result = rp.replay_workload(lm, config, values)
    if lm.arrival_s is not work.arrival_s:  # latencies from the arrival at the system, not at the engine
        result = dataclasses.replace(result, arrival_s=np.asarray(work.arrival_s, dtype=float))
    shown = dataclasses.replace(lm, arrival_s=work.arrival_s)
    summary = rp.summarize(result, shown, config)
    report = {k: v for k, v in summary.items() if not k.startswith("series_")}
    report["source"] = f"trace {got['trace']}" if "trace" in got else "windows"
    report.update(bench_metrics(result, shown, cost=config.cost))
    if "model" in got or "hardware" in got:
        report["model"], report["hardware"] = got.get("model"), got.get("hardware")
    if expanded.deployment is not None:
        report["deployment"] = expanded.deployment.report()
    cards = expanded.deployment.cards if expanded.deployment is not None else 1
    report.update(_cost(result, values, expanded.price_note, cards))
    add_encoder_cards([report], block, report["price_per_card_hour"], result)
    report.update(_cache(result, values, shown))
    report["client"] = bench_keys.report(config, shown, result)
    if "trace" in got:
        meta = dict(shown.meta or {})
        report["trace"] = {"format": meta.get("format"), "rows": meta.get("rows", len(shown)),
                           "dropped": {str(k): int(v) for k, v in dict(meta.get("dropped") or {}).items()},
                           "requests": len(shown)}
    if result.extras.get("encoder_s") is not None:
        block["engine_encoder_ms"] = float(result.extras["encoder_s"]) * 1e3
    report["images"] = block
    return report, (result, shown)


def _cost(result, values, price_note, cards: int) -> dict:
    """What the cards cost (core/serving/cost.py), as the plain report gives it."""
    price = None if price_note is None else float(values["price_per_card_hour"])
    out = cost_report(result, int(values["replicas"]), price, cards)
    out["router"] = str(values["router"])
    out["price_source"] = price_note or "this card has no price; give price_per_card_hour= (USD per card-hour)"
    return out


def _cache(result, values, work) -> dict:
    cached = 0 if result.cached_tokens is None else int(np.sum(result.cached_tokens))
    prompt = int(np.sum(result.input_tokens))
    return {"prefix_caching": bool(values["prefix_caching"]), "cached_tokens_total": cached,
            "cache_hit_rate": float(result.extras.get("cache_hit_rate", cached / prompt if prompt else 0.0)),
            "prefix_information": work.prefix is not None or work.sessions is not None}


def _workload(calc, expanded, preloaded, progress, trace_values):
    got = expanded.got
    if "trace" not in got:
        values = calc.resolve(expanded.raw)
        return rp.workload_from(values), values
    values = trace_values(calc, expanded.raw)
    if preloaded is not None:
        return time_scaled(preloaded, got.get("time_scale", 1.0)), values
    bar = progress(f"reading {Path(got['trace']).name}") if progress is not None else None
    try:
        return traces.load_trace(got["trace"], **keys.load_kwargs(got, bar)), values
    finally:
        if bar is not None and hasattr(bar, "close"):
            bar.close()


