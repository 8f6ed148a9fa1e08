"""§3.5 RL: the cost of one cycle (例题 3-4) and extra generation with a fixed update (练习 3-7)."""
from __future__ import annotations

import math

import numpy as np

from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError
from core.training.model import TRAINING_PASSES, dense_model_keys, shape

MAX_TOKENS = 10_000_000


def generated_for(n_keep: int, keep_ratio: float) -> int:
    """n_generate ≈ n_keep / a, rounded up so at least n_keep survive on average."""
    # A tiny tolerance keeps 16 / 0.5 at 32, not 33 from a float tail.
    return int(math.ceil(n_keep / keep_ratio - 1e-9))


def cycle(model: str, prompt_tokens: int, output_tokens: int, n_keep: int, keep_ratio: float,
          n_generate: int) -> dict:
    s = shape(model)
    n = n_generate if n_generate > 0 else generated_for(n_keep, keep_ratio)
    rows = prompt_tokens + output_tokens - 1  # the last output token is never an input
    fg = s.generation_flops(prompt_tokens, output_tokens)
    fr = s.teacher_forcing_forward_flops(rows)
    fu = n_keep * TRAINING_PASSES * fr
    keep_all = n_keep * (fg + fr) + fu
    total = n * (fg + fr) + fu
    return {
        "n_generate": n,
        "gen_flops_per_answer": fg,
        "ref_flops_per_answer": fr,
        "gen_plus_ref_flops_per_answer": fg + fr,
        "update_flops": fu,
        "cycle_flops": total,
        "extra_flops_vs_keep_all": total - keep_all,
        "ratio_vs_keep_all": total / keep_all,
        "teacher_forcing_rows": rows,
        "update_input_tokens": n_keep * rows,
        "supervised_tokens": n_keep * output_tokens,
        "generation_share": n * fg / total,
    }


MAX_GENERATE = 10_000_000  # the most answers one cycle generates (n_generate's own maximum)


def _check_cycle(values: dict) -> None:
    if values["n_generate"] == 0 and values["n_keep"] / values["keep_ratio"] > MAX_GENERATE:
        lowest = values["n_keep"] / MAX_GENERATE
        raise ParamError("keep_ratio", f"got {values['keep_ratio']:g}; valid: [{lowest:.3g}, 1] with n_keep = "
                         f"{values['n_keep']:,} (n_keep / keep_ratio <= {MAX_GENERATE:,} answers generated)")
    if 0 < values["n_generate"] < values["n_keep"]:
        raise ParamError("n_generate", f"got {values['n_generate']}; valid: 0 (from the keep ratio) or >= n_keep ({values['n_keep']})")


_MODEL = Param("model", "", "qwen3-8b", "policy (and reference) model shape from the catalog, or a dense "
               "decoder's config.json path", kind="path", choices=dense_model_keys())
_P = Param("prompt_tokens", "tokens", 1024, "P: prompt tokens per answer (no shared prefix)", 1, MAX_TOKENS, kind="int", label="P")
_G = Param("output_tokens", "tokens", 256, "G: tokens per answer (all equal, no early stop)", 1, MAX_TOKENS, kind="int", label="G")
_KEEP = Param("n_keep", "samples", 16, "samples kept for the update", 1, 1e6, kind="int", label="n_keep")

CYCLE = Calculator(
    name="rl.cycle",
    title="保留比例下降,为保住 16 条更新样本要多算多少 · RL cycle FLOPs",
    ref=BookRef("3.5", "例题 3-4"),
    params=(
        _MODEL, _P, _G, _KEEP,
        Param("keep_ratio", "", 1.0, "a: share of generated samples kept (n_generate ≈ n_keep / a)", 0, 1,
              min_exclusive=True, label="a"),
        Param("n_generate", "samples", 0, "samples generated; 0 = from the keep ratio", 0, MAX_GENERATE, kind="int"),
    ),
    outputs=(
        Output("n_generate", "samples", "answers generated", "⌈n_keep / a⌉"),
        Output("gen_flops_per_answer", "FLOPs", "f_g: prefill of P rows + G−1 decode steps", "prefill(P) + Σ decode"),
        Output("ref_flops_per_answer", "FLOPs", "f_r: reference forward by teacher forcing over P+G−1 rows"),
        Output("gen_plus_ref_flops_per_answer", "FLOPs", "cost of each generated answer", "f_g + f_r"),
        Output("update_flops", "FLOPs", "F_u: kept samples × forward + backward", "n_keep · 3 · f_r"),
        Output("cycle_flops", "FLOPs", "one cycle", "F_cycle(n) = n(f_g + f_r) + F_u"),
        Output("extra_flops_vs_keep_all", "FLOPs", "against keeping every generated sample", "(n − n_keep)(f_g + f_r)"),
        Output("ratio_vs_keep_all", "x", "cycle against a = 1"),
        Output("teacher_forcing_rows", "tokens", "input length of scoring and training", "P + G − 1"),
        Output("update_input_tokens", "tokens", "tokens the update reads", "n_keep · (P + G − 1)"),
        Output("supervised_tokens", "tokens", "output labels in the update", "n_keep · G"),
        Output("generation_share", "ratio", "generation's share of the cycle"),
    ),
    compute=cycle,
    check=_check_cycle,
    book=(
        BookValue("teacher_forcing_rows", 1279, "输入长 P+G−1 = 1279"),
        BookValue("update_input_tokens", 20_464, "每轮更新输入 20,464 token"),
        BookValue("supervised_tokens", 4_096, "监督 4,096"),
        BookValue("gen_plus_ref_flops_per_answer", 38.411e12, "fg+fr ≈ 38.411 TFLOPs", rel_tol=2e-5),
        BookValue("update_flops", 952.416e12, "Fu = 952.416 TFLOPs", rel_tol=1e-6),
        BookValue("n_generate", 32, "a = 0.5:ngenerate ≈ 16 / 0.5", params={"keep_ratio": 0.5}, derived=True),
        BookValue("n_generate", 64, "a = 0.25:ngenerate ≈ 16 / 0.25", params={"keep_ratio": 0.25}, derived=True),
    ),
)

# rl.marginal: 练习 3-7


def marginal(model: str, prompt_tokens: int, output_tokens: int, n_keep: int, n_low: int, n_high: int,
             n_predict: int, teacher_samples: int, replicas: int, weight_bytes: float) -> dict:
    s = shape(model)

    def total(n: int) -> dict:
        return cycle(model, prompt_tokens, output_tokens, n_keep, 1.0, n)

    low, high = total(n_low)["cycle_flops"], total(n_high)["cycle_flops"]
    slope = (high - low) / (n_high - n_low)  # each extra answer: generation + reference
    fixed = low - slope * n_low  # the update, which does not depend on n
    # A teacher of the same shape forwards each answer once, like the reference.
    teacher = teacher_samples * s.teacher_forcing_forward_flops(prompt_tokens + output_tokens - 1)
    return {
        "cycle_flops_low": low,
        "cycle_flops_high": high,
        "per_sample_flops": slope,
        "fixed_update_flops": fixed,
        "predicted_cycle_flops": fixed + slope * n_predict,
        "teacher_flops": teacher,
        "weight_sync_bytes": replicas * weight_bytes * s.parameters,
    }


def _check_marginal(values: dict) -> None:
    for name in ("n_low", "n_high", "n_predict"):
        if values[name] < values["n_keep"]:
            raise ParamError(name, f"got {values[name]}; valid: >= n_keep ({values['n_keep']})")
    if values["n_high"] == values["n_low"]:
        raise ParamError("n_high", f"got {values['n_high']}, equal to n_low; valid: a different count")


MARGINAL = Calculator(
    byte_system="si",  # the book counts training state in GB
    name="rl.marginal",
    title="更新样本不变时,多生成的 RL 开销 · extra generation, teacher and weight sync",
    ref=BookRef("3.5", "练习 3-7"),
    params=(
        _MODEL, _P, _G, _KEEP,
        Param("n_low", "samples", 32, "first measured cycle: answers generated", 1, 1e7, kind="int"),
        Param("n_high", "samples", 64, "second measured cycle: answers generated", 1, 1e7, kind="int"),
        Param("n_predict", "samples", 48, "answers generated in the predicted cycle", 1, 1e7, kind="int"),
        Param("teacher_samples", "samples", 48, "answers a same-shape teacher forwards once (0: no teacher)", 0, 1e7, kind="int"),
        Param("replicas", "replicas", 4, "inference replicas that each receive the new weights", 0, 1e6, kind="int"),
        Param("weight_bytes", "bytes", 2, "bytes per weight sent (BF16: 2)", 0, 64, min_exclusive=True),
    ),
    outputs=(
        Output("cycle_flops_low", "FLOPs", "F_cycle(n_low)"),
        Output("cycle_flops_high", "FLOPs", "F_cycle(n_high)"),
        Output("per_sample_flops", "FLOPs", "each extra answer: generation + reference", "(F_high − F_low)/(n_high − n_low)"),
        Output("fixed_update_flops", "FLOPs", "the update's fixed cost", "F_low − slope · n_low"),
        Output("predicted_cycle_flops", "FLOPs", "F_cycle(n_predict)", "F_u + n · slope"),
        Output("teacher_flops", "FLOPs", "a same-shape teacher forwarding each answer once", "n_teacher · f_r"),
        Output("weight_sync_bytes", "bytes", "new weights sent to every replica separately", "replicas · 2N"),
    ),
    compute=marginal,
    check=_check_marginal,
    book=(
        BookValue("per_sample_flops", 38.411e12, "每多生成一条:fg+fr ≈ 38.411 TFLOPs", rel_tol=2e-5, derived=True),
        BookValue("fixed_update_flops", 952.416e12, "一次更新的固定运算量 = Fu", rel_tol=1e-6, derived=True),
        # From the book's printed per-answer and update figures: 48 x 38.411 + 952.416.
        BookValue("predicted_cycle_flops", 48 * 38.411e12 + 952.416e12,
                  "生成 48 条:48 × 38.411 + 952.416 ≈ 2,796.14 TFLOPs", rel_tol=1e-5, derived=True),
        # A same-shape teacher forwards 48 answers once: 48 f_r, the same as F_u = 16 x 3 f_r.
        BookValue("teacher_flops", 952.416e12, "教师对 48 条各前向一次 = 48 f_r = Fu ≈ 952.416 TFLOPs", rel_tol=1e-6, derived=True),
        BookValue("weight_sync_bytes", 4 * 2 * 8_190_735_360, "BF16 权重发给四个副本 ≈ 65.53 GB", derived=True),
    ),
)

CALCULATORS = (CYCLE, MARGINAL)


def cycle_curve(model: str, prompt_tokens: int, output_tokens: int, n_keep: int, n_max: int,
                points: int = 1025) -> dict:
    """F_cycle(n) for n = n_keep .. n_max, split into generation, reference and update.

    Each part is linear in n, so at most `points` whole values of n (the ends included)
    draw it exactly, however large n_max is.
    """
    base = cycle(model, prompt_tokens, output_tokens, n_keep, 1.0, n_keep)
    top = max(n_max, n_keep)
    n = np.unique(np.linspace(n_keep, top, min(points, top - n_keep + 1)).round())
    return {
        "n_generate": n,
        "generation": n * base["gen_flops_per_answer"],
        "reference": n * base["ref_flops_per_answer"],
        "update": np.full(n.size, base["update_flops"]),
    }
