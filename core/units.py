"""Units used across the lab: byte prefixes, FLOPs, seconds, and parsing numbers with suffixes.

Values travel through the code in base units (bytes, seconds, FLOPs, tokens, steps);
parse_number reads text like "24GiB" or "40ms"; core.format turns values into text.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction

# Display formatting lives in core.format (one rule for cards, panels and the CLI); these
# names stay importable from here.
from core.format import format_bytes, format_count, format_flops, format_seconds, format_value  # noqa: F401

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
