"""§3.5 RL: the cost of one cycle (例题 3-4), extra generation with a fixed update
(练习 3-7), the producer/consumer pipeline of 图 3-24 (synchronous vs asynchronous),
group-relative advantages and how a loss is averaged over micro-batches.

Counting conventions (shared/data/README.md): generation = prefill of P rows with logits
on the last row + G-1 decode steps; the reference forward = teacher forcing over P+G-1
rows with logits on every row; the update = kept samples x 3 x that forward.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError
from core.training.model import TRAINING_PASSES, dense_model_keys, shape

MAX_TOKENS = 10_000_000

# --------------------------------------------------------------------------------------
# rl.cycle: 例题 3-4


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

# --------------------------------------------------------------------------------------
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

# --------------------------------------------------------------------------------------
# rl.pipeline: 图 3-24, producers and consumers

ROLES = ("rollout", "reward", "reference", "update", "sync")
ROLE_LABELS = {"rollout": "生成 rollout", "reward": "反馈 reward", "reference": "参考模型 reference",
               "update": "更新 update", "sync": "权重同步 sync"}


@dataclass(frozen=True)
class PipelineSchedule:
    """Start and end of each role's work on each batch; versions of the weights used."""

    mode: str
    start_s: dict  # role -> (batches,)
    end_s: dict
    weight_version: np.ndarray  # version of the policy each batch was generated with
    staleness: np.ndarray  # updates the policy had moved on by the time the batch is used

    @property
    def total_s(self) -> float:
        return float(self.end_s["sync"][-1])

    @property
    def batches(self) -> int:
        return int(self.weight_version.size)

    def busy_fraction(self, role: str) -> float:
        return float((self.end_s[role] - self.start_s[role]).sum() / self.total_s)


def pipeline_schedule(mode: str, batches: int, rollout_s: float, reward_s: float, reference_s: float,
                      update_s: float, sync_s: float, max_staleness: int = 1) -> PipelineSchedule:
    """Each role works on one batch at a time, in batch order.

    synchronous: batch k is generated only after the weights of update k-1 are synced.
    asynchronous: generation runs ahead; batch k may use weights up to `max_staleness`
    updates old (it waits only for sync k-1-max_staleness). Reward and reference both
    consume the rollout and run side by side; the update needs both.
    """
    if mode not in ("synchronous", "asynchronous"):
        raise ParamError("mode", f"got {mode!r}; valid: synchronous, asynchronous")
    dur = {"rollout": rollout_s, "reward": reward_s, "reference": reference_s, "update": update_s, "sync": sync_s}
    start = {r: np.zeros(batches) for r in ROLES}
    end = {r: np.zeros(batches) for r in ROLES}
    version = np.zeros(batches, dtype=int)
    lag = 0 if mode == "synchronous" else max_staleness
    for k in range(batches):
        wait_sync = k - 1 - lag  # the sync this rollout must wait for
        ready = end["sync"][wait_sync] if wait_sync >= 0 else 0.0
        prev_roll = end["rollout"][k - 1] if k else 0.0
        version[k] = k
        if mode == "asynchronous":
            # Use the newest synced weights at the moment generation starts.
            # Syncs end in batch order, so those done by t0 are the first ones.
            t0 = max(prev_roll, ready)
            version[k] = int(np.searchsorted(end["sync"][:k], t0, side="right"))
        start["rollout"][k] = max(prev_roll, ready)
        end["rollout"][k] = start["rollout"][k] + dur["rollout"]
        for role in ("reward", "reference"):
            start[role][k] = max(end["rollout"][k], end[role][k - 1] if k else 0.0)
            end[role][k] = start[role][k] + dur[role]
        start["update"][k] = max(end["reward"][k], end["reference"][k], end["update"][k - 1] if k else 0.0)
        end["update"][k] = start["update"][k] + dur["update"]
        start["sync"][k] = max(end["update"][k], end["sync"][k - 1] if k else 0.0)
        end["sync"][k] = start["sync"][k] + dur["sync"]
    staleness = np.arange(batches) - version  # the update k applies to policy k; data came from `version`
    return PipelineSchedule(mode, start, end, version, staleness)


def pipeline(batches: int, rollout_s: float, reward_s: float, reference_s: float, update_s: float,
             sync_s: float, max_staleness: int) -> dict:
    sync = pipeline_schedule("synchronous", batches, rollout_s, reward_s, reference_s, update_s, sync_s)
    asyn = pipeline_schedule("asynchronous", batches, rollout_s, reward_s, reference_s, update_s, sync_s, max_staleness)
    return {
        "sync_total_s": sync.total_s,
        "async_total_s": asyn.total_s,
        "speedup": sync.total_s / asyn.total_s,
        "sync_per_batch_s": rollout_s + max(reward_s, reference_s) + update_s + sync_s,
        # Steady state: the slowest role sets the pace, unless staleness limits the overlap.
        "async_per_batch_s": float(asyn.end_s["sync"][-1] - asyn.end_s["sync"][0]) / max(batches - 1, 1),
        "max_staleness_seen": int(asyn.staleness.max()),
        "rollout_busy_sync": sync.busy_fraction("rollout"),
        "rollout_busy_async": asyn.busy_fraction("rollout"),
    }


PIPELINE = Calculator(
    name="rl.pipeline",
    title="先找数据的生产者和消费者 · RL pipeline, synchronous vs asynchronous",
    ref=BookRef("3.5", "图 3-24"),
    params=(
        Param("batches", "batches", 6, "batches played through the pipeline", 1, 1000, kind="int"),
        Param("rollout_s", "s", 6.0, "generation of one batch", 0, 1e6, min_exclusive=True, illustrative=True),
        Param("reward_s", "s", 1.0, "reward: rules, tests or a reward model", 0, 1e6, illustrative=True),
        Param("reference_s", "s", 1.5, "reference model forward", 0, 1e6, illustrative=True),
        Param("update_s", "s", 4.0, "forward + backward + optimizer", 0, 1e6, illustrative=True),
        Param("sync_s", "s", 0.5, "send new weights to the generators", 0, 1e6, illustrative=True),
        Param("max_staleness", "updates", 1, "asynchronous: how many updates old the generating policy may be", 1, 100, kind="int"),
    ),
    outputs=(
        Output("sync_total_s", "s", "all batches, each waiting for the new weights"),
        Output("async_total_s", "s", "all batches, generation overlapping the update"),
        Output("speedup", "x", "synchronous over asynchronous time"),
        Output("sync_per_batch_s", "s", "one batch in the synchronous chain", "rollout + max(reward, reference) + update + sync"),
        Output("async_per_batch_s", "s", "steady-state time per batch, asynchronous"),
        Output("max_staleness_seen", "updates", "oldest policy a batch was trained with"),
        Output("rollout_busy_sync", "ratio", "share of time the generators work, synchronous"),
        Output("rollout_busy_async", "ratio", "share of time the generators work, asynchronous"),
    ),
    compute=pipeline,
    note="时长为示意",
    book=(
        BookValue("sync_per_batch_s", 12.0, "同步:等新权重就绪再生成 (6 + 1.5 + 4 + 0.5)", derived=True),
    ),
)

# --------------------------------------------------------------------------------------
# rl.advantage: group-relative advantage


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

# --------------------------------------------------------------------------------------
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

CALCULATORS = (CYCLE, MARGINAL, PIPELINE, ADVANTAGE, LOSS_MEAN)


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
