"""The calculator registry: every computation of the book, declared once.

A calculator is a typed parameter spec (name, unit, default from the book, valid range,
help) plus a pure function returning named outputs, plus the values the book prints for
its defaults (core.params, core.calculator). The GUI forms, `lab list`, `lab calc` and
`lab verify` are all generated from these declarations; this module finds them.
"""
from __future__ import annotations

import importlib
import os
import pkgutil
import re
from collections.abc import Sequence
from functools import cache

# The declarations live in core.params and core.calculator; nearly every calculator module
# imports them from here, with the registry.
from core.calculator import BookRef, BookValue, Calculator, Inputs, Output
from core.params import Param, ParamError

__all__ = ["BookRef", "BookValue", "Calculator", "Inputs", "Output", "Param", "ParamError", "Registry",
           "calculator_modules", "get", "registry"]


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
