"""Units used across the lab: byte prefixes, FLOPs, seconds, and display formatting.

Values travel through the code in base units (bytes, seconds, FLOPs, tokens, steps);
these helpers only turn them into text for people.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction

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


# Suffixes accepted on the command line and in forms ('24GiB', '1.792e12', '40ms', '4k'),
# checked against the unit of the parameter they are for. Factors are whole numbers, so a
# conversion is one exact multiplication or division (0.02 s is 20 ms, not 20.000000000000004).
_TIME_NS = {"ns": 1, "us": 10**3, "µs": 10**3, "μs": 10**3, "ms": 10**6, "s": 10**9, "min": 60 * 10**9,
            "h": 3600 * 10**9}
_BYTES = {"b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12, "pb": 10**15,
          "kib": 1024, "mib": 1024**2, "gib": 1024**3, "tib": 1024**4, "pib": 1024**5}
_COUNTS = {"k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15}

# Units of parameters that are times, and the suffix they are counted in.
_TIME_UNITS = {"ns": "ns", "us": "us", "µs": "µs", "ms": "ms", "s": "s", "min": "min", "h": "h",
               "GPU·h": "h", "GPU·s": "s"}
_BYTE_UNITS = ("bytes", "B", "bytes/s", "B/s")

SUFFIX_TEXT = {
    "time": "ns, us, µs, ms, s, min, h",
    "bytes": "kB, MB, GB, TB, KiB, MiB, GiB, TiB",
    "count": "k, M, G, T, P",
}
_WHAT = {"time": "a time", "bytes": "a size in bytes", "count": "a count"}

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?")


class NumberError(ValueError):
    """Text that is not a number for this unit. `reason` completes "'40ms' ...": e.g.
    "is a time, not bytes"; the caller adds the valid range."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


def unit_kind(unit: str | None) -> str:
    """'time', 'bytes' or 'count': which suffixes a value in this unit takes.

    Times (s, ms, GPU·h) take durations and are converted to the unit; bytes and bytes/s
    take SI and IEC sizes; everything else (tokens, cards, px, FLOP/s, 1/s, ratios and
    plain numbers) takes the count multipliers k, M, G, T, P.
    """
    if unit in _TIME_UNITS:
        return "time"
    if unit in _BYTE_UNITS:
        return "bytes"
    return "count"


def suffix_text(unit: str | None) -> str:
    """The suffixes a value in this unit takes, for help and error text."""
    return SUFFIX_TEXT[unit_kind(unit)]


def _suffix_kind(suffix: str) -> tuple[str, int] | None:
    if suffix in _TIME_NS:
        return "time", _TIME_NS[suffix]
    if suffix.lower() in _BYTES:
        return "bytes", _BYTES[suffix.lower()]
    if suffix in _COUNTS:
        return "count", _COUNTS[suffix]
    return None


def parse_number(text: str, unit: str | None = None) -> float:
    """Parse text like '24GiB', '1.792e12', '40ms', '4k' into a finite float.

    unit None: any suffix, value in base units (seconds, bytes, ones). unit given (a
    Param's unit): the suffix must fit it (see unit_kind) and the value comes back in that
    unit, so '20ms' and '0.02s' are both 20 for a parameter in ms. A comma is refused:
    commas only separate the items of a list. Raises NumberError (a ValueError) saying why.
    """
    raw = str(text).strip().replace("_", "")
    if "," in raw:
        raise NumberError("has a comma (commas only separate list items)")
    match = _NUMBER.match(raw)
    if match is None:
        raise NumberError("is not a number")
    head, suffix = raw[: match.end()], raw[match.end():].strip()
    kind = unit_kind(unit)
    if suffix.endswith("/s") and unit is not None and unit.endswith("/s"):
        suffix = suffix[:-2]  # '2TB/s' for a parameter in bytes/s
    num, den = 1, 1
    if suffix:
        found = _suffix_kind(suffix)
        if found is None:
            accepted = SUFFIX_TEXT[kind] if unit is not None else ", ".join(SUFFIX_TEXT.values())
            raise NumberError(f"is not a number (unknown suffix {suffix!r}; suffixes: {accepted})")
        what, factor = found
        if unit is not None and what != kind:
            raise NumberError(f"is {_WHAT[what]}, not {_WHAT[kind]}")
        num = factor
        if what == "time":  # counted in the unit's own time (seconds when unit is None)
            unit_ns = _TIME_NS[_TIME_UNITS[unit]] if unit is not None else _TIME_NS["s"]
            num, den = (factor // unit_ns, 1) if factor >= unit_ns else (1, unit_ns // factor)
    value = float(head)
    if math.isfinite(value) and value != 0 and (num, den) != (1, 1):
        exponent = int(match.group(1) or 0)
        try:
            if len(head) <= 100 and abs(exponent) <= 400:  # exact: one rounding, 1.1k is 1100
                value = float(Fraction(head) * num / den)
            else:
                value = value * num / den
        except OverflowError:
            value = math.inf
    if not math.isfinite(value):
        raise NumberError("is too large")
    return value
