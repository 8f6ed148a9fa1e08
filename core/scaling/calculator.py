"""§3.6: from load to training and serving budgets. The scaling-law fit of 例题 3-5 with
held-out checks, compute-optimal allocation (练习 3-8), training as the intercept and each
call as the slope (图 3-28, 练习 3-10), tokens per parameter (Llama/Qwen table), MoE expert
FLOPs (DeepSeek V4) and A100-equivalent GPU hours (图 3-30)."""
from __future__ import annotations

import csv
import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from core.catalog import data_path, hardware
from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError

N_SCALE = 1e9  # the fit's N is in billions of parameters
D_SCALE = 1e10  # and D in tens of billions of tokens
HOUR = 3600.0
DAY = 86400.0
# The fit solves 7 small least-squares problems per (alpha, beta) grid point, all points at
# once: this many values per axis keeps one fit well under a second and its arrays small.
MAX_GRID_POINTS = 101
# Durations divide FLOPs by peak · MFU; a floor keeps every allowed model and call finite.
MIN_MFU = 1e-6
# Break-even counts divide extra training by a saving per task; the floor keeps them finite.
MIN_SAVING_PER_TASK_GPU_S = 1e-9


@dataclass(frozen=True)
class Observation:
    point: str
    split: str  # 'fit' or 'holdout'
    parameters: float
    tokens: float
    loss: float


@lru_cache(maxsize=1)
def c4_observations() -> tuple[Observation, ...]:
    """The eight real C4 runs of datablations behind 例题 3-5 (six fit, two held out)."""
    text = data_path("c4_datablations_eight_points.csv").read_text(encoding="utf-8")
    return tuple(Observation(r["point"], r["split"], float(r["parameters"]), float(r["tokens"]),
                             float(r["loss_nats_per_token"])) for r in csv.DictReader(text.splitlines()))


@dataclass(frozen=True)
class ScalingLaw:
    """L(N, D) = E + A (N/1e9)^-alpha + B (D/1e10)^-beta, in nats per token."""

    E: float
    A: float
    B: float
    alpha: float
    beta: float

    def loss(self, parameters, tokens):
        return self.E + self.A * (np.asarray(parameters) / N_SCALE) ** -self.alpha \
            + self.B * (np.asarray(tokens) / D_SCALE) ** -self.beta

    def tokens_for_loss(self, parameters: float, target_loss: float) -> float | None:
        """D that reaches target_loss at N parameters; None when N alone cannot get there."""
        room = target_loss - self.E - self.A * (parameters / N_SCALE) ** -self.alpha
        if room <= 0 or self.B <= 0:
            return None
        return D_SCALE * (room / self.B) ** (-1 / self.beta)


def _nonnegative_least_squares(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray | float]:
    """Least squares with every coefficient >= 0, by trying each active set (3 columns: 7 sets).

    X is one problem (m, k), giving coefficients (k,) and the SSE, or a stack (G, m, k)
    solved at once, giving (G, k) and (G,).
    """
    if X.ndim == 2:
        coef, sse = _nonnegative_least_squares(X[None], y)
        return coef[0], float(np.asarray(sse)[0])
    stack, columns_total = X.shape[0], X.shape[2]
    best_coef = np.zeros((stack, columns_total))
    best_sse = np.full(stack, float(np.sum(y**2)))
    for mask in itertools.product((False, True), repeat=columns_total):
        columns = [i for i, on in enumerate(mask) if on]
        if not columns:
            continue
        part = np.linalg.pinv(X[:, :, columns]) @ y  # (G, len(columns)): minimum-norm least squares
        coef = np.zeros((stack, columns_total))
        coef[:, columns] = part
        sse = np.sum((np.einsum("gmk,gk->gm", X, coef) - y) ** 2, axis=1)
        better = ~np.any(part < 0, axis=1) & (sse < best_sse)
        best_coef[better], best_sse[better] = coef[better], sse[better]
    return best_coef, best_sse


def fit_scaling_law(grid_min: float = 0.10, grid_max: float = 0.60, grid_step: float = 0.05) -> tuple[ScalingLaw, float]:
    """The book's procedure: alpha, beta on a grid; E, A, B >= 0 by least squares at each
    grid point; keep the lowest SSE on the fit points (the first, alpha-major, on a tie)."""
    fit = [o for o in c4_observations() if o.split == "fit"]
    n = np.array([o.parameters for o in fit]) / N_SCALE
    d = np.array([o.tokens for o in fit]) / D_SCALE
    y = np.array([o.loss for o in fit])
    grid = np.round(np.arange(grid_min, grid_max + grid_step / 2, grid_step), 10)
    alpha, beta = (g.ravel() for g in np.meshgrid(grid, grid, indexing="ij"))
    X = np.stack([np.ones((alpha.size, n.size)), n[None, :] ** -alpha[:, None], d[None, :] ** -beta[:, None]], axis=2)
    coef, sse = _nonnegative_least_squares(X, y)
    sse = np.asarray(sse)
    best = int(np.argmin(sse))
    E, A, B = (float(c) for c in coef[best])
    return ScalingLaw(E, A, B, float(alpha[best]), float(beta[best])), float(sse[best])


@lru_cache(maxsize=8)
def book_law() -> ScalingLaw:
    return fit_scaling_law()[0]


def scaling_fit(grid_min: float, grid_max: float, grid_step: float) -> dict:
    law, sse = fit_scaling_law(grid_min, grid_max, grid_step)
    held = [o for o in c4_observations() if o.split == "holdout"]
    predicted = [float(law.loss(o.parameters, o.tokens)) for o in held]
    residuals = [p - o.loss for p, o in zip(predicted, held)]
    return {
        "E": law.E, "A": law.A, "B": law.B, "alpha": law.alpha, "beta": law.beta, "fit_sse": sse,
        "h1_predicted": predicted[0], "h2_predicted": predicted[1],
        "h1_residual": residuals[0], "h2_residual": residuals[1],
        "holdout_rmse": math.sqrt(sum(r * r for r in residuals) / len(residuals)),
    }


def grid_points(grid_min: float, grid_max: float, grid_step: float) -> int:
    """Values of alpha (and of beta) the fit tries: grid_min, grid_min + step, ... <= grid_max."""
    return len(np.arange(grid_min, grid_max + grid_step / 2, grid_step))


def _check_grid(values: dict) -> None:
    low, high, step = values["grid_min"], values["grid_max"], values["grid_step"]
    if high < low:
        raise ParamError("grid_max", f"got {high:g}; valid: >= grid_min ({low:g})")
    if grid_points(low, high, step) > MAX_GRID_POINTS:
        finest = (high - low) / (MAX_GRID_POINTS - 1)
        raise ParamError("grid_step", f"got {step:g}; valid: >= {finest:.4g} for the grid {low:g} .. {high:g} "
                         f"(at most {MAX_GRID_POINTS} values of alpha and of beta)")


def optimal_allocation(alpha: float, beta: float, budget_multiplier: float) -> dict:
    """N_opt ∝ C^(β/(α+β)), D_opt ∝ C^(α/(α+β)) under C = 6ND."""
    return {
        "n_exponent": beta / (alpha + beta),
        "d_exponent": alpha / (alpha + beta),
        "n_multiplier": budget_multiplier ** (beta / (alpha + beta)),
        "d_multiplier": budget_multiplier ** (alpha / (alpha + beta)),
    }


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

FIT = Calculator(
    name="scaling.fit",
    title="例题 3-5 · Scaling Law 拟合与留出检验",
    ref=BookRef("3.6", "例题 3-5 · 图 3-28"),
    params=(
        Param("grid_min", "", 0.10, "smallest alpha and beta tried (book: 0.10)", 0.01, 2.0),
        Param("grid_max", "", 0.60, "largest alpha and beta tried (book: 0.60)", 0.01, 2.0),
        Param("grid_step", "", 0.05, "grid step (book: 0.05)", 0.005, 1.0),
    ),
    outputs=(
        Output("E", "nats", "irreducible loss", "least squares, >= 0"),
        Output("A", "nats", "", "least squares, >= 0"),
        Output("B", "nats", "", "least squares, >= 0"),
        Output("alpha", "", "", "grid point with the lowest SSE"),
        Output("beta", "", "", "grid point with the lowest SSE"),
        Output("fit_sse", "nats²", "on the six fit points", "Σ (L̂ − L)²"),
        Output("h1_predicted", "nats", "2.81B params, 55B tokens (held out)", "L̂(N, D)"),
        Output("h2_predicted", "nats", "8.67B params, 178B tokens (held out)", "L̂(N, D)"),
        Output("h1_residual", "nats", "", "predicted − observed"),
        Output("h2_residual", "nats", "", "predicted − observed"),
        Output("holdout_rmse", "nats", "only held-out points tell whether it extrapolates", "√(mean residual²)"),
    ),
    compute=scaling_fit,
    check=_check_grid,
    book=(
        BookValue("h1_residual", 0.009, "H1 预测 − 观测 +0.009", abs_tol=0.0005, rel_tol=0),
        BookValue("h2_residual", 0.026, "H2 预测 − 观测 +0.026", abs_tol=0.0005, rel_tol=0),
        BookValue("holdout_rmse", 0.0193, "留出 RMSE ≈ 0.0193", abs_tol=0.00005, rel_tol=0),
        BookValue("h1_predicted", 2.583, "预测 2.583", abs_tol=0.0005, rel_tol=0),
        BookValue("h2_predicted", 2.363, "预测 2.363", abs_tol=0.0005, rel_tol=0),
    ),
)

OPTIMAL = Calculator(
    name="scaling.optimal",
    title="练习 3-8 · 预算翻倍,新增计算分给谁",
    ref=BookRef("3.6", "练习 3-8"),
    params=(
        Param("alpha", "", 0.5, "α (练习 3-8 takes α = β)", 0.01, 5),
        Param("beta", "", 0.5, "β", 0.01, 5),
        Param("budget_multiplier", "×", 4.0, "compute budget C grows by (练习 3-8: 4, then 9)", 0, 1e12, min_exclusive=True),
    ),
    outputs=(
        Output("n_exponent", "", "", "β / (α + β)"),
        Output("d_exponent", "", "", "α / (α + β)"),
        Output("n_multiplier", "×", "", "k^(β/(α+β))"),
        Output("d_multiplier", "×", "", "k^(α/(α+β))"),
    ),
    compute=optimal_allocation,
    book=(
        BookValue("n_multiplier", 2.0, "预算 4 倍 → N 2 倍", derived=True),
        BookValue("d_multiplier", 2.0, "预算 4 倍 → D 2 倍", derived=True),
        BookValue("n_multiplier", 3.0, "预算 9 倍 → N 3 倍", params={"budget_multiplier": 9}, derived=True),
    ),
)

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

CALCULATORS = (FIT, OPTIMAL, TRAIN_VS_SERVE, LIFETIME, CALENDAR, TOKENS_PER_PARAM, MOE_EXPERTS, A100_EQUIV)
