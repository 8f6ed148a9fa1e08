"""The vision encoder's time and the encoder cache (EC), decided before the replay.

Encoder seconds of an image = its encoder FLOPs (core/vision/calculator.py) / (the card's
BF16 dense peak from the catalog x ENCODER_MFU).

The encoder cache is vLLM's: `encoder_cache_size` visual tokens of encoder output kept
across requests, keyed by image id; an image found there is not encoded again (its encoder
FLOPs and seconds are skipped, its tokens still enter the prompt). Approximation, stated:
hits are decided here, in arrival order, by LRU over the images' first uses, not inside
the engine. vLLM decides when a request is scheduled and cannot evict an entry a running
request still reads; with a queue in front of the encoder the two orders can differ.
An image larger than the whole cache is encoded every time (never cached).
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from core import catalog
from core.serving.multimodal.images import ImageTable

ENCODER_CARD = "h100-sxm"
# The chapter's own figure for a vision tower on an H100: 40% of 989.4 TFLOP/s (the
# catalog's source note of h100-sxm); an encoder of ~1e12 FLOPs per image is a few large
# GEMMs plus attention, the same regime as a prefill.
ENCODER_MFU = 0.40


def encoder_flops_per_s(card: str = ENCODER_CARD, mfu: float = ENCODER_MFU) -> float:
    return catalog.hardware(card).figure("bf16_dense_flops") * mfu


@dataclass(frozen=True)
class EncoderPlan:
    """Per request (workload order): what its images cost the encoder after the cache."""

    seconds: np.ndarray  # float64: encoder time of the images not found in the cache
    tokens: np.ndarray  # int64: visual tokens the encoder computes (its input budget's count)
    flops: np.ndarray  # float64: encoder FLOPs actually spent
    hits: np.ndarray  # int64: images of the request served from the cache
    misses: np.ndarray  # int64: images encoded for the request
    ec_bytes: np.ndarray  # int64: EC bytes the encoder produced for the request
    encoded: np.ndarray  # bool per (request, image) slot of the table: True where it was encoded
    capacity_tokens: int

    def report(self) -> dict:
        return {"encoder_cache_size": self.capacity_tokens, "encoder_cache_hits": int(self.hits.sum()),
                "encoder_cache_misses": int(self.misses.sum()), "ec_bytes": int(self.ec_bytes.sum()),
                "encoder_flops": float(self.flops.sum()), "encoder_seconds_added": float(self.seconds.sum())}


def plan(images: ImageTable, order: np.ndarray, capacity_tokens: int, flops_per_s: float) -> EncoderPlan:
    """Decide hits request by request in `order` (the arrival order; ties as given).
    capacity_tokens=0: no encoder cache (every image encodes, a repeat inside one request
    too would be encoded once: vLLM hashes the items of a request as well)."""
    tokens_of = images.column("visual_tokens")
    flops_of = images.column("encode_flops")
    ec_of = images.column("ec_bytes")
    n = images.requests
    sec, tok, flo = np.zeros(n), np.zeros(n, dtype=np.int64), np.zeros(n)
    hits, misses, ec = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    encoded = np.zeros(images.images.size, dtype=bool)
    cache: OrderedDict[int, int] = OrderedDict()  # image -> tokens, least recently used first
    used = 0
    for i in order:
        seen: set[int] = set()
        for slot in range(images.offsets[i], images.offsets[i + 1]):
            k = int(images.images[slot])
            if k in seen:  # the same image twice in one prompt: encoded once
                hits[i] += 1
                continue
            seen.add(k)
            if k in cache:
                cache.move_to_end(k)
                hits[i] += 1
                continue
            encoded[slot] = True
            misses[i] += 1
            tok[i] += tokens_of[k]
            flo[i] += flops_of[k]
            ec[i] += ec_of[k]
            size = int(tokens_of[k])
            if capacity_tokens > 0 and size <= capacity_tokens:
                while used + size > capacity_tokens:
                    _, freed = cache.popitem(last=False)
                    used -= freed
                cache[k] = size
                used += size
    sec[:] = flo / flops_per_s
    return EncoderPlan(sec, tok, flo, hits, misses, ec, encoded, int(capacity_tokens))
