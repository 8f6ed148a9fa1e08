"""Your own card: a small TOML file (or a catalog key) → memory, bandwidth and peak FLOP/s.

The file (every size in one of its units; unknown keys are refused, so a typo is caught):

    name = "H200 SXM"            # optional; default: the file's name
    memory_gib = 141             # or memory_gb (10^9) or memory_bytes
    bandwidth_tb_s = 4.8         # or bandwidth_gb_s or bandwidth_bytes_per_s
    source = "vendor datasheet"  # optional
    price_per_card_hour = 3.5    # optional, USD per card-hour (the replay's cost); price_source = "..."
    [peak_tflops]                # dense peak per dtype, TFLOP/s; or [peak_flops] in FLOP/s
    bf16 = 989.4
    fp8 = 1978.9

hardware_replay_params(...) gives serving.replay's three card values: bandwidth_bytes_per_s,
peak_flops (of one dtype, bf16 by default) and memory_bytes.
"""
from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field

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
TOP_KEYS = {"name", "source", "price_per_card_hour", "price_source", *MEMORY_UNITS, *BANDWIDTH_UNITS, *PEAK_TABLES}
DTYPE_NAME = re.compile(r"[a-z][a-z0-9_]{0,15}")
# Bounds: far beyond any card, finite so nothing downstream divides by zero or overflows.
MAX_MEMORY_BYTES = 1e15
MAX_BANDWIDTH = 1e16
MAX_PEAK_FLOPS = 1e19
MAX_DTYPES = 32
MAX_PRICE_PER_CARD_HOUR = 1e4  # USD; far beyond any card's rent


@dataclass(frozen=True)
class HardwareSpec:
    name: str
    memory_bytes: float | None
    bandwidth_bytes_per_s: float | None
    peak_flops: Mapping[str, float] = field(default_factory=dict)  # dtype -> dense FLOP/s
    source: str = ""
    price_per_card_hour: float | None = None  # USD (None: the file or catalog gives none)
    price_source: str = ""


def load_hardware(path_or_key: str, *, param: str = "hardware") -> HardwareSpec:
    """A catalog card by key, else a TOML file by path; ParamError naming file and field."""
    key = str(path_or_key)
    if key in catalog.hardware_keys():
        card = catalog.hardware(key)
        peaks = {"bf16": float(card.bf16_dense_flops)} if card.bf16_dense_flops else {}
        return HardwareSpec(key, card.memory_bytes, card.bandwidth_bytes_per_s, peaks, card.source,
                            card.price_per_card_hour, card.price_source)
    if looks_like_a_key(key):  # 'h100': a mistyped catalog key more likely than a file
        raise ParamError(param, f"{key!r}: no catalog card or file of that name; valid: one of "
                         f"{', '.join(catalog.hardware_keys())}, or a card's TOML path")
    text, _ = read_small_file(key, param, VALID)
    where = shown_path(key)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ParamError(param, f"{where}: not valid TOML ({err}); valid: {VALID}") from None
    return _from_table(Fields(data, where, param, VALID), key)


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
    return {"bandwidth_bytes_per_s": float(card.bandwidth_bytes_per_s),
            "peak_flops": float(card.peak_flops[dtype]),
            "memory_bytes": float(card.memory_bytes)}


def hardware_price(key_or_path: str, *, param: str = "hardware") -> tuple[float | None, str]:
    """(price per card-hour in USD or None, its source note) of a catalog card or a TOML."""
    card = load_hardware(key_or_path, param=param)
    return card.price_per_card_hour, card.price_source


def _complete(key: str, dtype: str) -> bool:
    card = catalog.hardware(key)
    return bool(card.memory_bytes and card.bandwidth_bytes_per_s and dtype == "bf16" and card.bf16_dense_flops)


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
    return HardwareSpec(name, memory, bandwidth, peaks, f.text("source", "", max_chars=1000) or path,
                        price, f.text("price_source", "", max_chars=1000) or ("your card file" if price is not None else ""))


def _one_of(f: Fields, units: Mapping[str, float], high: float) -> float:
    given = [k for k in units if f.has(k)]
    if not given:
        raise f.missing(" or ".join(units))
    if len(given) > 1:
        raise f.refuse(given[1], f"given with {given[0]}", "one of " + ", ".join(units))
    key = given[0]
    value = f.number(key, 0, high / units[key]) * units[key]
    if value <= 0:
        raise f.refuse(key, "got 0", "a positive figure")
    return value
