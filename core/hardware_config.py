"""Your own card: a small TOML file (or a catalog key) → memory, bandwidth and peak FLOP/s.

The file (every size in one of its units; unknown keys are refused, so a typo is caught):

    name = "H200 SXM"            # optional; default: the file's name
    memory_gib = 141             # or memory_gb (10^9) or memory_bytes
    bandwidth_tb_s = 4.8         # or bandwidth_gb_s or bandwidth_bytes_per_s
    source = "vendor datasheet"  # optional
    price_per_card_hour = 3.5    # optional, USD per card-hour (the replay's cost); price_source = "..."
    link_kind = "nvlink"         # optional: the scale-up link, nvlink | pcie | infinity-fabric
    link_bandwidth_gb_s = 450    # optional, per GPU each direction; or link_bandwidth_bytes_per_s
    link_latency_us = 3          # optional; or link_latency_s
    link_source = "..."          # optional
    [peak_tflops]                # dense peak per dtype, TFLOP/s; or [peak_flops] in FLOP/s
    bf16 = 989.4
    fp8 = 1978.9                 # fp8 / fp4: the peak a deployment's quantization= runs at

hardware_replay_params(...) gives serving.replay's three card values: bandwidth_bytes_per_s,
peak_flops (of one dtype, bf16 by default) and memory_bytes.
"""
from __future__ import annotations

import difflib
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10 (requires-python): the same parser as a package
    import tomli as tomllib

from core import catalog
from core.model_config import looks_like_a_key
from core.model_config.reading import Fields, read_small_file, shown_path
from core.registry import ParamError
from core.units import GiB

VALID = ("a card's TOML (memory_gib | memory_gb | memory_bytes, bandwidth_tb_s | bandwidth_gb_s | "
         "bandwidth_bytes_per_s, [peak_tflops] or [peak_flops] per dtype) or a catalog card")
# Unit of each way to write a figure, to bytes, bytes/s and FLOP/s.
MEMORY_UNITS = {"memory_bytes": 1.0, "memory_gb": 1e9, "memory_gib": float(GiB)}
BANDWIDTH_UNITS = {"bandwidth_bytes_per_s": 1.0, "bandwidth_gb_s": 1e9, "bandwidth_tb_s": 1e12}
PEAK_TABLES = {"peak_flops": 1.0, "peak_tflops": 1e12}
LINK_BANDWIDTH_UNITS = {"link_bandwidth_bytes_per_s": 1.0, "link_bandwidth_gb_s": 1e9}
LINK_LATENCY_UNITS = {"link_latency_s": 1.0, "link_latency_us": 1e-6}
LINK_KINDS = ("nvlink", "pcie", "infinity-fabric")
TOP_KEYS = {"name", "source", "price_per_card_hour", "price_source", "link_kind", "link_source", *MEMORY_UNITS,
            *BANDWIDTH_UNITS, *PEAK_TABLES, *LINK_BANDWIDTH_UNITS, *LINK_LATENCY_UNITS}
DTYPE_NAME = re.compile(r"[a-z][a-z0-9_]{0,15}")
# Bounds: far beyond any card, finite so nothing downstream divides by zero or overflows.
MAX_MEMORY_BYTES = 1e15
MAX_BANDWIDTH = 1e16
MAX_PEAK_FLOPS = 1e19
MAX_DTYPES = 32
MAX_PRICE_PER_CARD_HOUR = 1e4  # USD; far beyond any card's rent
MAX_LINK_LATENCY_S = 1.0
CATALOG_PEAKS = (("bf16", "bf16_dense_flops"), ("fp8", "fp8_dense_flops"), ("fp4", "fp4_dense_flops"))


@dataclass(frozen=True)
class HardwareSpec:
    name: str
    memory_bytes: float | None
    bandwidth_bytes_per_s: float | None
    peak_flops: Mapping[str, float] = field(default_factory=dict)  # dtype -> dense FLOP/s
    source: str = ""
    price_per_card_hour: float | None = None  # USD (None: the file or catalog gives none)
    price_source: str = ""
    # The scale-up link (None where the file or catalog gives none): its kind, bandwidth per
    # GPU each direction (bytes/s) and latency (s); and the memory CUDA reports as total.
    link_kind: str | None = None
    link_bandwidth_bytes_per_s: float | None = None
    link_latency_s: float | None = None
    link_source: str = ""
    memory_visible_bytes: float | None = None

    @property
    def usable_memory_bytes(self) -> float | None:
        """The total gpu_memory_utilization multiplies: the driver's figure where known."""
        return self.memory_visible_bytes or self.memory_bytes


def load_hardware(path_or_key: str, *, param: str = "hardware") -> HardwareSpec:
    """A catalog card by key, else a TOML file by path; ParamError naming file and field."""
    key = str(path_or_key)
    if key in catalog.hardware_keys():
        card = catalog.hardware(key)
        peaks = {dtype: float(getattr(card, name)) for dtype, name in CATALOG_PEAKS if getattr(card, name)}
        return HardwareSpec(key, card.memory_bytes, card.bandwidth_bytes_per_s, peaks, card.source,
                            card.price_per_card_hour, card.price_source, card.link_kind,
                            card.link_bandwidth_bytes_per_s, card.link_latency_s, card.link_source,
                            card.memory_visible_bytes)
    if looks_like_a_key(key):  # 'h100': a mistyped catalog key more likely than a file
        close = ([k for k in catalog.hardware_keys() if k.startswith(key.lower())]
                 or difflib.get_close_matches(key, catalog.hardware_keys(), n=1, cutoff=0.5))
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise ParamError(param, f"{key!r}: no catalog card or file of that name{hint}; valid: one of "
                         f"{', '.join(catalog.hardware_keys())}, or a card's TOML path")
    text, _ = read_small_file(key, param, VALID)
    where = shown_path(key)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ParamError(param, f"{where}: not valid TOML ({err}); valid: {VALID}") from None
    return card_from_table(data, where, key, param=param)


def card_from_table(data: Mapping[str, Any], where: str, path: str, *, param: str = "hardware",
                    valid: str = VALID) -> HardwareSpec:
    """A card from a hardware TOML's keys read already (a calibration profile's [card]):
    ParamError naming param, where and the field. path names the card when the table has
    no name."""
    return _from_table(Fields(data, where, param, valid), path)


def hardware_replay_params(key_or_path: str, dtype: str = "bf16", *, param: str = "hardware") -> dict[str, float]:
    """serving.replay's card values: bandwidth_bytes_per_s, peak_flops (dense, of dtype)
    and memory_bytes; a card that lacks one is refused naming it."""
    return card_replay_values(load_hardware(key_or_path, param=param), dtype, param=param)


def card_replay_values(card: HardwareSpec, dtype: str = "bf16", *, param: str = "hardware") -> dict[str, float]:
    """hardware_replay_params of a card already loaded."""
    missing = [n for n, v in (("memory_bytes", card.memory_bytes), ("bandwidth_bytes_per_s", card.bandwidth_bytes_per_s))
               if not v]
    if dtype not in card.peak_flops:
        missing.append(f"peak_flops.{dtype}")
    if missing:
        usable = [k for k in catalog.hardware_keys() if _complete(k, dtype)]
        raise ParamError(param, f"{card.name}: no {', '.join(missing)}; valid: {', '.join(usable)} or a TOML "
                         f"file giving them")
    assert card.bandwidth_bytes_per_s is not None and card.memory_bytes is not None  # refused above when missing
    return {"bandwidth_bytes_per_s": float(card.bandwidth_bytes_per_s),
            "peak_flops": float(card.peak_flops[dtype]),
            "memory_bytes": float(card.memory_bytes)}


def hardware_price(key_or_path: str, *, param: str = "hardware") -> tuple[float | None, str]:
    """(price per card-hour in USD or None, its source note) of a catalog card or a TOML."""
    card = load_hardware(key_or_path, param=param)
    return card.price_per_card_hour, card.price_source


def _complete(key: str, dtype: str) -> bool:
    card = catalog.hardware(key)
    peak = dict(CATALOG_PEAKS).get(dtype)
    return bool(card.memory_bytes and card.bandwidth_bytes_per_s and peak and getattr(card, peak))


def _from_table(f: Fields, path: str) -> HardwareSpec:
    for key in f.data:
        if key not in TOP_KEYS:
            raise f.refuse(key, "unknown key", "the keys " + ", ".join(sorted(TOP_KEYS)))
    memory = _one_of(f, MEMORY_UNITS, MAX_MEMORY_BYTES)
    bandwidth = _one_of(f, BANDWIDTH_UNITS, MAX_BANDWIDTH)
    tables = [t for t in PEAK_TABLES if f.has(t)]
    if len(tables) != 1:
        raise f.missing("peak_tflops") if not tables else f.refuse(tables[1], "given with " + tables[0], "one of them")
    peaks_field = f.child(tables[0])
    assert peaks_field is not None  # f.has said it is there
    scale = PEAK_TABLES[tables[0]]
    if not peaks_field.data or len(peaks_field.data) > MAX_DTYPES:
        raise f.refuse(tables[0], f"{len(peaks_field.data)} entries", f"1 to {MAX_DTYPES} dtypes, e.g. bf16 = 989.4")
    peaks = {}
    for dtype in peaks_field.data:
        if not isinstance(dtype, str) or not DTYPE_NAME.fullmatch(dtype):
            raise peaks_field.refuse(str(dtype)[:20], "not a dtype name", "lower-case names like bf16, fp8")
        peaks[dtype] = peaks_field.number(dtype, 0, MAX_PEAK_FLOPS / scale) * scale
        if peaks[dtype] <= 0:
            raise peaks_field.refuse(dtype, "got 0", "a positive peak")
    name = f.text("name") or os.path.splitext(os.path.basename(path))[0]
    price = f.number("price_per_card_hour", 0, MAX_PRICE_PER_CARD_HOUR) if f.has("price_per_card_hour") else None
    kind = f.text("link_kind")
    if kind is not None and kind not in LINK_KINDS:
        raise f.refuse("link_kind", repr(kind), "one of " + ", ".join(LINK_KINDS))
    link_bw = _one_of(f, LINK_BANDWIDTH_UNITS, MAX_BANDWIDTH, required=False)
    latency = _one_of(f, LINK_LATENCY_UNITS, MAX_LINK_LATENCY_S, required=False, positive=False)
    return HardwareSpec(name, memory, bandwidth, peaks, f.text("source", "", max_chars=1000) or path,
                        price, f.text("price_source", "", max_chars=1000) or ("your card file" if price is not None else ""),
                        kind, link_bw, latency, f.text("link_source", "", max_chars=1000) or "")


def _one_of(f: Fields, units: Mapping[str, float], high: float, *, required: bool = True,
            positive: bool = True) -> float | None:
    given = [k for k in units if f.has(k)]
    if not given:
        if not required:
            return None
        raise f.missing(" or ".join(units))
    if len(given) > 1:
        raise f.refuse(given[1], f"given with {given[0]}", "one of " + ", ".join(units))
    key = given[0]
    value = f.number(key, 0, high / units[key]) * units[key]
    if positive and value <= 0:
        raise f.refuse(key, "got 0", "a positive figure")
    return value
