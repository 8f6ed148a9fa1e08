"""loadlab.calc: one calculator of `lab calc NAME`, by keywords."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.registry import ParamError, get
from loadlab import _keys


@dataclass
class CalcResult:
    """summary: the scalar outputs (what `lab calc NAME --json` prints of them); outputs:
    every output (series as numpy arrays); inputs: the checked values it ran with."""

    name: str
    summary: dict
    outputs: dict
    inputs: dict


def calc(name: str, **params: Any) -> CalcResult:
    """Run calculator `name` (see `lab list`) with keyword parameters: the CLI's defaults
    and checks (loadlab.ParamError names the field and its valid range; an unknown key
    gets "did you mean").

    Example, 例题 3-1's request split with its defaults, then a longer prompt::

        >>> import loadlab
        >>> book = loadlab.calc("request.split")
        >>> longer = loadlab.calc("request.split", input_tokens=4096)
        >>> longer.inputs["input_tokens"]
        4096
        >>> sorted(book.summary) == sorted(longer.summary)
        True
    """
    calculator = _calculator(name)
    known = [p.name for p in calculator.params]
    raw = _keys.as_text(params, known, f"unknown parameter; valid: {', '.join(known)}")
    inputs = calculator.resolve(raw)
    outputs = calculator.run(inputs)
    summary = {o.name: outputs.get(o.name) for o in calculator.outputs if o.kind == "scalar"}
    return CalcResult(name, summary, {o.name: outputs.get(o.name) for o in calculator.outputs}, dict(inputs))


def _calculator(name: str):
    """The calculator, or the CLI's refusal: "did you mean" the closest name, see `lab list`."""
    try:
        return get(name)
    except ParamError as err:
        import difflib

        from core.registry import registry

        close = difflib.get_close_matches(str(name), [c.name for c in registry()], n=1)
        meant = f"did you mean {close[0]}? " if close else ""
        raise ParamError(err.param, f"{meant}no calculator {str(name)!r}; valid: see `lab list`") from None
