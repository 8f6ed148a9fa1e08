"""§3.6 budgets: training as the intercept and each call as the slope (图 3-28, 练习 3-10),
calendar time, tokens per parameter (Llama/Qwen table), MoE expert FLOPs (DeepSeek V4) and
A100-equivalent GPU hours (图 3-30)."""
from __future__ import annotations

from core.catalog import hardware
from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError
from core.scaling.law import N_SCALE, book_law, c4_observations

HOUR = 3600.0
# Durations divide FLOPs by peak · MFU; a floor keeps every allowed model and call finite.
MIN_MFU = 1e-6
# Break-even counts divide extra training by a saving per task; the floor keeps them finite.
MIN_SAVING_PER_TASK_GPU_S = 1e-9



def train_vs_serve(target_loss: float, small_parameters: float, large_parameters: float, input_tokens: int,
                   output_tokens: int, peak_flops: float, mfu: float) -> dict:
    """图 3-28: training 6ND is the intercept, each call 2N[P + (G-1)] the slope, both at the
    same GPU rate, so where the lines cross depends on FLOPs alone, not on the MFU."""
    law = book_law()
    rate = peak_flops * mfu
    d_small = law.tokens_for_loss(small_parameters, target_loss)
    d_large = law.tokens_for_loss(large_parameters, target_loss)
    for name, n, d in (("small_parameters", small_parameters, d_small), ("large_parameters", large_parameters, d_large)):
        if d is None:
            # L(N, ∞) = E + A (N/1e9)^-alpha must lie below the target.
            smallest = N_SCALE * ((target_loss - law.E) / law.A) ** (-1 / law.alpha)
            raise ParamError(name, f"{n:g} parameters cannot reach loss {target_loss:g} at any data size; "
                             f"valid: > {smallest:.4g} parameters for this target_loss")
    assert d_small is not None and d_large is not None  # refused above
    train_small = 6 * small_parameters * d_small / rate / HOUR
    train_large = 6 * large_parameters * d_large / rate / HOUR
    rows_per_call = input_tokens + output_tokens - 1
    call_small = 2 * small_parameters * rows_per_call / rate
    call_large = 2 * large_parameters * rows_per_call / rate
    delta_train = train_small - train_large
    saving = call_large - call_small
    fit_max_tokens = max(o.tokens for o in c4_observations() if o.split == "fit")
    return {
        "small_tokens": d_small,
        "large_tokens": d_large,
        "small_train_gpu_h": train_small,
        "large_train_gpu_h": train_large,
        "extra_train_gpu_h": delta_train,
        "small_call_gpu_s": call_small,
        "large_call_gpu_s": call_large,
        "call_saving_gpu_s": saving,
        # The lines cross only if the small model costs more to train; otherwise it is
        # cheaper from the first call and there is no break-even (None).
        "break_even_calls": delta_train * HOUR / saving if delta_train > 0 else None,
        "small_extrapolated": float(d_small > fit_max_tokens),
    }


def _check_train_vs_serve(values: dict) -> None:
    target, E = values["target_loss"], book_law().E
    if target <= E:
        raise ParamError("target_loss", f"got {target:g}; valid: > {E:.4g} nats, the fit's irreducible loss E")
    if values["small_parameters"] >= values["large_parameters"]:
        raise ParamError("small_parameters", f"got {values['small_parameters']:g}; valid: < large_parameters "
                         f"({values['large_parameters']:g}): the small model is the one with fewer parameters")


def lifetime_choice(extra_train_gpu_h: float, saving_per_task_gpu_s: float, tasks: float) -> dict:
    """练习 3-10: C_life = C0 + Q·c. The small model pays more up front and less per task."""
    saved = tasks * saving_per_task_gpu_s / HOUR
    return {
        "break_even_tasks": extra_train_gpu_h * HOUR / saving_per_task_gpu_s,
        "serving_saving_gpu_h": saved,
        "small_model_net_gpu_h": saved - extra_train_gpu_h,  # > 0: the small model wins
    }


def calendar(gpu_hours: float, cards: int) -> dict:
    return {"wall_hours": gpu_hours / cards, "days": gpu_hours / cards / 24}


def tokens_per_parameter(parameters: float, tokens: float) -> dict:
    return {
        "tokens_per_parameter": tokens / parameters,
        "train_flops": 6 * parameters * tokens,
        "chinchilla_tokens": 20 * parameters,  # about 20 tokens per parameter
        "times_chinchilla": tokens / (20 * parameters),
    }


def moe_expert_flops(layers: int, hidden_size: int, moe_intermediate_size: int, routed_experts_per_token: int,
                     shared_experts: int, tokens: float) -> dict:
    """18 = 3 matrices (gate, up, down) × 2 FLOPs per multiply-add × 3 (forward + backward)."""
    per_token = 18 * layers * hidden_size * moe_intermediate_size * (routed_experts_per_token + shared_experts)
    return {"expert_flops_per_token": per_token, "expert_train_flops": per_token * tokens}


def a100_equivalent(gpu_hours: float, peak_flops: float, a100_peak_flops: float) -> dict:
    ratio = peak_flops / a100_peak_flops
    return {"peak_ratio": ratio, "a100_gpu_hours": gpu_hours * ratio}


_H100 = hardware("h100-sxm")
_A100 = hardware("a100-80gb")

TRAIN_VS_SERVE = Calculator(
    name="scaling.train_vs_serve",
    title="图 3-28 · 训练投入是截距,单次调用是斜率",
    ref=BookRef("3.6", "图 3-28"),
    params=(
        Param("target_loss", "nats", 2.9, "quality both models must reach (book: 2.9)", 0.5, 20),
        Param("small_parameters", "params", 0.1e9, "the smaller model (book: 0.1B)", 1e6, 1e13),
        Param("large_parameters", "params", 0.5e9, "the larger model (book: 0.5B)", 1e6, 1e13),
        Param("input_tokens", "tokens", 512, "P per call (book: 512)", 1, 1e7, kind="int"),
        Param("output_tokens", "tokens", 128, "G per call (book: 128)", 1, 1e7, kind="int"),
        Param("peak_flops", "FLOP/s", _H100.bf16_dense_flops, "GPU dense BF16 peak (H100 SXM: 989.4 T)", 1e9, 1e18),
        Param("mfu", "", 0.40, "model FLOPs utilisation (book: 40%)", MIN_MFU, 1),
    ),
    outputs=(
        Output("small_tokens", "tokens", "training tokens the small model needs", "L(N, D) = target → D"),
        Output("large_tokens", "tokens", "", "L(N, D) = target → D"),
        Output("small_train_gpu_h", "GPU·h", "", "6ND / (peak · MFU)"),
        Output("large_train_gpu_h", "GPU·h", "", "6ND / (peak · MFU)"),
        Output("extra_train_gpu_h", "GPU·h", "the small model's extra training", "ΔC0"),
        Output("small_call_gpu_s", "GPU·s", "GPU time of one call to the small model", "2N[P + (G − 1)] / (peak · MFU)"),
        Output("large_call_gpu_s", "GPU·s", "", "2N[P + (G − 1)] / (peak · MFU)"),
        Output("call_saving_gpu_s", "GPU·s", "saved on every call", "Δc = 2ΔN[P + (G − 1)] / (peak · MFU)"),
        Output("break_even_calls", "calls", "beyond this many calls the small model is cheaper; absent when it "
               "needs no extra training (cheaper from the first call)", "Q* = ΔC0 / Δc"),
        Output("small_extrapolated", "bool", "yes when D lies beyond the fit data (dashed)", "D > max D_fit"),
    ),
    compute=train_vs_serve,
    check=_check_train_vs_serve,
    book=(
        BookValue("small_tokens", 298.6e9, "0.1B 需约 298.6B 训练 token", rel_tol=0.0005),
        BookValue("small_train_gpu_h", 125.7, "约 125.7 GPU 小时", rel_tol=0.0005),
        BookValue("extra_train_gpu_h", 73.5, "比 0.5B 多 73.5", rel_tol=0.001),
        BookValue("call_saving_gpu_s", 0.00129, "每次调用少用约 0.00129 GPU 秒", rel_tol=0.004),
        BookValue("small_extrapolated", 1.0, "超出拟合数据范围(虚线 = 外推)"),
    ),
)

LIFETIME = Calculator(
    name="scaling.lifetime",
    title="练习 3-10 · 选哪个模型取决于未来调用量",
    ref=BookRef("3.6", "练习 3-10"),
    params=(
        Param("extra_train_gpu_h", "GPU·h", 100_000, "the small model's extra training (练习 3-10: 100,000 H100 h)", 0, 1e12),
        Param("saving_per_task_gpu_s", "GPU·s", 0.72, "saved per successful task (练习 3-10: 0.72 s)",
              MIN_SAVING_PER_TASK_GPU_S, 1e9),
        Param("tasks", "tasks", 2e8, "tasks served over its life (练习 3-10: 2e8, then 1e9)", 0, 1e18),
    ),
    outputs=(
        Output("break_even_tasks", "tasks", "the choice reverses here", "Q* = ΔC0 / Δc"),
        Output("serving_saving_gpu_h", "GPU·h", "", "Q · Δc"),
        Output("small_model_net_gpu_h", "GPU·h", "> 0: the small model costs less in total", "Q · Δc − ΔC0"),
    ),
    compute=lifetime_choice,
    book=(
        BookValue("break_even_tasks", 5e8, "任务量 5 亿处反转", derived=True),
        BookValue("small_model_net_gpu_h", -60_000, "两亿项:选大模型,差 6 万 GPU 小时", derived=True),
        BookValue("small_model_net_gpu_h", 100_000, "十亿项:选小模型,差 10 万 GPU 小时", params={"tasks": 1e9}, derived=True),
    ),
)

CALENDAR = Calculator(
    name="scaling.calendar",
    title="GPU 小时 ÷ 卡数 = 日历时间",
    ref=BookRef("3.6", "练习 3-10"),
    params=(
        Param("gpu_hours", "GPU·h", 1_022_362, "total GPU hours (练习 3-10: 1,022,362 A100 h)", 0, 1e12),
        Param("cards", "cards", 2048, "cards training at once (练习 3-10: 2048, then 1024)", 1, 10_000_000, kind="int"),
    ),
    outputs=(
        Output("wall_hours", "h", "", "GPU·h / cards"),
        Output("days", "days", "", "GPU·h / cards / 24"),
    ),
    compute=calendar,
    book=(
        BookValue("days", 20.8, "2048 张约 20.8 天", rel_tol=0.003, derived=True),
        BookValue("days", 41.6, "1024 张约 41.6 天", rel_tol=0.003, params={"cards": 1024}, derived=True),
    ),
)

_TABLE = (  # the book's Llama/Qwen table: (label, N, D, printed D/N, printed 6ND, rel tolerance)
    ("Llama 1 · 6.7B", 6.7e9, 1e12, 149, 4.02e22, 0.005),
    ("Llama 2 · 约 7B", 7e9, 2e12, 286, 8.40e22, 0.005),
    ("Llama 3.1 · 约 8B", 8e9, 15e12, 1875, 7.20e23, 0.005),
    ("Qwen2.5 · 约 7B", 7e9, 18e12, 2571, 7.56e23, 0.005),
    ("Qwen3 · 约 8B", 8e9, 36e12, 4500, 1.728e24, 0.005),
)

TOKENS_PER_PARAM = Calculator(
    name="scaling.tokens_per_param",
    title="从 Llama 到 Qwen:数据越给越多",
    ref=BookRef("3.6.2", "练习 3-9"),
    params=(
        Param("parameters", "params", 8e9, "N (Qwen3 · 约 8B)", 1, 1e15),
        Param("tokens", "tokens", 36e12, "D training tokens (Qwen3: 约 36T)", 1, 1e18),
    ),
    outputs=(
        Output("tokens_per_parameter", "", "", "D / N"),
        Output("train_flops", "FLOPs", "", "6ND"),
        Output("chinchilla_tokens", "tokens", "compute-optimal by Chinchilla's ~20 tokens per parameter", "20 N"),
        Output("times_chinchilla", "×", "", "D / 20N"),
    ),
    compute=tokens_per_parameter,
    book=tuple(
        row for label, n, d, ratio, flops, tol in _TABLE for row in (
            BookValue("tokens_per_parameter", ratio, f"{label}: D/N {ratio:,}", rel_tol=tol, params={"parameters": n, "tokens": d}),
            BookValue("train_flops", flops, f"{label}: 6ND {flops:.4g}", rel_tol=tol, params={"parameters": n, "tokens": d}),
        )
    ) + (BookValue("chinchilla_tokens", 160e9, "8B 模型约 160B token 就是计算最优"),),
)

MOE_EXPERTS = Calculator(
    name="scaling.moe_experts",
    title="MoE 主干专家的训练运算量 · DeepSeek V4",
    ref=BookRef("3.6.2", "V4-Flash / V4-Pro"),
    params=(
        Param("layers", "layers", 43, "n_L (V4-Flash: 43)", 1, 1000, kind="int"),
        Param("hidden_size", "", 4096, "h (V4-Flash: 4096)", 1, 1e6, kind="int"),
        Param("moe_intermediate_size", "", 2048, "f (V4-Flash: 2048)", 1, 1e6, kind="int"),
        Param("routed_experts_per_token", "experts", 6, "routed experts chosen per token (6)", 0, 1024, kind="int"),
        Param("shared_experts", "experts", 1, "shared experts every token uses (1)", 0, 64, kind="int"),
        Param("tokens", "tokens", 32e12, "pre-training tokens (V4-Flash: 32T)", 0, 1e18),
    ),
    outputs=(
        Output("expert_flops_per_token", "FLOPs", "", "18 · n_L · h · f · (routed + shared)"),
        Output("expert_train_flops", "FLOPs", "", "per token × D"),
    ),
    compute=moe_expert_flops,
    book=(
        BookValue("expert_flops_per_token", 45.4495e9, "V4-Flash ≈ 45.4495 GFLOPs/token", rel_tol=2e-6),
        BookValue("expert_train_flops", 1.45438e24, "32T 累计约 1.45438×10²⁴", rel_tol=5e-6),
        BookValue("expert_flops_per_token", 169.2465e9, "V4-Pro ≈ 169.2465 GFLOPs/token", rel_tol=2e-6,
                  params={"layers": 61, "hidden_size": 7168, "moe_intermediate_size": 3072, "tokens": 33e12}),
        BookValue("expert_train_flops", 5.58513e24, "V4-Pro 5.58513×10²⁴", rel_tol=5e-6,
                  params={"layers": 61, "hidden_size": 7168, "moe_intermediate_size": 3072, "tokens": 33e12}),
    ),
)

A100_EQUIV = Calculator(
    name="scaling.a100_equivalent",
    title="图 3-30 · GPU 小时折算成 A100 等效",
    ref=BookRef("3.6.2", "图 3-30"),
    params=(
        Param("gpu_hours", "GPU·h", 17_920, "GPU hours on the newer card (Qwen3 8B RL route: 17,920)", 0, 1e12),
        Param("peak_flops", "FLOP/s", _H100.bf16_dense_flops, "its dense BF16 peak (H100/H800: 989.4 T)", 1e9, 1e18),
        Param("a100_peak_flops", "FLOP/s", _A100.bf16_dense_flops, "A100 dense BF16 peak (312 T)", 1e9, 1e18),
    ),
    outputs=(
        Output("peak_ratio", "×", "assumes similar utilisation on both", "peak / A100 peak"),
        Output("a100_gpu_hours", "GPU·h", "", "GPU·h × ratio"),
    ),
    compute=a100_equivalent,
    book=(BookValue("peak_ratio", 3.17, "989.4/312 ≈ 3.17", rel_tol=0.001),),
)

CALCULATORS = (TRAIN_VS_SERVE, LIFETIME, CALENDAR, TOKENS_PER_PARAM, MOE_EXPERTS, A100_EQUIV)
