"""A calculator's input: Param, its declared unit, default and valid range, and the parsing
that turns text or a number into a checked value or a ParamError naming the field."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from core.units import NumberError, parse_number, suffix_text


class ParamError(ValueError):
    """Invalid input. Names the parameter and its valid range in one line."""

    def __init__(self, param: str, message: str):
        self.param = param
        self.message = message
        super().__init__(f"{param}: {message}")


MAX_PATH_CHARS = 4096  # PATH_MAX on Linux


@dataclass(frozen=True)
class Param:
    """One input of a calculator.

    kind: 'float', 'int', 'floats' (comma list), 'choice', 'bool' or 'path' (one of
    `choices`, e.g. a bundled trace or a catalog model, or else a file's path: the file
    itself is checked by whoever opens it, which names this parameter when it refuses).
    Bounds are inclusive unless min_exclusive is set (a rate that divides must be > 0).
    Text takes the suffixes that fit `unit` (core.units.parse_number): a time in the unit's
    own time ('20ms' and '0.02s' are 20 for a unit of 'ms'), sizes for bytes, k/M/G/T/P
    for counts; a scalar with a comma is refused.
    """

    name: str
    unit: str
    default: Any
    help: str
    min: float | None = None
    max: float | None = None
    kind: str = "float"
    choices: tuple[str, ...] = ()
    min_exclusive: bool = False
    label: str = ""
    illustrative: bool = False  # default is 示意, not a book figure
    min_items: int = 1
    max_items: int = 100_000

    @property
    def title(self) -> str:
        return self.label or self.name

    def range_text(self) -> str:
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        if self.kind == "path":
            named = "one of " + ", ".join(self.choices) + " or " if self.choices else ""
            return named + "a file's path"
        if self.kind == "bool":
            return "true or false"
        low = "—" if self.min is None else _plain(self.min)
        high = "—" if self.max is None else _plain(self.max)
        if self.min is not None and self.max is not None:
            left = "(" if self.min_exclusive else "["
            text = f"{left}{low}, {high}]"
        elif self.min is not None:
            text = f"{'>' if self.min_exclusive else '>='} {low}"
        elif self.max is not None:
            text = f"<= {high}"
        else:
            text = "any finite number"
        if self.kind == "floats":
            text = f"a comma list of {self.min_items}..{self.max_items} numbers, each {text}"
        elif self.kind == "int":
            text = f"a whole number {text}"
        return text + (f" {self.unit}" if self.unit and self.kind not in ("choice", "bool", "path") else "")

    def parse(self, raw: Any) -> Any:
        """Turn text or a number into a validated value, or raise ParamError."""
        if self.kind == "choice":
            value = str(raw).strip()
            if value not in self.choices:
                raise ParamError(self.name, f"got {value!r}; valid: {self.range_text()}")
            return value
        if self.kind == "path":
            value = str(raw).strip()
            if not value or len(value) > MAX_PATH_CHARS or "\0" in value:
                raise ParamError(self.name, f"got {_shown(raw)}; valid: {self.range_text()} "
                                 f"(at most {MAX_PATH_CHARS} characters)")
            return value
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ParamError(self.name, f"got {raw!r}; valid: true or false")
        if self.kind == "floats":
            items = raw if isinstance(raw, (list, tuple)) else [p for p in str(raw).split(",") if p.strip()]
            if not (self.min_items <= len(items) <= self.max_items):
                raise ParamError(self.name, f"got {len(items)} values; valid: {self.range_text()}")
            return tuple(self._number(item) for item in items)
        return self._number(raw)

    def suffix_text(self) -> str:
        """The unit suffixes this parameter takes, e.g. 'ns, us, µs, ms, s, min, h'."""
        return suffix_text(self.unit) if self.kind in ("float", "int", "floats") else ""

    def _refuse(self, raw: Any, why: str) -> ParamError:
        return ParamError(self.name, f"{_shown(raw)} {why}; valid: {self.range_text()} (suffixes: {self.suffix_text()})")

    def _number(self, raw: Any) -> float | int:
        if isinstance(raw, (int, float)):  # bool too: True is 1
            try:
                value = float(raw)
            except OverflowError:  # a 400-digit int
                raise self._refuse(raw, "is too large") from None
        else:
            try:
                value = parse_number(str(raw), self.unit)
            except NumberError as err:
                raise self._refuse(raw, err.reason) from None
        if not math.isfinite(value):
            raise ParamError(self.name, f"got {_shown(raw)}; valid: {self.range_text()}")
        if self.kind == "int":
            if not float(value).is_integer():
                raise ParamError(self.name, f"got {_plain(value)}, not a whole number; valid: {self.range_text()}")
            value = int(value)
        too_low = self.min is not None and (value <= self.min if self.min_exclusive else value < self.min)
        too_high = self.max is not None and value > self.max
        if too_low or too_high:
            raise ParamError(self.name, f"got {_plain(value)}; valid: {self.range_text()}")
        return value


def _shown(raw: Any) -> str:
    """The input as an error quotes it: one short line however long the input."""
    text = raw if isinstance(raw, str) else str(raw) if not isinstance(raw, int) or raw.bit_length() < 200 else None
    if text is None:
        return f"a {len(str(abs(raw)))}-digit number" if raw.bit_length() < 10_000 else "a huge number"
    return repr(text) if len(text) <= 40 else f"{text[:30]!r}… ({len(text)} characters)"


def _plain(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"
