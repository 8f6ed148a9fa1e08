"""The link a request's KV crosses from its prefill instance to its decode instance, and
how long that takes.

kv_link= names it:
  nvlink, pcie       the cards' own scale-up link (both sides on one node): the slower of
                     the two cards' figures in the hardware catalog (per GPU, each way);
                     refused when a card has another kind of link
  rdma-200g,         a NIC per GPU (core/data/catalog.json "kv_links", with sources):
  rdma-400g          ConnectX-7 at 200 or 400 Gb/s
  a number           GB/s per GPU each way (latency: kv_link_latency_s=, else 0)
  inf                an ideal link: no transfer time at all (what-ifs and the tests)
kv_link_latency_s= replaces the catalog's latency (a connector's own setup cost).

Transfer time of a request with P prompt tokens (its KV is in the decode card's dtype,
kv_cache_dtype= of the decode side; the first sampled token's KV is computed on the
decode side, as vLLM's connectors leave it):
  bytes       = P × KV bytes per token of the whole decode instance (every TP rank's heads,
                every PP stage's layers): what crosses the links in all
  whole       = P × KV bytes per token of one decode card / bandwidth + latency
                (each of the instance's tp · pp cards pulls its own share over its own
                link, in parallel; the most loaded card's share sets the time)
  layerwise   = max(whole_wire / L, whole_wire − prefill_s · (L − 1) / L) + latency
                (layer l is sent as soon as the prefill computed it: only the last
                layer's share is exposed, unless the link is slower than the compute;
                the decode side still takes its blocks when the prefill is done, as in
                whole: a layerwise connector reserves them before the prefill starts,
                and that longer hold is not modelled)
Each transfer has its link to itself (stated): transfers in flight at once into one decode
instance do not share its bandwidth, as they would on one NIC; the Serving panel's "KV
transfers in flight" shows when they overlap. (The EC and image links of
core/serving/multimodal/link.py do queue, one transfer after another.)
The default is whole: vLLM V1's NixlConnector (the path llm-d and Dynamo deploy) pulls a
request's blocks once its prefill finished (the decode side's WAITING_FOR_REMOTE_KVS);
layer-by-layer sending is what LMCache's layerwise mode and P2pNccl-style pushes do.
No Qt here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core import catalog
from core.registry import ParamError
from core.serving.pd_params import OVERLAPS
from core.units import NumberError, parse_number

CARD_LINKS = ("nvlink", "pcie")
MAX_LINK_GB_S = 1e6


def link_choices() -> tuple[str, ...]:
    return CARD_LINKS + tuple(catalog.kv_link_keys()) + ("inf",)


@dataclass(frozen=True)
class KvLinkSpec:
    """A resolved kv_link: per GPU, each direction."""

    name: str
    bandwidth_bytes_per_s: float  # inf: an ideal link
    latency_s: float
    source: str

    def report(self) -> dict:
        bw = self.bandwidth_bytes_per_s
        return {"name": self.name, "bandwidth_bytes_per_s": None if math.isinf(bw) else bw,
                "latency_ms": self.latency_s * 1e3, "source": self.source}


def resolve(text: str, prefill_card, decode_card, latency_s: float | None = None) -> KvLinkSpec:
    """kv_link= as text -> KvLinkSpec. prefill_card / decode_card: objects with link_kind,
    link_bandwidth_bytes_per_s, link_latency_s (a Deployment or a HardwareSpec)."""
    name = str(text).strip().lower()
    valid = (f"valid: one of {', '.join(link_choices())}, or GB/s per GPU each way (a number in "
             f"(0, {MAX_LINK_GB_S:g}])")
    if name == "inf":
        return KvLinkSpec("inf", math.inf, 0.0 if latency_s is None else latency_s, "an ideal link (no transfer time)")
    if name in CARD_LINKS:
        cards = (prefill_card, decode_card)
        wrong = [c for c in cards if getattr(c, "link_kind", None) != name or not c.link_bandwidth_bytes_per_s]
        if wrong:
            kinds = ", ".join(f"{_card_name(c)}: {getattr(c, 'link_kind', None) or 'none'}" for c in cards)
            raise ParamError("kv_link", f"got {name}, but the cards' links are {kinds}; {valid}")
        bw = min(float(c.link_bandwidth_bytes_per_s) for c in cards)
        lat = max(float(c.link_latency_s or 0.0) for c in cards)
        return KvLinkSpec(name, bw, lat if latency_s is None else latency_s,
                          f"the cards' {name} (hardware catalog: the slower card's bandwidth, the larger latency)")
    if name in catalog.kv_link_keys():
        nic = catalog.kv_link(name)
        return KvLinkSpec(name, nic.bandwidth_bytes_per_s, nic.latency_s if latency_s is None else latency_s,
                          nic.source)
    try:
        gb_s = parse_number(name, "")
    except NumberError:
        raise ParamError("kv_link", f"got {text!r}; {valid}") from None
    if not (0 < gb_s <= MAX_LINK_GB_S) or math.isnan(gb_s):
        raise ParamError("kv_link", f"got {text!r}; {valid}")
    return KvLinkSpec(f"{gb_s:g} GB/s", gb_s * 1e9, 0.0 if latency_s is None else latency_s, "given (GB/s)")


def _card_name(card) -> str:
    return str(getattr(card, "card", None) or getattr(card, "name", None) or "card")


def transfer_bytes(prompt_tokens: np.ndarray, kv_bytes_per_token: float) -> np.ndarray:
    """What crosses the links in all, per request (float64 bytes)."""
    return np.asarray(prompt_tokens, np.float64) * float(kv_bytes_per_token)


def transfer_s(prompt_tokens: np.ndarray, kv_bytes_per_token_per_card: float, link: KvLinkSpec,
               overlap: str = "whole", layers: int = 1, prefill_s: np.ndarray | None = None) -> np.ndarray:
    """Exposed transfer time per request (float64 s): the module's formulas. prefill_s
    (layerwise only): each request's prefill time, first schedule to first token."""
    if overlap not in OVERLAPS:
        raise ParamError("kv_transfer", f"got {overlap!r}; valid: one of {', '.join(OVERLAPS)}")
    p = np.asarray(prompt_tokens, np.float64)
    if math.isinf(link.bandwidth_bytes_per_s):
        wire = np.zeros_like(p)
    else:
        wire = p * float(kv_bytes_per_token_per_card) / link.bandwidth_bytes_per_s
    if overlap == "layerwise":
        assert prefill_s is not None  # the layerwise overlap hides the link behind the prefill's compute
        L = max(int(layers), 1)
        wire = np.maximum(wire / L, wire - np.asarray(prefill_s, np.float64) * (L - 1) / L)
    return wire + float(link.latency_s)
