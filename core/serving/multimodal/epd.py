"""EPD: a separate encoder pool in front of the language model's prefill instance.

N encoders take images first come, first served (in the requests' arrival order, an image
to the encoder that frees first); each image's EC is shipped over the link to the prefill
instance as soon as it is encoded, and a request reaches the LM engine when the EC of all
its images has arrived. An image whose EC the prefill side already caches (the encoder
plan's hit) is neither encoded nor shipped.
"""
from __future__ import annotations

import dataclasses
import heapq
from dataclasses import dataclass

import numpy as np

from core.serving.multimodal.encoder import EncoderPlan
from core.serving.multimodal.images import ImageTable
from core.serving.multimodal.link import Link
from core.serving.multimodal.lm import with_images
from core.serving.workload import Workload


@dataclass(frozen=True)
class EncoderPool:
    encoders: int
    flops_per_s: float  # one encoder's: card peak x MFU


@dataclass(frozen=True)
class EPDArrivals:
    """Per request: when its EC was ready at the encoders and when it landed at prefill."""

    encoded_s: np.ndarray
    ec_ready_s: np.ndarray
    ec_bytes_moved: int
    encoder_busy_s: float


def encode_and_ship(arrival_s: np.ndarray, images: ImageTable, encoder: EncoderPlan, pool: EncoderPool,
                    link: Link) -> EPDArrivals:
    flops = images.column("encode_flops")
    ec = images.column("ec_bytes")
    n = images.requests
    free = [0.0] * max(1, pool.encoders)  # a heap of the encoders' free times
    heapq.heapify(free)
    slots, done_at = [], []
    encoded_s = np.array(arrival_s, dtype=float, copy=True)
    for i in np.argsort(arrival_s, kind="stable"):
        for slot in range(images.offsets[i], images.offsets[i + 1]):
            if not encoder.encoded[slot]:
                continue
            start = max(heapq.heappop(free), float(arrival_s[i]))
            end = start + flops[images.images[slot]] / pool.flops_per_s
            heapq.heappush(free, end)
            slots.append(slot)
            done_at.append(end)
            encoded_s[i] = max(encoded_s[i], end)
    rows = np.repeat(np.arange(n), np.diff(images.offsets))
    slots_a = np.array(slots, dtype=np.int64)
    sizes = ec[images.images[slots_a]] if slots else np.zeros(0)
    landed = link.send(np.array(done_at, dtype=float), sizes)
    ready = np.array(arrival_s, dtype=float, copy=True)
    if slots:
        np.maximum.at(ready, rows[slots_a], landed)
    busy = float(sum(flops[images.images[s]] for s in slots) / pool.flops_per_s)
    return EPDArrivals(encoded_s, ready, int(sizes.sum()), busy)


def lm_workload(work: Workload, images: ImageTable, arrivals: EPDArrivals) -> Workload:
    """The LM engine's workload: each request with its visual tokens, arriving when its EC
    has landed (TTFT still counts from the request's own arrival: work.arrival_s)."""
    return dataclasses.replace(with_images(work, images), arrival_s=arrivals.ec_ready_s)
