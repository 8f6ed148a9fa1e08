"""Numbers as people read them: cards, panel labels, `lab calc` and `lab verify` share these.

The rule follows how chapter 3 prints its figures:

- 4 significant digits, trailing zeros dropped ("22.89 ms", "40.13 s", "125.7 GPU·h",
  "0.001292 GPU·s"); a value that is exact in 5 digits is shown exactly, as the book
  prints "7.8125 MiB" and "281.25 MiB".
- The integer part is never rounded away: from 1,000 up a number is whole, with thousands
  separators ("2,796 steps/s", "5,591 steps/s", "112,793 steps").
- Exact counts are shown in full up to ten digits ("8,190,735,360 params"); larger counts,
  and fractional values from a billion up, take the book's short scale B and T
  ("298.6B tokens", "160B tokens", "36T tokens"), and from 10¹⁵ a power of ten.
- Bytes in IEC (KiB, MiB, GiB) or SI (kB, MB, GB) prefixes, whichever the section prints;
  seconds as µs, ms, s or h; FLOPs as MFLOPs..TFLOPs and from 10¹⁵ as "7.830×10¹⁵ FLOPs"
  (the book never prints PFLOPs). A mantissa times a power of ten keeps its 4 digits.
- Booleans read yes / no; a missing value is "—".

full_value gives the same value with every digit it has, for tooltips (`--json` carries
the raw numbers).
"""
from __future__ import annotations

import math
from typing import Any

DIGITS = 4
EXACT_DIGITS = 5  # a value exact in this many digits is shown exactly (7.8125 MiB)
FULL_COUNT_LIMIT = 1e10  # exact counts below this are written out in full
SHORT_SCALE = ((1e12, "T"), (1e9, "B"))
POWER_FROM = 1e15
SMALL_POWER_BELOW = 1e-4

_KIB = 1024
_IEC_BYTES = ((_KIB**5, "PiB"), (_KIB**4, "TiB"), (_KIB**3, "GiB"), (_KIB**2, "MiB"), (_KIB, "KiB"))
_SI_BYTES = ((1e15, "PB"), (1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB"))
_FLOPS = ((1e12, "TFLOPs"), (1e9, "GFLOPs"), (1e6, "MFLOPs"))
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_BOOL_UNITS = ("bool", "yes/no")
_BARE_UNITS = ("", "count", "ratio")
_UNIT_TEXT = {"x": "×", "byte*s": "B·s"}


def power_of_ten(x: float, digits: int = DIGITS) -> str:
    """7830392222515200 as "7.830×10¹⁵" (the mantissa keeps its digits, as the book's do)."""
    mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
    return f"{mantissa}×10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def _grouped(x: float, decimals: int) -> str:
    text = f"{x:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def significant(x: float, digits: int = DIGITS) -> str:
    """x with `digits` significant figures, the integer part kept whole, no trailing zeros;
    exact in EXACT_DIGITS digits means shown exactly."""
    x = float(x)
    if x == 0:
        return "0"
    if not math.isfinite(x):
        return "∞" if x > 0 else "−∞" if x < 0 else "—"
    if abs(x) < SMALL_POWER_BELOW:
        return power_of_ten(x, digits)
    magnitude = math.floor(math.log10(abs(x)))
    exact = max(0, EXACT_DIGITS - 1 - magnitude)
    if float(f"{x:.{exact}f}") == x:
        return _grouped(x, exact)
    return _grouped(x, max(0, digits - 1 - magnitude))


def _scaled(x: float, table, base: str, digits: int = DIGITS) -> str:
    for factor, name in table:
        if abs(x) >= factor:
            return f"{significant(x / factor, digits)} {name}"
    return f"{significant(x, digits)} {base}"


def format_bytes(value: float, system: str = "iec", digits: int = DIGITS) -> str:
    """8,192,000 B as "7.8125 MiB" (iec) or "8.192 MB" (si)."""
    return _scaled(float(value), _IEC_BYTES if system == "iec" else _SI_BYTES, "B", digits)


def format_flops(value: float, digits: int = DIGITS) -> str:
    """1.310e12 as "1.31 TFLOPs"; from 10¹⁵ as the book writes it, "7.830×10¹⁵ FLOPs"."""
    value = float(value)
    if abs(value) >= POWER_FROM and math.isfinite(value):
        return f"{power_of_ten(value, digits)} FLOPs"
    return _scaled(value, _FLOPS, "FLOPs", digits)


def format_seconds(value: float, digits: int = DIGITS) -> str:
    value = float(value)
    if value != 0 and abs(value) < 1e-3:
        return f"{significant(value * 1e6, digits)} µs"
    if value != 0 and abs(value) < 1:
        return f"{significant(value * 1e3, digits)} ms"
    if abs(value) >= 3600:
        return f"{significant(value / 3600, digits)} h"
    return f"{significant(value, digits)} s"


def format_count(value: float, digits: int = DIGITS) -> str:
    """A count or any plain number: 1,023 · 2,796 · 8,190,735,360 · 298.6B · 0.2375."""
    value = float(value)
    if not math.isfinite(value):
        return significant(value)
    if value.is_integer() and abs(value) < FULL_COUNT_LIMIT:
        return f"{int(value):,}"
    if abs(value) >= POWER_FROM:
        return power_of_ten(value, digits)
    for factor, name in SHORT_SCALE:
        if abs(value) >= factor:
            return f"{significant(value / factor, digits)}{name}"
    return significant(value, digits)


def unit_text(unit: str) -> str:
    """How a unit name reads after a number ('x' is the multiplication sign)."""
    return _UNIT_TEXT.get(unit, unit)


def format_value(value: Any, unit: str, byte_system: str = "iec") -> str:
    """Human text for a value in base units, e.g. format_value(8192000, 'bytes') is
    "7.8125 MiB". byte_system: 'iec' (MiB, GiB) or 'si' (MB, GB), as the book's section prints."""
    if value is None:
        return "—"
    if isinstance(value, (list, tuple)):
        return ", ".join(format_value(v, unit, byte_system) for v in value)
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or unit in _BOOL_UNITS:
        return "yes" if value else "no"
    value = float(value)
    if unit == "bytes":
        return format_bytes(value, byte_system)
    if unit == "bytes/s":
        return format_bytes(value, "si") + "/s"
    if unit == "byte*s":
        return format_bytes(value, byte_system) + "·s"
    if unit == "s":
        return format_seconds(value)
    if unit == "FLOPs":
        return format_flops(value)
    text = format_count(value)
    if unit in _BARE_UNITS:
        return text
    return f"{text} {singular(unit) if text == '1' else unit_text(unit)}"


def singular(unit: str) -> str:
    """A count unit for one of it: "1 call", "1 batch" (a plain plural word; "tokens/s" and
    "GPU·s" are not plurals and stay as they are)."""
    if not (unit.isalpha() and unit.islower() and unit.endswith("s")):
        return unit_text(unit)
    return unit[:-2] if unit.endswith(("ches", "shes", "xes", "sses")) else unit[:-1]


def _all_digits(x: float) -> str:
    """Every digit of the shortest text that reads back as x, grouped in thousands."""
    if not math.isfinite(x):
        return significant(x)
    text = repr(x)
    if "e" in text:
        mantissa, exponent = text.split("e")
        return f"{mantissa}×10{str(int(exponent)).translate(_SUPERSCRIPT)}"
    whole, _, fraction = text.partition(".")
    sign = "-" if whole.startswith("-") else ""
    grouped = f"{int(whole.lstrip('-')):,}"
    fraction = fraction.rstrip("0")
    return f"{sign}{grouped}" + (f".{fraction}" if fraction else "")


def full_value(value: Any, unit: str) -> str:
    """The value with all its digits in its base unit, for a tooltip:
    full_value(2795.8474452152145, 'steps/s') is "2,795.8474452152145 steps/s"."""
    if value is None or isinstance(value, str):
        return format_value(value, unit)
    if isinstance(value, (list, tuple)):
        return ", ".join(full_value(v, unit) for v in value)
    if isinstance(value, bool) or unit in _BOOL_UNITS:
        return f"{'yes' if value else 'no'} ({int(value)})"
    text = f"{value:,}" if isinstance(value, int) else _all_digits(float(value))
    if unit in _BARE_UNITS:
        return text
    return f"{text} {'bytes' if unit == 'bytes' else unit_text(unit)}"
