"""`lab verify`: every book figure of every calculator beside the computed value."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.format import full_value
from core.registry import BookValue, Calculator, Registry, registry


@dataclass(frozen=True)
class VerifyRow:
    calculator: str
    ref: str
    output: str
    params: dict
    printed: str
    book_value: float
    computed: Any
    rel_tol: float
    abs_tol: float
    ok: bool
    derived: bool
    computed_text: str
    book_text: str
    computed_full: str = ""  # every digit, for a tooltip (core.format.full_value)
    book_full: str = ""

    @property
    def tolerance_text(self) -> str:
        return f"±{self.abs_tol:g}" if self.abs_tol else f"{self.rel_tol:.0e} rel"

    def as_json(self) -> dict:
        return {
            "calculator": self.calculator,
            "ref": self.ref,
            "output": self.output,
            "params": self.params,
            "book": self.book_value,
            "printed": self.printed,
            "computed": self.computed,
            "rel_tol": self.rel_tol,
            "abs_tol": self.abs_tol,
            "ok": self.ok,
            "derived": self.derived,
        }


def verify_calculator(calc: Calculator) -> list[VerifyRow]:
    rows: list[VerifyRow] = []
    cache: dict[tuple, dict] = {}
    for bv in calc.book:
        key = tuple(sorted((k, str(v)) for k, v in bv.params.items()))
        if key not in cache:
            cache[key] = calc.run(bv.params)
        computed = cache[key].get(bv.output)
        rows.append(_row(calc, bv, computed))
    return rows


def _row(calc: Calculator, bv: BookValue, computed: Any) -> VerifyRow:
    return VerifyRow(
        calculator=calc.name,
        ref=str(calc.ref),
        output=bv.output,
        params=dict(bv.params),
        printed=bv.printed,
        book_value=bv.value,
        computed=computed,
        rel_tol=bv.rel_tol,
        abs_tol=bv.abs_tol,
        ok=bv.matches(computed),
        derived=bv.derived,
        computed_text=calc.format_output(bv.output, computed),
        book_text=calc.format_output(bv.output, bv.value),
        computed_full=full_value(computed, calc.output(bv.output).unit),
        book_full=full_value(bv.value, calc.output(bv.output).unit),
    )


def verify_all(reg: Registry | None = None) -> list[VerifyRow]:
    rows: list[VerifyRow] = []
    for calc in reg or registry():
        rows.extend(verify_calculator(calc))
    return rows
