"""The Serving panel's prefill/decode fields as state: pools= (xPyD, or cheapest[:XxY]),
kv_link= and kv_transfer= as `lab simulate serving` takes them. A card of
core.serving.state.ServingState, so sessions, talks, reset and undo carry them;
widgets/serving/pools_section.py runs replay A's workload on the pools they give.

The card checks each field's form (an xPyD the CLI reads, a link it names or a number of
GB/s); what needs the cards (nvlink on a card without it) is the run's refusal, shown next
to the field it names. pools="" (the default) is no P/D run. No Qt here."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from core.registry import BookRef, Calculator, Param, ParamError
from core.serving.pd_params import OVERLAPS, PD_TEXT_KEYS
from core.units import NumberError, parse_number

MAX_TEXT = 64  # longer than any xPyD or link name
HEADING = "prefill/decode 分离 · prefill/decode disaggregation"


@dataclass(frozen=True)
class TextParam(Param):
    """A short line of text, checked by `check` (text -> text, or ParamError)."""

    kind: str = "text"
    empty_ok: bool = True

    def range_text(self) -> str:
        return self.help

    def parse(self, raw: Any) -> Any:
        if not isinstance(raw, (str, int, float)) or isinstance(raw, bool):
            raise ParamError(self.name, f"got {type(raw).__name__}; valid: text, {self.help}")
        text = str(raw).strip()
        if len(text) > MAX_TEXT or any(ord(c) < 32 for c in text):
            raise ParamError(self.name, f"got {len(text)} characters; valid: at most {MAX_TEXT}, one line")
        if not text:
            if self.empty_ok:
                return ""
            raise ParamError(self.name, f"got ''; valid: {_valid(self.name)}")
        return CHECKS[self.name](text)


def _valid(name: str) -> str:
    return PD_TEXT_KEYS[name]


def _pools(text: str) -> str:
    from core.serving.disagg.keys import parse_pools

    if text.lower().startswith("cheapest"):
        from core.serving.disagg.capacity import parse_cheapest  # the search's own modules: on demand

        parse_cheapest(text)
    else:
        parse_pools(text)
    return text


def _kv_link(text: str) -> str:
    from core.serving.disagg.links import MAX_LINK_GB_S, link_choices

    if text.lower() in link_choices():
        return text.lower()
    try:
        gb_s = parse_number(text, "")
    except NumberError:
        gb_s = math.nan
    if not 0 < gb_s <= MAX_LINK_GB_S:
        raise ParamError("kv_link", f"got {text!r}; valid: one of {', '.join(link_choices())}, or GB/s per GPU "
                         f"each way (a number in (0, {MAX_LINK_GB_S:g}])")
    return text


CHECKS = {"pools": _pools, "kv_link": _kv_link}
PARAMS = (
    TextParam("pools", "", "", "'' (one pool: no P/D run), or " + PD_TEXT_KEYS["pools"]),
    TextParam("kv_link", "", "rdma-400g", PD_TEXT_KEYS["kv_link"], empty_ok=False),
    Param("kv_transfer", "", "whole", "how the KV moves: whole (after the prefill) or layerwise (each layer as it "
          "is computed)", kind="choice", choices=OVERLAPS),
)
NAMES = tuple(p.name for p in PARAMS)


def _calculator() -> Calculator:
    """The P/D fields as a card (not a registered calculator: the pools section's form)."""
    return Calculator(name="serving.pools", title=HEADING, ref=BookRef("3.3"), params=PARAMS, outputs=(),
                      compute=lambda **_: {})


POOLS = _calculator()
