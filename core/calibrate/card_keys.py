"""Per-card coefficients for a calibration over runs on several cards (core/calibrate/
summaries.py): "coef_decode_weights@h100-sxm" is coef_decode_weights for the runs on that
card only, so one fit can give each card its own achieved bandwidth or compute while the
engine's and the client's terms (the front end, the per-sequence time) stay shared.

    expand(("coef_decode_weights@card", "coef_seq_s"), ("a100-80gb", "h100-sxm"))
      -> ("coef_decode_weights@a100-80gb", "coef_decode_weights@h100-sxm", "coef_seq_s")
    for_card({"coef_decode_weights@h100-sxm": 1.2, "coef_seq_s": 2e-5}, "h100-sxm")
      -> {"coef_decode_weights": 1.2, "coef_seq_s": 2e-5}

Why per card and not one set: the multipliers sit on the card's datasheet lines, and what a
card's kernels reach of its datasheet is the card's (HBM3 on an H100 and HBM2e on an A100
are not reached in the same share; step_defaults' compute efficiency is per card already).
A card no fitted run was on (a prediction for another card) takes the geometric mean of
the fitted cards' values: the one value a fit over those cards says about a card it has not
seen, and with one fitted card, that card's value (as a shared key would give). No Qt here.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

SEP = "@"
EVERY_CARD = "card"  # "key@card": the key once per card of the fitted runs


def base(key: str) -> str:
    """The coefficient a (possibly per-card) fit key sets."""
    return key.split(SEP, 1)[0]


def card_of(key: str) -> str | None:
    return key.split(SEP, 1)[1] if SEP in key else None


def expand(keys: Sequence[str], cards: Sequence[str]) -> tuple[str, ...]:
    """"key@card" -> one "key@<card>" per card (in the order given); others as they are;
    each once."""
    out: list[str] = []
    for k in keys:
        for e in ([f"{base(k)}{SEP}{c}" for c in cards] if card_of(k) == EVERY_CARD else [k]):
            if e not in out:
                out.append(e)
    return tuple(out)


def for_card(coefs: Mapping[str, float], card: str) -> dict[str, float]:
    """The plain coefficients a run on card takes: its card's per-card values over the
    shared ones; a key fitted per card but not for this card: the geometric mean of the
    cards' values."""
    out = {k: float(v) for k, v in coefs.items() if SEP not in k}
    others: dict[str, list[float]] = {}
    for k, v in coefs.items():
        c = card_of(k)
        if c is None:
            continue
        if c == card:
            out[base(k)] = float(v)
        else:
            others.setdefault(base(k), []).append(float(v))
    for k, values in others.items():
        if f"{k}{SEP}{card}" not in coefs:
            out[k] = math.exp(sum(math.log(max(v, 1e-300)) for v in values) / len(values))
    return out
