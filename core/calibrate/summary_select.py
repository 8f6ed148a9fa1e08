"""Which coefficients a calibration on summary figures (core/calibrate/summaries.py) should
fit, chosen on the fit runs alone: each candidate set is scored by the error of held-out
folds of those runs, each fold predicted by a fit to the others (never by a run the
calibration is later checked on).

    leave_out(runs, ("coef_prefill_compute", "coef_decode_weights@card"), folds="model_card")
    keys, rounds = select_keys(runs, CANDIDATES, folds="model_card")

Folds: "run" leaves one run out (the same card and model, another workload); "model_card"
leaves out every run of one model on one card (another model, as a held-out model on a
fitted card is; a card left with no run takes card_keys' mean of the others). A fold's fit
is over the cards of the runs it keeps: a per-card key is fitted for those. No Qt here.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.calibrate import card_keys, search
from core.calibrate.summaries import (
    FIT_KEYS,
    SummaryProblem,
    SummaryReplay,
    SummaryRun,
    _duck,
    checked_keys,
    replays_of,
)
from core.registry import ParamError

FOLDS = ("run", "model_card")
# What select_keys tries by default: the shared FIT_KEYS, a second factor on decode's KV
# time and the step's fixed time, and the card's own lines (its achieved compute,
# weight-read bandwidth, attention and KV-read rates) per card.
CANDIDATES = FIT_KEYS + ("coef_decode_kv", "coef_step_s", "coef_prefill_compute@card", "coef_decode_weights@card",
                         "coef_attention@card", "coef_decode_kv@card")


def fold_ids(replays: Sequence[SummaryReplay], folds: str) -> list[list[int]]:
    """The runs' indices in each fold, in the runs' order."""
    if folds not in FOLDS:
        raise ParamError("folds", f"got {folds!r}; valid: {', '.join(FOLDS)}")
    label = [r.run.id if folds == "run" else f"{r.run.keys.get('model')}@{r.card}" for r in replays]
    groups: dict[str, list[int]] = {}
    for i, g in enumerate(label):
        groups.setdefault(g, []).append(i)
    return list(groups.values())


def leave_out(runs: Sequence[SummaryRun], fit_keys: Sequence[str], nfev: int = 60, folds: str = "run") -> dict:
    """Each fold predicted by a fit of fit_keys to the other runs (local searches from the
    defaults): median |error| % over every held-out scored figure, the worst, the errors."""
    replays, _ = replays_of(runs)
    groups = fold_ids(replays, folds)
    errors: list[float] = []
    where: list[str] = []
    for held in groups:
        train = [r for i, r in enumerate(replays) if i not in held]
        coefs: dict[str, float] = {}
        if fit_keys and train:
            keys_ = checked_keys(fit_keys, train)
            cards = {r.card for r in train}
            keys_ = tuple(k for k in keys_ if all(card_keys.base(k) in r.defaults for r in train)
                          and card_keys.card_of(k) in (None, *cards))
            defaults = dict(train[0].defaults)
            for k in keys_:
                if card_keys.SEP in k:
                    defaults[k] = next(r for r in train if r.card == card_keys.card_of(k)).defaults[card_keys.base(k)]
            start = {k: max(defaults[k], search.FLOOR) if k in keys_ else defaults[k] for k in defaults}
            problem = SummaryProblem(train, keys_, start)
            if keys_:
                x = search.local_fit(_duck(problem), np.zeros(len(keys_)), None, np.ones(len(train)), nfev).x
                coefs = {k: v for k, v in problem.coefs(x).items() if k in keys_}
        for i in held:
            r = replays[i]
            got = r.predict(coefs)
            for m in r.scored:
                errors.append(100.0 * (got[m] - r.run.measured[m]) / r.run.measured[m])
                where.append(f"{r.run.id} {m}")
    worst = int(np.argmax(np.abs(errors)))
    return {"keys": list(fit_keys), "folds": folds, "median_abs_error_pct": float(np.median(np.abs(errors))),
            "worst_error_pct": float(errors[worst]), "worst": where[worst], "errors_pct": errors}


def leave_one_out(runs: Sequence[SummaryRun], fit_keys: Sequence[str], nfev: int = 60) -> dict:
    """leave_out with one run a fold."""
    return leave_out(runs, fit_keys, nfev, "run")


def select_keys(runs: Sequence[SummaryRun], candidates: Sequence[str] = FIT_KEYS, *, nfev: int = 60,
                gain_pct: float = 0.1, folds: str = "run") -> tuple[tuple[str, ...], list[dict]]:
    """Forward selection on the fit runs alone: from none, add the candidate whose held-out
    median |error| (leave_out's folds) is lowest, while it lowers it by more than gain_pct
    points. A key that fits the fit runs but not a fold left out is not taken; a key asked
    both shared and per card is taken one way only. Returns (keys, each round's scores)."""
    replays, _ = replays_of(runs)
    fold_ids(replays, folds)  # a bad folds= before any fit
    candidates = [k for k in candidates if all(card_keys.base(k) in r.defaults for r in replays)]  # front end off
    chosen: tuple[str, ...] = ()
    best = leave_out(runs, chosen, nfev, folds)["median_abs_error_pct"]
    rounds: list[dict] = [{"keys": [], "held_out_median_abs_error_pct": best}]
    while True:
        taken = {card_keys.base(k) for k in chosen}
        left = [k for k in candidates if k not in chosen and card_keys.base(k) not in taken]
        if not left:
            break
        scores = {k: leave_out(runs, chosen + (k,), nfev, folds)["median_abs_error_pct"] for k in left}
        k = min(scores, key=lambda key: scores[key])
        took = k if scores[k] < best - gain_pct else None
        rounds.append({"tried": {key: round(v, 3) for key, v in scores.items()}, "took": took})
        if took is None:
            break
        chosen, best = chosen + (k,), scores[k]
    return chosen, rounds
