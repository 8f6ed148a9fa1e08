"""The RL figures of the Training panel, computed once from its cards' inputs and results:
the pipeline of 图 3-24 (per-frame status for the ▶ player), the cycle's FLOPs against
answers generated (例题 3-4 / 练习 3-7), group-relative advantages and the loss's average.
FLOPs are drawn in TFLOPs."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.training.bars import bars as make_bars
from core.training.bars import ticks
from core.training.rl.cycle import cycle
from core.training.rl.pipeline import ROLE_LABELS, ROLES, pipeline_schedule
from core.units import TFLOP, format_flops

MAX_PIPELINE_LABELS = 24  # batch labels drawn per role; more batches go unlabelled
MAX_REWARD_BUTTONS = 8
MAX_CURVE_POINTS = 512  # points of a straight or smooth curve


# ======================================================================================
# 图 3-24: the RL pipeline, synchronous and asynchronous

PIPELINE_MODES = ("synchronous", "asynchronous")


@dataclass(frozen=True)
class PipelineFigure:
    schedules: dict  # mode -> core.training.rl.pipeline.PipelineSchedule
    bars: dict  # mode -> role -> Bars
    labels: dict  # mode -> list of (text, x, y)
    end_s: float
    role_ticks: list  # (y, label)

    def status_at(self, mode: str, t: float) -> str:
        s = self.schedules[mode]
        done = int(np.count_nonzero(s.end_s["sync"] <= t))
        busy = [ROLE_LABELS[r].split()[-1] for r in ROLES
                if np.any((s.start_s[r] <= t) & (t < s.end_s[r]))]
        return f"{done}/{s.batches} batches done · busy: {', '.join(busy) or 'idle'}"


def role_y(role: str) -> int:
    return len(ROLES) - 1 - ROLES.index(role)


def pipeline_figure(inputs: Mapping[str, Any], cancel=None) -> PipelineFigure:
    v = inputs
    args = (v["batches"], v["rollout_s"], v["reward_s"], v["reference_s"], v["update_s"], v["sync_s"])
    schedules = {"synchronous": pipeline_schedule("synchronous", *args),
                 "asynchronous": pipeline_schedule("asynchronous", *args, max_staleness=v["max_staleness"])}
    if cancel is not None:
        cancel.check()
    end = max(s.total_s for s in schedules.values())
    bars: dict[str, Any] = {}
    labels: dict[str, Any] = {}
    for mode, s in schedules.items():
        bars[mode], labels[mode] = {}, []
        for role in ROLES:
            y = role_y(role)
            starts, ends = s.start_s[role], s.end_s[role]
            bars[mode][role] = make_bars(starts, ends - starts, y - 0.35, 0.7)
            for k in range(min(s.batches, MAX_PIPELINE_LABELS)):
                if ends[k] - starts[k] > end / 80:  # a label wider than its bar is left out
                    text = f"b{k + 1}·v{s.weight_version[k]}" if role == "rollout" else f"b{k + 1}"
                    labels[mode].append((text, float((starts[k] + ends[k]) / 2), float(y)))
    ticks = [(role_y(r), ROLE_LABELS[r]) for r in ROLES]
    return PipelineFigure(schedules, bars, labels, end, ticks)


# ======================================================================================
# 例题 3-4 / 练习 3-7: the cycle's FLOPs against answers generated


@dataclass(frozen=True)
class CycleFigure:
    n: np.ndarray
    update: np.ndarray  # TFLOPs, stacked tops
    ref_top: np.ndarray
    total: np.ndarray
    marker: tuple  # (n, TFLOPs)
    text: str
    exercise_x: list
    exercise_y: list
    x_max: float


def cycle_figure(inputs: Mapping[str, Any], result: Mapping[str, Any], marginal_inputs: Mapping[str, Any],
                 marginal_result: Mapping[str, Any]) -> CycleFigure:
    v, r, mv, m = inputs, result, marginal_inputs, marginal_result
    n_max = max(128, r["n_generate"] * 1.25, mv["n_high"] * 1.1)
    # F_cycle is a straight line in n: a few hundred points draw it whatever n reaches.
    base = cycle(v["model"], v["prompt_tokens"], v["output_tokens"], v["n_keep"], 1.0, v["n_keep"])
    n = np.unique(np.linspace(v["n_keep"], max(int(n_max), v["n_keep"]), MAX_CURVE_POINTS).round())
    update = np.full(n.size, base["update_flops"] / TFLOP)
    ref_top = update + n * base["ref_flops_per_answer"] / TFLOP
    total = ref_top + n * base["gen_flops_per_answer"] / TFLOP
    text = (f"  a = {v['keep_ratio']:g} → n = {r['n_generate']}: {format_flops(r['cycle_flops'])}"
            f" ({r['ratio_vs_keep_all']:.2f}× keeping all)")
    return CycleFigure(n, update, ref_top, total, (r["n_generate"], r["cycle_flops"] / TFLOP), text,
                       [mv["n_low"], mv["n_predict"], mv["n_high"], 0],
                       [m["cycle_flops_low"] / TFLOP, m["predicted_cycle_flops"] / TFLOP,
                        m["cycle_flops_high"] / TFLOP, m["fixed_update_flops"] / TFLOP],
                       float(n[-1]))


# ======================================================================================
# Group-relative advantage and the loss's average


@dataclass(frozen=True)
class AdvantageFigure:
    x: np.ndarray
    rewards: np.ndarray
    advantages: np.ndarray
    positive: np.ndarray  # bool per answer: a positive advantage
    group_mean: float
    ticks: list
    y_range: tuple
    x_range: tuple
    buttons: list  # text of each reward button (first MAX_REWARD_BUTTONS answers)
    zero_signal: bool
    banner: str


def advantage_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> AdvantageFigure:
    rewards = np.asarray(inputs["rewards"], dtype=float)
    adv = np.asarray(result["advantages"], dtype=float)
    x = np.arange(rewards.size, dtype=float)
    low = min(0.0, float(adv.min()), float(rewards.min()))
    high = max(1.0, float(adv.max()), float(rewards.max()))
    zero = bool(result["zero_signal"])
    banner = ("优势全为零,策略梯度为零" if zero else
              f"{result['samples_with_signal']} of {rewards.size} answers carry a signal; group mean {result['group_mean']:g}.")
    return AdvantageFigure(
        x, rewards, adv, adv > 0, float(result["group_mean"]), ticks(rewards.size, lambda i: f"#{i + 1}"),
        (low - 0.1, high + 0.15), (-0.7, rewards.size - 0.3),
        [f"{i + 1}:{'✓' if r >= 0.5 else '✗'}" for i, r in enumerate(rewards[:MAX_REWARD_BUTTONS])], zero, banner)


def flipped_rewards(rewards, i: int) -> tuple:
    """The group with answer i's reward flipped between right (1) and wrong (0)."""
    out = [float(r) for r in rewards]
    if 0 <= i < len(out):
        out[i] = 0.0 if out[i] >= 0.5 else 1.0
    return tuple(out)


@dataclass(frozen=True)
class LossFigure:
    x: np.ndarray
    weight_token_mean: np.ndarray
    weight_mean_of_means: np.ndarray
    ticks: list
    x_range: tuple
    y_range: tuple
    caption: str


def loss_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> LossFigure:
    r = result
    w1 = np.asarray(r["token_weight_token_mean"], dtype=float)
    w2 = np.asarray(r["token_weight_mean_of_means"], dtype=float)
    counts = inputs["token_counts"]
    caption = (f"token mean = {r['token_mean']:.4g},mean of means = {r['mean_of_means']:.4g}。"
               f"先各自求均值再平均,有效 token 少的 micro-batch 里每个 token 权重大 {r['max_weight_ratio']:.3g} 倍;"
               "累计各 micro-batch 时分母应是整个 batch 的有效 token 总数。")
    return LossFigure(np.arange(w1.size, dtype=float), w1, w2,
                      ticks(len(counts), lambda i: f"μb{i + 1}: {int(counts[i]):,} tok"),
                      (-0.7, w1.size - 0.3), (0, max(w1.max(), w2.max()) * 1.15), caption)

