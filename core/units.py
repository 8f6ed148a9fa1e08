"""Units used across the lab: byte prefixes, FLOPs, seconds, and display formatting.

Values travel through the code in base units (bytes, seconds, FLOPs, tokens, steps);
these helpers only turn them into text for people.
"""
from __future__ import annotations

import math

KB = 1e3
MB = 1e6
GB = 1e9
TB = 1e12
KiB = 1024
MiB = 1024**2
GiB = 1024**3
TiB = 1024**4

MS = 1e-3
US = 1e-6

TFLOP = 1e12
PFLOP = 1e15

_SI_BYTES = [(1e15, "PB"), (1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")]
_IEC_BYTES = [(TiB * 1024, "PiB"), (TiB, "TiB"), (GiB, "GiB"), (MiB, "MiB"), (KiB, "KiB")]
_FLOPS = [(1e18, "EFLOPs"), (1e15, "PFLOPs"), (1e12, "TFLOPs"), (1e9, "GFLOPs"), (1e6, "MFLOPs")]


def _significant(x: float, digits: int) -> str:
    """Format with `digits` significant figures, without scientific notation for
    everyday magnitudes and without trailing zeros."""
    if x == 0 or not math.isfinite(x):
        return str(x if not float(x).is_integer() else int(x))
    magnitude = int(math.floor(math.log10(abs(x))))
    decimals = max(0, digits - 1 - magnitude)
    text = f"{x:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _scaled(value: float, table, unit: str, digits: int) -> str:
    for factor, name in table:
        if abs(value) >= factor:
            return f"{_significant(value / factor, digits)} {name}"
    return f"{_significant(value, digits)} {unit}"


def format_bytes(value: float, system: str = "iec", digits: int = 5) -> str:
    """8,192,000 B as "7.8125 MiB" (iec) or "8.192 MB" (si)."""
    table = _IEC_BYTES if system == "iec" else _SI_BYTES
    return _scaled(float(value), table, "B", digits)


def format_flops(value: float, digits: int = 4) -> str:
    if abs(value) >= 1e21:  # training budgets read as 1.728e24, as the book prints them
        return f"{value:.{digits}g} FLOPs".replace("e+", "e")
    return _scaled(float(value), _FLOPS, "FLOPs", digits)


def format_seconds(value: float, digits: int = 4) -> str:
    value = float(value)
    if value != 0 and abs(value) < 1e-3:
        return f"{_significant(value / US, digits)} µs"
    if value != 0 and abs(value) < 1:
        return f"{_significant(value / MS, digits)} ms"
    if abs(value) >= 3600:
        return f"{_significant(value / 3600, digits)} h"
    return f"{_significant(value, digits)} s"


def format_count(value: float, digits: int = 6) -> str:
    value = float(value)
    if value.is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    if abs(value) >= 1e9:
        return f"{value:.{digits - 1}e}"
    return _significant(value, digits)


# How each unit name of a parameter or output is shown. Anything not listed is a
# plain number followed by its unit name.
_FORMATTERS = {
    "bytes": format_bytes,
    "s": format_seconds,
    "FLOPs": format_flops,
    "byte*s": lambda v: format_bytes(v).replace("B", "B·s", 1) if abs(v) >= KiB else f"{_significant(v, 4)} B·s",
    "bytes/s": lambda v: format_bytes(v, "si") + "/s",
}


def format_value(value, unit: str, byte_system: str = "iec") -> str:
    """Human text for a value in base units, e.g. format_value(8192000, 'bytes').

    byte_system: 'iec' (MiB, GiB) or 'si' (MB, GB), whichever the book's section prints.
    """
    if value is None:
        return "—"
    if isinstance(value, (list, tuple)):
        return ", ".join(format_value(v, unit, byte_system) for v in value)
    if isinstance(value, str):
        return value
    if unit == "bytes" and byte_system == "si":
        return format_bytes(value, "si")
    formatter = _FORMATTERS.get(unit)
    if formatter is not None:
        return formatter(value)
    suffix = "" if unit in ("", "count", "ratio") else f" {unit}"
    return f"{format_count(value)}{suffix}"


# Suffixes accepted on the command line and in forms: '24GiB', '1.792e12', '40ms'.
_SUFFIXES = {
    "kib": KiB, "mib": MiB, "gib": GiB, "tib": TiB,
    "kb": KB, "mb": MB, "gb": GB, "tb": TB,
    "ms": MS, "us": US,
}


def parse_number(text: str) -> float:
    """Parse '24GiB', '1.792e12', '40ms', '1,024' into a float in base units.

    Raises ValueError with the offending text when it is not a number.
    """
    raw = text.strip().replace("_", "").replace(",", "")
    lowered = raw.lower()
    for suffix in sorted(_SUFFIXES, key=len, reverse=True):
        if lowered.endswith(suffix) and len(lowered) > len(suffix):
            head = lowered[: -len(suffix)].strip()
            return float(head) * _SUFFIXES[suffix]
    return float(raw)
