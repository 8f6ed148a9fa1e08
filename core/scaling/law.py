"""§3.6 例题 3-5 and 练习 3-8: the scaling-law fit on the eight C4 runs of datablations, with
held-out checks, and compute-optimal allocation under C = 6ND."""
from __future__ import annotations

import csv
import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from core.catalog import data_path
from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError

N_SCALE = 1e9  # the fit's N is in billions of parameters
D_SCALE = 1e10  # and D in tens of billions of tokens
# The fit solves 7 small least-squares problems per (alpha, beta) grid point, all points at
# once: this many values per axis keeps one fit well under a second and its arrays small.
MAX_GRID_POINTS = 101


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

CALCULATORS = (FIT, OPTIMAL)
