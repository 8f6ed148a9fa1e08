"""The book's three handoffs (§3.3.1, 图 3-16) as deployments of two instances joined by
one link: which representation of a visual question crosses it.

- image: the sender forwards the compressed file; the receiver encodes (its own encoder,
  in the LM instance, with its encoder cache), prefills and decodes.
- ec: the sender is an encoder pool (EPD); the EC crosses; the receiver prefills and decodes.
- kv: the sender encodes and prefills; the prompt's KV crosses (whole, once the prefill is
  done, one transfer after another on the link); the receiver decodes it as a remote-KV
  request (Workload.remote: it waits for blocks, then for the rest of its transfer). The
  first token, sampled by the sender, travels with the KV: TTFT is when the KV has landed
  at the receiver.

Each instance that computes is one card of the same kind (CARDS: the image's sender is a
front end that only forwards, so that deployment computes on one card, the others on
two). TTFT counts from the request's arrival at the sender; bytes are what crossed the
link (an encoder-cache hit moves no EC).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.cancel import NEVER, CancelToken
from core.request.metrics import nearest_rank_value
from core.serving.engine import replay
from core.serving.multimodal import encoder as enc
from core.serving.multimodal import images as im
from core.serving.multimodal.epd import EncoderPool, encode_and_ship, lm_workload
from core.serving.multimodal.link import Link
from core.serving.multimodal.lm import engine_config, with_images
from core.serving.workload import RemoteKV, Workload
from core.vision import calculator as vc
from core.vision.calculator import BOOK_FILE_BYTES

HANDOFFS = ("image", "ec", "kv")
# The handoff card's sweep: from a 1 Gbit/s NIC to NVLink's 450 GB/s each way.
PANEL_BANDWIDTHS = tuple(float(b) for b in np.geomspace(0.125e9, 450e9, 12))
LABELS = {"image": "ship the image (receiver encodes)", "ec": "ship EC (EPD)", "kv": "ship KV (P/D)"}
# Cards that compute in each: the image's sender only forwards the file (a front end).
CARDS = {"image": 1, "ec": 2, "kv": 2}


@dataclass(frozen=True)
class ImageLoad:
    """A stream of visual questions: Poisson arrivals, each with text, one image and output."""

    requests: int = 300
    rate_per_s: float = 6.0
    text_tokens: int = 200
    output_tokens: int = 128
    image_height: int = 640
    image_width: int = 640
    file_bytes: int = BOOK_FILE_BYTES
    image_share: float = 1.0
    distinct_images: int = 0  # 0: every image new
    # Several images per request (height, width, file bytes), as the Vision panel's request
    # holds them; empty: one image of image_height x image_width.
    images: tuple[tuple[int, int, int], ...] = ()
    encoder_cache_size: int = 0  # visual tokens (vLLM's encoder_cache_size); 0: none
    card: str = enc.ENCODER_CARD
    encoder_mfu: float = enc.ENCODER_MFU
    link_latency_s: float = 10e-6
    seed: int = 0

    def workload(self) -> tuple[Workload, im.ImageTable]:
        rng = np.random.default_rng(self.seed)
        arrival = np.cumsum(rng.exponential(1.0 / self.rate_per_s, size=self.requests))
        n = self.requests
        work = Workload(arrival_s=arrival, input_tokens=np.full(n, self.text_tokens, dtype=np.int64),
                        output_tokens=np.full(n, self.output_tokens, dtype=np.int64), label="visual questions")
        if not self.images:
            table = im.synthetic(n, self.image_share, (self.image_height, self.image_width), self.distinct_images,
                                 self.file_bytes)
            return work, table
        carrying = np.diff(np.floor(np.arange(n + 1) * self.image_share + 1e-9)) > 0
        per: list[list[tuple]] = []
        count = 0
        for has in carrying:
            key = count % self.distinct_images if self.distinct_images > 0 else count
            per.append([(f"img{key}.{j}", h, w, fb) for j, (h, w, fb) in enumerate(self.images)] if has else [])
            count += int(has)
        return work, im.table(per)


def request_load(inputs: Mapping[str, Any], rate_per_s: float, requests: int = 200, output_tokens: int = 128) -> ImageLoad:
    """The Vision panel's request (vision.request's inputs: its images, text and prefix
    tokens) as a load: every request asks that question about images of its own."""
    sizes = vc.expand_images(inputs["heights"], inputs["widths"], inputs.get("file_bytes"))
    return ImageLoad(requests=requests, rate_per_s=float(rate_per_s), output_tokens=output_tokens,
                     text_tokens=int(inputs.get("text_tokens", 0)) + int(inputs.get("prefix_tokens", 0)),
                     images=tuple((int(h), int(w), int(fb)) for h, w, fb in sizes))


@dataclass(frozen=True)
class HandoffRun:
    handoff: str
    ttft_s: np.ndarray
    e2e_s: np.ndarray  # arrival to the last token
    bytes_moved: int

    @property
    def p50(self) -> float | None:
        return nearest_rank_value(self.ttft_s, 0.50)

    @property
    def p95(self) -> float | None:
        return nearest_rank_value(self.ttft_s, 0.95)

    def row(self) -> dict:
        n = max(1, self.ttft_s.size)
        return {"handoff": self.handoff, "ttft_p50_s": self.p50, "ttft_p95_s": self.p95,
                "e2e_p50_s": nearest_rank_value(self.e2e_s, 0.50), "e2e_p95_s": nearest_rank_value(self.e2e_s, 0.95),
                "bytes_moved": self.bytes_moved, "bytes_per_request": self.bytes_moved / n}


class Handoffs:
    """The three deployments of one load; the link is the only thing a sweep changes, so
    what does not depend on it (the encoder plan, the KV sender's prefill run, the EPD
    encoders) is computed once."""

    def __init__(self, load: ImageLoad, cancel: CancelToken = NEVER):
        self.load, self.cancel = load, cancel
        self.work, self.images = load.workload()
        self.flops_per_s = enc.encoder_flops_per_s(load.card, load.encoder_mfu)
        order = np.argsort(self.work.arrival_s, kind="stable")
        self.plan = enc.plan(self.images, order, load.encoder_cache_size, self.flops_per_s)
        self.config = engine_config(load.card)
        self._kv_sender: tuple[np.ndarray, np.ndarray] | None = None
        self._kv_prompt = self.work.input_tokens

    def _run(self, name: str, work: Workload, moved: int) -> HandoffRun:
        result = replay(work, self.config, cancel=self.cancel)
        return HandoffRun(name, result.first_token_s - self.work.arrival_s, result.finish_s - self.work.arrival_s, moved)

    def image(self, link: Link) -> HandoffRun:
        files = self.images.per_request_file_bytes()
        landed = link.send(self.work.arrival_s, files)
        moved = dataclasses.replace(self.work, arrival_s=landed)
        return self._run("image", with_images(moved, self.images, self.plan), int(files.sum()))

    def ec(self, link: Link) -> HandoffRun:
        pool = EncoderPool(1, self.flops_per_s)
        arrivals = encode_and_ship(self.work.arrival_s, self.images, self.plan, pool, link)
        return self._run("ec", lm_workload(self.work, self.images, arrivals), arrivals.ec_bytes_moved)

    def kv(self, link: Link) -> HandoffRun:
        if self._kv_sender is None:  # the sender's prefill: the link does not change it
            prefill = dataclasses.replace(with_images(self.work, self.images, self.plan),
                                          output_tokens=np.ones(len(self.work), dtype=np.int64))
            done = replay(prefill, self.config, cancel=self.cancel).first_token_s
            kv_bytes = prefill.input_tokens * self.config.cost.kv_bytes_per_token
            self._kv_sender = (done, kv_bytes)
            self._kv_prompt = prefill.input_tokens
        done, kv_bytes = self._kv_sender
        landed = link.send(done, kv_bytes)
        prompt = self._kv_prompt
        if int(self.work.output_tokens.min()) < 2:  # nothing to decode: the KV's landing is the answer
            return HandoffRun("kv", landed - self.work.arrival_s, landed - self.work.arrival_s, int(kv_bytes.sum()))
        # The receiver: each request arrives when its prefill is done and takes the rest of its
        # link time once its blocks are allocated (the link's queue included).
        decode = Workload(arrival_s=done, input_tokens=prompt, output_tokens=self.work.output_tokens,
                          label="kv handoff: decode", remote=RemoteKV(ready_tokens=prompt, transfer_s=landed - done))
        result = replay(decode, self.config, cancel=self.cancel)
        return HandoffRun("kv", result.kv_ready_s - self.work.arrival_s, result.finish_s - self.work.arrival_s,
                          int(kv_bytes.sum()))

    def run(self, handoff: str, link: Link) -> HandoffRun:
        return getattr(self, handoff)(link)


def sweep_bandwidth(bandwidths_bytes_per_s: Sequence[float], load: ImageLoad = ImageLoad(),
                    handoffs: Sequence[str] = HANDOFFS, cancel: CancelToken = NEVER) -> dict:
    """TTFT p50/p95 and bytes of each handoff at each link bandwidth (the Vision panel's
    handoff card plots it): {"bandwidth_bytes_per_s": [...], handoff: {"ttft_p50_s": [...],
    "ttft_p95_s": [...], "bytes_per_request": float}, "load": {...}}."""
    deployments = Handoffs(load, cancel)
    out: dict = {"bandwidth_bytes_per_s": [float(b) for b in bandwidths_bytes_per_s],
                 "load": dataclasses.asdict(load), "encoder": deployments.plan.report()}
    for name in handoffs:
        rows = [deployments.run(name, Link(float(b), load.link_latency_s)).row() for b in bandwidths_bytes_per_s]
        out[name] = {"label": LABELS[name], "cards": CARDS[name], "ttft_p50_s": [r["ttft_p50_s"] for r in rows],
                     "ttft_p95_s": [r["ttft_p95_s"] for r in rows], "e2e_p50_s": [r["e2e_p50_s"] for r in rows],
                     "e2e_p95_s": [r["e2e_p95_s"] for r in rows],
                     "bytes_per_request": rows[0]["bytes_per_request"] if rows else 0.0}
    return out
