"""The calculator registry: every computation of the book, declared once.

A calculator is a typed parameter spec (name, unit, default from the book, valid range,
help) plus a pure function returning named outputs, plus the values the book prints for
its defaults. The GUI forms, `lab list`, `lab calc` and `lab verify` are all generated
from these declarations.
"""
from __future__ import annotations

import importlib
import math
import os
import pkgutil
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

from core.units import NumberError, format_value, parse_number, suffix_text


class ParamError(ValueError):
    """Invalid input. Names the parameter and its valid range in one line."""

    def __init__(self, param: str, message: str):
        self.param = param
        self.message = message
        super().__init__(f"{param}: {message}")


@dataclass(frozen=True)
class BookRef:
    section: str  # '3.1.2'
    label: str = ""  # '图 3-2', '例题 3-1', '练习 3-1'

    def __str__(self) -> str:
        return f"§{self.section} {self.label}".strip()


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


@dataclass(frozen=True)
class Output:
    name: str
    unit: str
    help: str = ""
    formula: str = ""  # shown on hover: the book's formula for this number
    kind: str = "scalar"  # 'scalar' or 'series' (a list; not part of verify)


@dataclass(frozen=True)
class BookValue:
    """A figure the book prints (or that follows from its own worked rule).

    params: overrides of the defaults for this row (most rows use the defaults).
    printed: the text as the book writes it, shown beside the computed value.
    rel_tol: tolerance relative to the value (the book's printed precision).
    derived: True where the book states the question but prints no number; the value
    follows from the book's rule and is listed so readers can check it.
    """

    output: str
    value: float
    printed: str
    rel_tol: float = 1e-9
    params: Mapping[str, Any] = field(default_factory=dict)
    derived: bool = False
    abs_tol: float = 0.0

    def matches(self, computed: Any) -> bool:
        if computed is None or not isinstance(computed, (int, float)):
            return False
        return math.isclose(computed, self.value, rel_tol=self.rel_tol, abs_tol=self.abs_tol)


@dataclass(frozen=True)
class Calculator:
    name: str
    title: str
    ref: BookRef
    params: tuple[Param, ...]
    outputs: tuple[Output, ...]
    compute: Callable[..., dict]
    book: tuple[BookValue, ...] = ()
    note: str = ""  # e.g. '数值为示意': shown with the calculator
    check: Callable[[dict], None] | None = None  # cross-field validation, raises ParamError
    byte_system: str = "iec"  # how byte outputs read: 'iec' (MiB) or 'si' (GB), as the book's section prints

    @property
    def illustrative(self) -> bool:
        return any(p.illustrative for p in self.params)

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise ParamError(name, f"unknown parameter of {self.name}; valid: {', '.join(p.name for p in self.params)}")

    def output(self, name: str) -> Output:
        for o in self.outputs:
            if o.name == name:
                return o
        raise KeyError(name)

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    @cached_property
    def _parsed_defaults(self) -> dict[str, Any]:
        # Defaults pass through parse once, so they share the types of parsed input.
        return {p.name: p.parse(p.default) for p in self.params}

    @cached_property
    def default_inputs(self) -> Inputs:
        """The book's defaults, checked once (Inputs are frozen: one set serves every card)."""
        inputs, errors = self.resolve_all(None)
        if inputs is None:
            raise errors[0]
        return inputs

    def resolve(self, overrides: Mapping[str, Any] | None = None) -> Inputs:
        """Defaults updated with overrides (text or numbers): a checked, frozen value set.

        Inputs of this calculator come back as they are: they were checked when made.
        """
        inputs, errors = self.resolve_all(overrides)
        if inputs is None:
            raise errors[0]
        return inputs

    def resolve_all(self, overrides: Mapping[str, Any] | None = None,
                    base: Mapping[str, Any] | None = None) -> tuple[Inputs | None, list[ParamError]]:
        """Like resolve, but every field's error at once (a form marks each bad field).

        base: checked inputs the overrides apply to (default: the book's defaults); only the
        overrides are parsed, then the cross-field check runs on the whole set.
        """
        if isinstance(overrides, Inputs) and overrides.calculator == self.name:
            return overrides, []
        values = dict(base if base is not None else self._parsed_defaults)
        errors: list[ParamError] = []
        for key, raw in (overrides or {}).items():
            try:
                values[key] = self.param(key).parse(raw)
            except ParamError as err:
                errors.append(err)
        if not errors and self.check is not None:
            try:
                self.check(values)
            except ParamError as err:
                errors.append(err)
        if errors:
            return None, errors
        return Inputs(self.name, values, _token=_CHECKED), []

    def run(self, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        values = self.resolve(overrides)
        result = self.compute(**values)
        missing = [o.name for o in self.outputs if o.name not in result]
        # An absent output is allowed only as None (e.g. no successes => no success cost).
        for name in missing:
            result[name] = None
        return result

    def format_output(self, name: str, value: Any) -> str:
        return format_value(value, self.output(name).unit, self.byte_system)


_CHECKED = object()


class Inputs(Mapping):
    """A calculator's inputs after parsing and checking, frozen.

    Only Calculator.resolve makes them, so whatever takes an Inputs (run, the serving
    replay, the audio engine) uses the values as they are, without checking again.
    """

    __slots__ = ("calculator", "_values")

    def __init__(self, calculator: str, values: Mapping[str, Any], *, _token: object = None):
        if _token is not _CHECKED:
            raise TypeError("Inputs come from Calculator.resolve(), which checks them")
        self.calculator = calculator
        self._values = dict(values)

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __hash__(self) -> int:
        return hash((self.calculator, tuple(self._values.items())))

    def __repr__(self) -> str:
        return f"Inputs({self.calculator!r}, {self._values!r})"

    def as_dict(self) -> dict[str, Any]:
        return dict(self._values)


def _plain(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


class Registry:
    """The one list of calculators, discovered from core modules that define CALCULATORS."""

    def __init__(self, calculators: Sequence[Calculator] = ()):
        self._by_name: dict[str, Calculator] = {}
        for calc in calculators:
            self.add(calc)

    def add(self, calc: Calculator) -> None:
        """Register calc; the same calculator again (a package gathering its modules') is
        a no-op, another one of the same name an error."""
        if self._by_name.get(calc.name) is calc:
            return
        if calc.name in self._by_name:
            raise ValueError(f"calculator {calc.name} registered twice")
        self._by_name[calc.name] = calc

    def get(self, name: str) -> Calculator:
        try:
            return self._by_name[name]
        except KeyError:
            raise ParamError("NAME", f"no calculator {name!r}; see `lab list`") from None

    def __iter__(self):
        return iter(sorted(self._by_name.values(), key=lambda c: (_section_key(c.ref.section), c.name)))

    def __len__(self) -> int:
        return len(self._by_name)

    def names(self) -> list[str]:
        return [c.name for c in self]


def _section_key(section: str) -> tuple:
    return tuple(int(part) if part.isdigit() else 0 for part in section.split("."))


_REGISTRY: Registry | None = None


# A module declares its calculators in a top-level `CALCULATORS = (...)` statement.
_DECLARES = re.compile(r"^CALCULATORS\s*(?::[^=\n]*)?=", re.MULTILINE)
_CORE = os.path.dirname(os.path.abspath(__file__))


def calculator_modules(folder: str = _CORE, prefix: str = "core.") -> list[str]:
    """Dotted names of the modules under folder, its topic packages and theirs, that
    declare CALCULATORS, found by reading their source: discovery imports those only (not
    the sweep executors, the compiled engine loop or anything else a calculator does not
    need)."""
    names: list[str] = []
    for info in sorted(pkgutil.iter_modules([folder]), key=lambda m: m.name):
        if info.ispkg:
            sub = os.path.join(folder, info.name)
            if _declares(os.path.join(sub, "__init__.py")):
                names.append(prefix + info.name)
            names.extend(calculator_modules(sub, f"{prefix}{info.name}."))
        elif _declares(os.path.join(folder, f"{info.name}.py")):
            names.append(prefix + info.name)
    return names


def _declares(path: str) -> bool:
    try:
        with open(path, encoding="utf-8") as f:
            return _DECLARES.search(f.read()) is not None
    except OSError:
        return False


def registry() -> Registry:
    """All calculators of every core module, in any topic package, that declares a
    CALCULATORS tuple (a package that gathers its modules' tuples adds nothing twice)."""
    global _REGISTRY
    if _REGISTRY is None:
        found = Registry()
        for name in calculator_modules():
            for calc in getattr(importlib.import_module(name), "CALCULATORS", ()):
                found.add(calc)
        _REGISTRY = found
    return _REGISTRY


def get(name: str) -> Calculator:
    """The calculator of that name. Before the whole registry is needed, only the modules
    whose source names it are imported (`lab calc NAME` loads one topic, not all of core);
    the object is the one registry() holds. Found nowhere that way, the registry decides."""
    if _REGISTRY is None:
        for module in _naming(name):
            for calc in getattr(importlib.import_module(module), "CALCULATORS", ()):
                if calc.name == name:
                    return calc
    return registry().get(name)


@cache  # once per name: a sweep resolves every point through get()
def _naming(name: str) -> tuple[str, ...]:
    """Calculator modules whose source holds the quoted name (a candidate, not a proof: the
    module's CALCULATORS decides)."""
    quoted = (f'"{name}"', f"'{name}'")
    return tuple(module for module, text in _calculator_sources() if any(q in text for q in quoted))


@cache  # once: a talk's scenes ask for dozens of names, and each read every core source again
def _calculator_sources() -> tuple[tuple[str, str], ...]:
    """(module, source) of every calculator module of core."""
    found = []
    for module in calculator_modules():
        path = os.path.join(_CORE, *module.split(".")[1:])
        path = os.path.join(path, "__init__.py") if os.path.isdir(path) else path + ".py"
        try:
            with open(path, encoding="utf-8") as f:
                found.append((module, f.read()))
        except OSError:
            continue
    return tuple(found)
