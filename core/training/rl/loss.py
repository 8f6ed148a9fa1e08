"""§3.5 RL: group-relative advantages (rl.advantage) and how a loss is averaged over
micro-batches (rl.loss_mean: the token mean vs the mean of means)."""
from __future__ import annotations

import numpy as np

from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError


def advantage(rewards: tuple, scale_by_std: bool) -> dict:
    r = np.asarray(rewards, dtype=float)
    centred = r - r.mean()
    std = float(r.std())
    # All equal: no spread, no signal; dividing by a zero std would not create one.
    adv = centred / std if (scale_by_std and std > 0) else centred
    adv = np.where(np.abs(adv) < 1e-12, 0.0, adv)
    zero = bool(np.all(adv == 0.0))
    return {
        "advantages": adv.tolist(),
        "group_mean": float(r.mean()),
        "zero_signal": 1 if zero else 0,
        "max_abs_advantage": float(np.abs(adv).max()),
        "samples_with_signal": int(np.count_nonzero(adv)),
    }


ADVANTAGE = Calculator(
    name="rl.advantage",
    title="相同奖励,学习信号归零 · group-relative advantage",
    ref=BookRef("3.5", "组内相对优势"),
    params=(
        Param("rewards", "", (1.0, 0.0, 1.0, 1.0), "reward of each answer in the group (1 right, 0 wrong)", -1e9, 1e9,
              kind="floats", min_items=1, max_items=4096, illustrative=True),
        Param("scale_by_std", "", False, "divide by the group's standard deviation (GRPO); the book uses the mean only", kind="bool"),
    ),
    outputs=(
        Output("advantages", "", "each answer's advantage", "r_i − mean(r)", kind="series"),
        Output("group_mean", "", "mean reward of the group"),
        Output("zero_signal", "bool", "yes when every advantage is zero: the group teaches nothing"),
        Output("max_abs_advantage", "", "largest |advantage|"),
        Output("samples_with_signal", "samples", "answers with a non-zero advantage"),
    ),
    compute=advantage,
    book=(
        BookValue("zero_signal", 1, "四条全对时优势全为零", params={"rewards": "1,1,1,1"}),
        BookValue("zero_signal", 1, "四条全错时优势全为零", params={"rewards": "0,0,0,0"}),
        BookValue("max_abs_advantage", 0, "策略梯度为零", params={"rewards": "1,1,1,1"}),
        BookValue("group_mean", 0.75, "三对一错:组内平均 0.75", derived=True),
    ),
)

# rl.loss_mean: token mean vs mean of means


def loss_mean(token_counts: tuple, mean_losses: tuple) -> dict:
    n = np.asarray(token_counts, dtype=float)
    loss = np.asarray(mean_losses, dtype=float)
    token_mean = float((n * loss).sum() / n.sum())
    mean_of_means = float(loss.mean())
    # Weight each token gets in the final number under both averages.
    w_token = np.full(n.size, 1.0 / n.sum())
    w_mom = 1.0 / (n.size * n)
    return {
        "token_mean": token_mean,
        "mean_of_means": mean_of_means,
        "difference": mean_of_means - token_mean,
        "token_weight_token_mean": w_token.tolist(),
        "token_weight_mean_of_means": w_mom.tolist(),
        "max_weight_ratio": float(w_mom.max() / w_mom.min()),
    }


def _check_loss(values: dict) -> None:
    counts, losses = values["token_counts"], values["mean_losses"]
    if len(counts) != len(losses):
        raise ParamError("mean_losses", f"got {len(losses)} values for {len(counts)} micro-batches; "
                         "valid: one mean loss per token count")
    if any(not float(c).is_integer() for c in counts):
        raise ParamError("token_counts", "valid: whole numbers of tokens >= 1")


LOSS_MEAN = Calculator(
    name="rl.loss_mean",
    title="损失的平均方式 · token mean vs mean of means",
    ref=BookRef("3.5", "损失归一化"),
    params=(
        Param("token_counts", "tokens", (900.0, 100.0), "valid (unmasked) tokens in each micro-batch", 1, 1e12,
              kind="floats", min_items=1, max_items=4096, illustrative=True),
        Param("mean_losses", "", (1.0, 3.0), "mean per-token loss of each micro-batch", -1e9, 1e9,
              kind="floats", min_items=1, max_items=4096, illustrative=True),
    ),
    outputs=(
        Output("token_mean", "", "average over every valid token of the batch", "Σ n_i ℓ_i / Σ n_i"),
        Output("mean_of_means", "", "average of micro-batch averages", "(1/k) Σ ℓ_i"),
        Output("difference", "", "mean of means − token mean"),
        Output("token_weight_token_mean", "", "weight of one token of each micro-batch (token mean)", "1 / Σ n", kind="series"),
        Output("token_weight_mean_of_means", "", "weight of one token of each micro-batch (mean of means)", "1 / (k · n_i)", kind="series"),
        Output("max_weight_ratio", "x", "how much more a token of the smallest micro-batch counts"),
    ),
    compute=loss_mean,
    check=_check_loss,
    book=(
        BookValue("token_mean", 1.2, "分母用整个 batch 的有效 token:(900·1 + 100·3)/1000", derived=True),
        BookValue("mean_of_means", 2.0, "先各自求均值再平均:(1 + 3)/2", derived=True),
        BookValue("max_weight_ratio", 9.0, "有效 token 少的 micro-batch 里每个 token 权重更大", derived=True),
    ),
)

CALCULATORS = (ADVANTAGE, LOSS_MEAN)
