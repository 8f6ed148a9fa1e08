"""A calculator: its parameters, named outputs, the figures the book prints for it, and the
frozen Inputs that only its own checks make."""
from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from core.params import Param, ParamError
from core.units import format_value


@dataclass(frozen=True)
class BookRef:
    section: str  # '3.1.2'
    label: str = ""  # '图 3-2', '例题 3-1', '练习 3-1'

    def __str__(self) -> str:
        return f"§{self.section} {self.label}".strip()


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
