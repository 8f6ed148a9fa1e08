"""What the Scaling & Budgets panel draws (§3.6), computed here once per change of a card.
Each function takes the card's checked inputs and the result computed from them."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from core.catalog import hardware
from core.format import format_value, significant
from core.scaling import budgets
from core.scaling import law as scaling_law

FIT_LOG10_TOKENS = (7.6, 11.6)  # x range of 例题 3-5, log10 of D
FIT_LOSS_RANGE = (2.0, 8.0)
CHINCHILLA_TOKENS_PER_PARAMETER = 20.0
HELD_KEYS = ("h1", "h2")  # the fit card's residual outputs, in the file's holdout order

Figure = dict[str, Any]


def model_sizes() -> list[float]:
    """Parameter counts of the C4 runs, smallest first: one fitted curve each."""
    return sorted({o.parameters for o in scaling_law.c4_observations()})


def observations(split: str) -> tuple[list[float], list[float]]:
    """(tokens, loss) of the C4 runs in split 'fit' or 'holdout'."""
    rows = [o for o in scaling_law.c4_observations() if o.split == split]
    return [o.tokens for o in rows], [o.loss for o in rows]


def fit_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> Figure:
    """The fitted law's loss against D for every model size, and the held-out residuals
    labelled at their points (text positions in log10 units: the plot's x is in log mode)."""
    law = scaling_law.ScalingLaw(result["E"], result["A"], result["B"], result["alpha"], result["beta"])
    d = np.logspace(*FIT_LOG10_TOKENS, 120)
    held = [o for o in scaling_law.c4_observations() if o.split == "holdout"]
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
    small = result["small_train_gpu_h"] + calls * result["small_call_gpu_s"] / budgets.HOUR
    large = result["large_train_gpu_h"] + calls * result["large_call_gpu_s"] / budgets.HOUR
    return {
        "calls_m": calls / 1e6, "small": small, "large": large, "small_dashed": bool(result["small_extrapolated"]),
        "cross_m": q_star / 1e6,
        "cross_text": f"Q* ≈ {format_value(q_star, 'calls')}" if result["break_even_calls"] is not None
        else "no crossing: the small model costs less from the first call",
        "cross_pos": (q_star / 1e6, 0.92 * float(max(small.max(), large.max()))),
    }


def table_labels() -> list[str]:
    """The bars of the tokens-per-parameter table: the book's models, then yours."""
    return [row[0] for row in budgets._TABLE] + ["yours"]


def table_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> Figure:
    """log10(D/N) per model of the book's table and for yours (the bars are in log10 units)."""
    ratios = [d / n for _, n, d, *_ in budgets._TABLE] + [result["tokens_per_parameter"]]
    return {"x": np.arange(len(ratios)), "log10_ratio": np.log10(ratios),
            "chinchilla_log10": float(np.log10(CHINCHILLA_TOKENS_PER_PARAMETER))}


# ---- 图 3-30 ------------------------------------------------------------------------
# 图 3-30's models: (label, GPU hours as reported, card they ran on, source). Converted to
# A100 hours by dense BF16 peak (a100_equivalent), assuming similar utilisation.
REPORTED_GPU_HOURS = (
    ("LLaMA 65B", 1_022_362, "a100-80gb", "LLaMA paper, Table 15 (练习 3-10)"),
    ("Llama 2 70B", 1_720_320, "a100-80gb", "Llama 2 paper, Table 2"),
    ("Llama 3.1 8B", 1_460_000, "h100-sxm", "Llama 3.1 model card"),
    ("Llama 3.1 405B", 30_840_000, "h100-sxm", "Llama 3.1 model card"),
    ("DeepSeek-V3", 2_664_000, "h800", "DeepSeek-V3 report: pre-training only (只计预训练)"),
    ("Qwen3-8B RL", 17_920, "h800", "Qwen3 report, Table 21 (RL route)"),
    ("Qwen3-8B OPD", 1_800, "h800", "Qwen3 report, Table 21 (on-policy distillation)"),
)


A100_NATIVE_CARD = "a100-80gb"


def a100_equivalent_hours(gpu_hours: float, card: str) -> float:
    """GPU hours on `card` as A100 hours: scaled by the two dense BF16 peaks (the card's
    own formula, budgets.a100_equivalent)."""
    peaks = hardware(card).figure("bf16_dense_flops"), hardware(A100_NATIVE_CARD).figure("bf16_dense_flops")
    return budgets.a100_equivalent(gpu_hours, *peaks)["a100_gpu_hours"]
YOURS_LABEL = "当前卡片 yours"
Y_FLOOR_LOG10 = 3.0  # the axis starts at 1,000 GPU hours; bars rise from below it


def _hours_text(hours: float) -> str:
    """1,022,362 as "1.02M", 56,827 as "56.8k": short enough to sit on a bar."""
    for factor, suffix in ((1e6, "M"), (1e3, "k")):
        if hours >= factor:
            return f"{significant(hours / factor, 3)}{suffix}"
    return significant(hours, 3)


def a100_labels() -> list[str]:
    """The bars of 图 3-30: the models, then the card's own case."""
    return [row[0] for row in REPORTED_GPU_HOURS] + [YOURS_LABEL]


def a100_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> Figure:
    """图 3-30: each model's reported GPU hours as A100 hours (bars in log10 units, the
    plot's y is logarithmic), the reported hours as a marker (raw hours: a curve in a log
    plot takes the log itself), and the card's own case last."""
    rows = [(label, float(hours), a100_equivalent_hours(hours, card), card == A100_NATIVE_CARD)
            for label, hours, card, _ in REPORTED_GPU_HOURS]
    rows.append((YOURS_LABEL, float(inputs["gpu_hours"]), float(result["a100_gpu_hours"]), False))
    equivalent = np.array([max(r[2], 1.0) for r in rows])
    reported = np.array([max(r[1], 1.0) for r in rows])
    top = float(np.log10(equivalent.max()))
    return {
        "labels": [r[0] for r in rows], "x": np.arange(len(rows)),
        "reported_hours": [r[1] for r in rows], "a100_hours": [r[2] for r in rows],
        "native_a100": [r[3] for r in rows],
        "log10_a100": np.log10(equivalent), "reported_marker": reported,
        # Name and A100 hours over each bar (the names are too long for axis ticks side by side).
        "texts": [(f"{r[0]}\n{_hours_text(r[2])}", (float(i), float(np.log10(max(r[2], 1.0))) + 0.04))
                  for i, r in enumerate(rows)],
        "y_range": (Y_FLOOR_LOG10, top + 0.9), "ratio_pos": (-0.45, top + 0.9),
        "ratio_text": f"H100/H800 ÷ A100 = {significant(result['peak_ratio'], 3)}",
    }
