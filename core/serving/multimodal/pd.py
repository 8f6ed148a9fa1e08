"""E -> P -> D: image requests through prefill/decode pools (`lab simulate serving
pools=1P2D image_share=0.5 ...`, or pools= with a trace that has an images column).

The encoder runs in the prefill instance (vLLM V1's encoder before the request's prefill,
within the prefill engine's max_num_encoder_input_tokens), or on an EPD encoder pool whose
EC lands at the prefill pool over ec_link_gb_s=; either way the prompt carries the
images' visual tokens, so the KV that crosses kv_link= to the decode pool is the whole
prompt's, visual tokens included (the decode pool never encodes). The report is the P/D
run's (core/serving/disagg/report.py) plus the images block of a single-pool run
(stage.py); TTFT and the book's metrics count from the arrival at the system; the pools'
own figures and what waited where from the prefill pool's arrivals (after the EC landed,
EPD), and the images block says what the encoders and the EC link added before that.
Stated: one encoder cache for the whole prefill pool (each instance has its own in vLLM).
No Qt here.
"""
from __future__ import annotations

import dataclasses

from core.registry import ParamError
from core.serving.disagg.capacity import cheapest_report, parse_cheapest
from core.serving.disagg.report import build, report_of
from core.serving.disagg.run import prefill_workload, replay_disagg
from core.serving.engine import validate
from core.serving.multimodal.keys import pop_image_keys
from core.serving.multimodal.stage import add_encoder_cards, encoder_card, image_stage

NOT_WITH_IMAGES = ("seeds", "dataset", "profile")


def pd_images_report(raw: dict, workload=None, progress=None) -> tuple[dict, tuple]:
    """serving_report's (report, (result, workload)) for P/D keys with image keys (or an
    images trace); pools=cheapest[:XxY] searches with the images in every candidate."""
    limits = parse_cheapest(raw["pools"]) if "pools" in raw else None
    if limits is not None:
        return cheapest_report({k: v for k, v in raw.items() if k != "pools"}, limits, one=pd_images_report)
    raw = dict(raw)
    mm = pop_image_keys(raw)
    for name in NOT_WITH_IMAGES:
        if name in raw:
            raise ParamError(name, "not with images yet; valid: a run of the windows or of a trace")
    cfg, work, prefill, decode, k = build(raw, workload, progress)
    budget = mm["max_num_encoder_input_tokens"] or cfg.prefill.token_budget
    cfg = dataclasses.replace(cfg, prefill=dataclasses.replace(cfg.prefill, max_num_encoder_input_tokens=budget))
    stage = image_stage(work, mm, budget, encoder_card(prefill.expanded.got), k.prefill_replicas,
                        shared_by="the prefill instances")
    lm = stage.lm
    validate(cfg.prefill, prefill_workload(lm))
    validate(cfg.decode, dataclasses.replace(lm, encoder=None))  # the decode pool holds the whole prompt's KV
    run = replay_disagg(lm, cfg)
    report, files = report_of(raw, cfg, lm, prefill, decode, k, run, arrival_s=work.arrival_s if stage.later else None)
    block = dict(stage.block)
    encoder_s = (run.prefill.merged.extras or {}).get("encoder_s")
    if encoder_s is not None:
        block["engine_encoder_ms"] = float(encoder_s) * 1e3
    block["pool"] = "prefill"  # where the encoder ran or where the EC landed
    add_encoder_cards([report, report["disaggregation"]], block,
                      report["disaggregation"]["prefill"]["price_per_card_hour"], files[0])
    report["images"] = block
    return report, files
