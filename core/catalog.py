"""Hardware and model figures as data, each with a source note (core/data/catalog.json)."""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any


@dataclass(frozen=True)
class Hardware:
    key: str
    source: str
    memory_bytes: float | None = None
    bandwidth_bytes_per_s: float | None = None
    bf16_dense_flops: float | None = None
    price_per_card_hour: float | None = None  # USD, an on-demand list price (core.serving.cost)
    price_source: str = ""  # where and when that price was listed
    # What the CUDA driver reports as total memory (what vLLM's gpu_memory_utilization
    # multiplies); None: memory_bytes stands in.
    memory_visible_bytes: float | None = None
    memory_visible_source: str = ""
    fp8_dense_flops: float | None = None  # None: the card has no FP8 tensor cores
    fp4_dense_flops: float | None = None
    peaks_source: str = ""
    link_kind: str | None = None  # the scale-up link: nvlink, pcie or infinity-fabric
    link_bandwidth_bytes_per_s: float | None = None  # per GPU, each direction
    link_latency_s: float | None = None
    link_source: str = ""

    def figure(self, name: str) -> float:
        """A figure the caller cannot do without (e.g. "bandwidth_bytes_per_s"), as a float;
        ValueError naming the card when it has none."""
        value = getattr(self, name)
        if value is None:
            raise ValueError(f"card {self.key} has no {name}")
        return float(value)


@dataclass(frozen=True)
class Model:
    key: str
    source: str
    shape: Mapping[str, Any]
    derived: Mapping[str, Any]

    def __getitem__(self, name: str) -> Any:
        if name in self.shape:
            return self.shape[name]
        return self.derived[name]

    def get(self, name: str, default: Any = None) -> Any:
        try:
            return self[name]
        except KeyError:
            return default


@lru_cache(maxsize=1)
def _raw() -> dict:
    text = resources.files("core").joinpath("data/catalog.json").read_text(encoding="utf-8")
    return json.loads(text)


def hardware(key: str) -> Hardware:
    entries = _raw()["hardware"]
    if key not in entries:
        raise KeyError(f"unknown hardware {key!r}; known: {', '.join(sorted(entries))}")
    entry = dict(entries[key])
    return Hardware(key=key, **entry)


def model(key: str) -> Model:
    entries = _raw()["models"]
    if key not in entries:
        raise KeyError(f"unknown model {key!r}; known: {', '.join(sorted(entries))}")
    entry = dict(entries[key])
    source = entry.pop("source", "")
    derived = entry.pop("derived", {})
    return Model(key=key, source=source, shape=entry, derived=derived)


@dataclass(frozen=True)
class KvLink:
    """A link KV moves over between a prefill and a decode instance (a NIC; the cards' own
    NVLink or PCIe figures are in their hardware entries): per GPU, each direction."""

    key: str
    kind: str
    bandwidth_bytes_per_s: float
    latency_s: float
    source: str


def kv_link(key: str) -> KvLink:
    entries = _raw()["kv_links"]
    if key not in entries:
        raise KeyError(f"unknown kv link {key!r}; known: {', '.join(sorted(entries))}")
    return KvLink(key=key, **entries[key])


def kv_link_keys() -> list[str]:
    return sorted(_raw()["kv_links"])


def hardware_keys() -> list[str]:
    return sorted(_raw()["hardware"])


def model_keys() -> list[str]:
    return sorted(_raw()["models"])


def data_path(name: str):
    """A data file shipped inside core/data (a Traversable; use .read_text())."""
    return resources.files("core") / "data" / name  # joinpath takes one child before Python 3.11

