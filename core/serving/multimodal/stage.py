"""What happens to a run's requests before the language model's engine sees them: their
images (a trace's images column or image_share=), the encoder plan and cache, and, with
an EPD pool, the encoders and the EC link. One stage for a single-pool run
(multimodal/report.py) and for a prefill/decode run (multimodal/pd.py): the engine that
takes `lm` is the one instance or the prefill pool. No Qt here.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from core import catalog
from core.registry import ParamError
from core.request.metrics import nearest_rank_value
from core.serving import replay as rp
from core.serving.cost import cost_per_million_output_tokens, finished_output_tokens
from core.serving.multimodal import encoder as enc
from core.serving.multimodal import images as im
from core.serving.multimodal.epd import EncoderPool, encode_and_ship
from core.serving.multimodal.link import Link
from core.serving.multimodal.lm import with_images
from core.serving.vllm_metrics import duration_s
from core.serving.workload import Workload

APPROXIMATION = ("encoder-cache hits decided in arrival order before the replay (LRU over first uses), not when "
                 "the engine schedules a request")


@dataclass(frozen=True)
class ImageStage:
    lm: Workload  # what the engine takes: visual tokens in the prompts, encoder work, arrivals
    block: dict  # the report's "images" block (the engine's own encoder seconds are added after the replay)
    later: bool  # lm.arrival_s is when the EC (EPD) or the image files landed, not the arrival at the system


def encoder_card(got: dict) -> str:
    """The card the encoder runs on: the serving card when it is a catalog key, else the book's."""
    hw = got.get("hardware")
    return hw if hw in catalog.hardware_keys() else rp.BOOK_CARD_KEY


def image_stage(work: Workload, mm: dict, budget: int, card: str, instances: int,
                shared_by: str = "the replicas") -> ImageStage:
    """mm: pop_image_keys' values; budget: the engine's max_num_encoder_input_tokens;
    instances: how many engines share the plan's one encoder cache (stated when > 1)."""
    table = images_of(work, mm)
    rate = enc.encoder_flops_per_s(card, mm["encoder_mfu"])
    order = np.argsort(work.arrival_s, kind="stable")
    capacity = budget if mm["encoder_cache_size"] is None else mm["encoder_cache_size"]  # vLLM: the budget
    plan = enc.plan(table, order, capacity, rate)
    block: dict = {"vision_model": table.vision_model, "encoder_card": card, "encoder_mfu": mm["encoder_mfu"],
                   "image_requests": int(np.count_nonzero(np.diff(table.offsets))),
                   "images": int(table.images.size), "visual_tokens_total": int(table.per_request("visual_tokens").sum()),
                   **plan_ms(plan.report()), "approximation": APPROXIMATION}
    if instances > 1:
        block["approximation"] += f"; one encoder cache shared by {shared_by} (each has its own in vLLM)"
    if mm["epd_encoders"] <= 0:
        block.update(mode="in_instance", max_num_encoder_input_tokens=budget)
        if mm["image_link_gb_s"] is None:
            return ImageStage(with_images(work, table, plan), block, False)
        return _shipped_images(work, table, plan, mm, block)
    if mm["image_link_gb_s"] is not None:
        raise ParamError("image_link_gb_s", "with epd_encoders= the encoders ship EC, not the image; valid: one "
                                            "handoff (leave image_link_gb_s= out, or epd_encoders=0)")
    link = Link(mm["ec_link_gb_s"] * 1e9, mm["ec_link_latency_s"])
    arrivals = encode_and_ship(work.arrival_s, table, plan, EncoderPool(mm["epd_encoders"], rate), link)
    lm = dataclasses.replace(with_images(work, table), arrival_s=arrivals.ec_ready_s)
    block.update(mode="epd", epd_encoders=mm["epd_encoders"], ec_link_gb_s=mm["ec_link_gb_s"],
                 ec_link_latency_s=mm["ec_link_latency_s"], ec_bytes_moved=arrivals.ec_bytes_moved,
                 encoder_busy_ms=arrivals.encoder_busy_s * 1e3,
                 **stage_ms("encoder", arrivals.encoded_s - work.arrival_s),
                 **stage_ms("ec_link", arrivals.ec_ready_s - arrivals.encoded_s),
                 **stage_ms("ec_wait", arrivals.ec_ready_s - work.arrival_s))
    return ImageStage(lm, block, True)


def _shipped_images(work: Workload, table: im.ImageTable, plan: enc.EncoderPlan, mm: dict, block: dict) -> ImageStage:
    """Ship the image: each request's files cross the link (FCFS, core/serving/multimodal/
    link.py) and the request reaches the instance, which encodes them, when they landed."""
    files = table.per_request_file_bytes()
    has = np.diff(table.offsets) > 0
    if np.any(has & (files <= 0)):
        row = int(np.flatnonzero(has & (files <= 0))[0])
        raise ParamError("image_link_gb_s", f"request {row}'s images carry no file size to ship; valid: images with "
                                            "their bytes (a trace's 'ID:HxW:BYTES' or file_bytes) or image_share=")
    link = Link(mm["image_link_gb_s"] * 1e9, mm["image_link_latency_s"])
    landed = link.send(work.arrival_s, files)
    block.update(image_link_gb_s=mm["image_link_gb_s"], image_link_latency_s=mm["image_link_latency_s"],
                 image_bytes_moved=int(files.sum()), **stage_ms("image_link", landed - work.arrival_s))
    lm = with_images(dataclasses.replace(work, arrival_s=landed), table, plan)
    return ImageStage(lm, block, True)


def add_encoder_cards(costs: list[dict], block: dict, price: float | None, result) -> None:
    """EPD's encoder cards are cards too: each priced as the card they feed (price, USD per
    card-hour; None: not priced), added to the cost keys of every dict in costs (the
    report's top and, in a P/D run, its disaggregation block) and to their "cards";
    the images block says what they cost."""
    n = int(block.get("epd_encoders", 0))
    if block.get("mode") != "epd" or n <= 0:
        return
    block["encoder_cards"] = n
    block["encoder_cost_per_hour"] = None if price is None else n * price
    for c in costs:
        if "cards" in c:
            c["cards"] += n
        if c.get("cost_per_hour") is None or price is None:
            continue
        c["cost_per_hour"] += n * price
        c["cost_per_million_output_tokens"] = cost_per_million_output_tokens(
            c["cost_per_hour"], duration_s(result), finished_output_tokens(result))


def images_of(work: Workload, mm: dict) -> im.ImageTable:
    """The trace's images column (meta["images"], one list per request) or the synthetic share."""
    listed = dict(work.meta or {}).get("images")
    if listed is not None and any(listed):
        return im.table(listed, mm["vision_model"])
    if mm["image_share"] <= 0:
        raise ParamError("image_share", "no request carries an image; valid: image_share > 0 or a trace with an "
                         "images column")
    return im.synthetic(len(work), mm["image_share"], mm["image_size"], mm["image_ids"],
                        vision_model=mm["vision_model"])


def stage_ms(name: str, seconds: np.ndarray) -> dict:
    """What one stage added per request: p50 and p95 (nearest rank), in ms (the JSON's one
    unit for times, lab/cli/report_units.py)."""
    return {f"{name}_p50_ms": _ms(nearest_rank_value(seconds, 0.50)), f"{name}_p95_ms": _ms(nearest_rank_value(seconds, 0.95))}


def plan_ms(plan: dict) -> dict:
    """The encoder plan's figures with its time in ms."""
    out = dict(plan)
    out["encoder_added_ms"] = out.pop("encoder_seconds_added") * 1e3
    return out


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else seconds * 1e3
