"""What the Scaling & Budgets panel draws (§3.6), computed here once per change of a card.
Each function takes the card's checked inputs and the result computed from them."""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from core import scaling

FIT_LOG10_TOKENS = (7.6, 11.6)  # x range of 例题 3-5, log10 of D
FIT_LOSS_RANGE = (2.0, 8.0)
CHINCHILLA_TOKENS_PER_PARAMETER = 20.0
HELD_KEYS = ("h1", "h2")  # the fit card's residual outputs, in the file's holdout order

Figure = dict[str, Any]


def model_sizes() -> list[float]:
    """Parameter counts of the C4 runs, smallest first: one fitted curve each."""
    return sorted({o.parameters for o in scaling.c4_observations()})


def observations(split: str) -> tuple[list[float], list[float]]:
    """(tokens, loss) of the C4 runs in split 'fit' or 'holdout'."""
    rows = [o for o in scaling.c4_observations() if o.split == split]
    return [o.tokens for o in rows], [o.loss for o in rows]


def fit_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> Figure:
    """The fitted law's loss against D for every model size, and the held-out residuals
    labelled at their points (text positions in log10 units: the plot's x is in log mode)."""
    law = scaling.ScalingLaw(result["E"], result["A"], result["B"], result["alpha"], result["beta"])
    d = np.logspace(*FIT_LOG10_TOKENS, 120)
    held = [o for o in scaling.c4_observations() if o.split == "holdout"]
    return {
        "tokens": d, "curves": {n: law.loss(n, d) for n in model_sizes()},
        "held_labels": [(f"{key.upper()} {result[key + '_residual']:+.3f}", (float(np.log10(o.tokens)), o.loss))
                        for o, key in zip(held, HELD_KEYS)],
        "x_range": FIT_LOG10_TOKENS, "y_range": FIT_LOSS_RANGE,
    }


def serve_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> Figure:
    """Total GPU hours against calls served (millions) for both models, the crossing Q*,
    and whether the small model's data is extrapolated past the fit (drawn dashed)."""
    q_star = result["break_even_calls"] or 1e6
    calls = np.linspace(0, 2.5 * q_star, 100)
    small = result["small_train_gpu_h"] + calls * result["small_call_gpu_s"] / scaling.HOUR
    large = result["large_train_gpu_h"] + calls * result["large_call_gpu_s"] / scaling.HOUR
    return {
        "calls_m": calls / 1e6, "small": small, "large": large, "small_dashed": bool(result["small_extrapolated"]),
        "cross_m": q_star / 1e6,
        "cross_text": f"Q* ≈ {q_star / 1e6:,.0f} M calls" if result["break_even_calls"] is not None
        else "no crossing: the small model costs less from the first call",
        "cross_pos": (q_star / 1e6, 0.92 * float(max(small.max(), large.max()))),
    }


def table_labels() -> list[str]:
    """The bars of the tokens-per-parameter table: the book's models, then yours."""
    return [row[0] for row in scaling._TABLE] + ["yours"]


def table_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> Figure:
    """log10(D/N) per model of the book's table and for yours (the bars are in log10 units)."""
    ratios = [d / n for _, n, d, *_ in scaling._TABLE] + [result["tokens_per_parameter"]]
    return {"x": np.arange(len(ratios)), "log10_ratio": np.log10(ratios),
            "chinchilla_log10": float(np.log10(CHINCHILLA_TOKENS_PER_PARAMETER))}
