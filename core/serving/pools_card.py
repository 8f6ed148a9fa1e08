"""The Serving panel's prefill/decode fields as state: pools= (xPyD, or cheapest[:XxY]),
kv_link= and kv_transfer= as `lab simulate serving` takes them. A card of
core.serving.state.ServingState, so sessions, talks, reset and undo carry them;
widgets/serving/pools_section.py runs replay A's workload on the pools they give.

The card checks each field's form (an xPyD the CLI reads, a link it names or a number of
GB/s); what needs the cards (nvlink on a card without it) is the run's refusal, shown next
to the field it names. pools="" (the default) is no P/D run. No Qt here."""
from __future__ import annotations

import math

from core.registry import BookRef, Calculator, Param, ParamError
from core.serving.pd_params import OVERLAPS, PD_TEXT_KEYS
from core.serving.text_param import TextParam
from core.units import NumberError, parse_number

HEADING = "prefill/decode 分离 · prefill/decode disaggregation"


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


PARAMS = (
    TextParam("pools", "", "", "'' (one pool: no P/D run), or " + PD_TEXT_KEYS["pools"], check=_pools),
    TextParam("kv_link", "", "rdma-400g", PD_TEXT_KEYS["kv_link"], empty_ok=False, check=_kv_link),
    Param("kv_transfer", "", "whole", "how the KV moves: whole (after the prefill) or layerwise (each layer as it "
          "is computed)", kind="choice", choices=OVERLAPS),
)
NAMES = tuple(p.name for p in PARAMS)


def _calculator() -> Calculator:
    """The P/D fields as a card (not a registered calculator: the pools section's form)."""
    return Calculator(name="serving.pools", title=HEADING, ref=BookRef("3.3"), params=PARAMS, outputs=(),
                      compute=lambda **_: {})


POOLS = _calculator()
