"""Every figure of the Training panel, computed once from its cards' inputs and results.

Each function returns everything its view draws: rectangles, curves, ranges, ticks and the
words beside them. The panel only draws these (setData on items made once); `lab snapshot`
draws the same. FLOPs are drawn in TFLOPs, bytes in GB (the book's units for training).

The ▶ figures (the step of 图 3-20 and the RL pipeline of 图 3-24) hold per-frame arrays
prepared here, so a frame is a lookup (`frame_at(t)`, `status_at(mode, t)`).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core import catalog
from core.training import calculator as training
from core.training import rl
from core.training import step as train_step
from core.training.step import BACKWARD, FORWARD, OPTIMIZER, STATE_KINDS, StepTimeline
from core.units import GB, TFLOP, format_bytes, format_flops

MAX_STEP_BARS = 20_000  # more blocks than this are drawn one per micro-batch and pass
MAX_PIPELINE_LABELS = 24  # batch labels drawn per role; more batches go unlabelled
MAX_REWARD_BUTTONS = 8
MAX_CURVE_POINTS = 512  # points of a straight or smooth curve
MAX_TICKS = 24  # labelled bars on an axis; more bars keep every n-th label
MAX_STEP_POINTS = 40_000  # memory curve points; longer steps are drawn by their peak per bin


@dataclass(frozen=True)
class Bars:
    """Rectangles drawn with one brush: left, bottom, width, height (data units)."""

    x0: np.ndarray
    y0: np.ndarray
    width: np.ndarray
    height: np.ndarray

    @staticmethod
    def empty() -> Bars:
        z = np.zeros(0)
        return Bars(z, z, z, z)

    @property
    def size(self) -> int:
        return int(self.x0.size)


def _bars(x0, width, y0, height) -> Bars:
    x0 = np.asarray(x0, dtype=float)
    n = x0.size
    return Bars(x0, np.broadcast_to(np.asarray(y0, dtype=float), (n,)).copy(),
                np.broadcast_to(np.asarray(width, dtype=float), (n,)).copy(),
                np.broadcast_to(np.asarray(height, dtype=float), (n,)).copy())


# ======================================================================================
# 图 3-20: one training step, played back


@dataclass(frozen=True)
class StepFrame:
    """What the step view shows at time t."""

    t: float
    alive: Bars  # activations alive at t, drawn from their allocation up to t
    alive_count: int
    who: str  # the micro-batch whose activations are alive
    state_gb: float
    activation_gb: float
    total_gb: float
    capacity_gb: float | None
    over: bool  # total above the card's capacity


@dataclass(frozen=True)
class StepFigure:
    illustrative: bool
    timeline: StepTimeline
    forward: tuple[Bars, Bars]  # even and odd micro-batches (drawn in two strengths)
    backward: tuple[Bars, Bars]
    optimizer: Bars
    lifetimes: Bars
    merged: bool  # too many blocks: one bar per micro-batch and pass
    memory: dict  # kind -> (x_s, top_gb): stacked, each kind drawn from 0 to its top
    capacity_gb: float | None
    capacity_text: str
    memory_top_gb: float
    layer_ticks: list
    verdict_fits: bool | None  # None: the book's illustration, no card
    verdict_head: str
    verdict_body: str
    state_gb: float = 0.0
    _act_layer_y: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)  # set by its maker

    @property
    def duration_s(self) -> float:
        return self.timeline.duration_s

    @property
    def layers(self) -> int:
        return self.timeline.layers

    def frame_at(self, t: float) -> StepFrame:
        tl = self.timeline
        t = min(max(float(t), 0.0), tl.duration_s)
        alive = tl.alive_at(t)
        x0 = tl.act_alloc_s[alive]
        bars = Bars(x0, self._act_layer_y[alive], t - x0, np.full(alive.size, 0.3))
        activation = tl.activation_at(t) / GB
        total = self.state_gb + activation
        mbs = np.unique(tl.act_micro_batch[alive])
        who = f"micro-batch {mbs[0] + 1}/{tl.micro_batches}" if mbs.size else "—"
        cap = self.capacity_gb
        return StepFrame(t, bars, int(alive.size), who, self.state_gb, activation, total, cap,
                         cap is not None and total > cap)


def _block_bars(tl: StepTimeline) -> tuple[tuple[Bars, Bars], tuple[Bars, Bars], Bars, Bars, bool]:
    phase, mb = tl.block_phase, tl.block_micro_batch
    merged = phase.size > MAX_STEP_BARS
    out: list[Any] = []
    for which in (FORWARD, BACKWARD):
        pair = []
        for parity in (0, 1):
            sel = (phase == which) & (mb % 2 == parity)
            if not merged:
                pair.append(_bars(tl.block_start_s[sel], tl.block_end_s[sel] - tl.block_start_s[sel],
                                  tl.block_layer[sel] + 0.6, 0.8))
                continue
            # One bar per micro-batch and pass, spanning every layer: the blocks are sub-pixel.
            starts = tl.block_start_s[sel].reshape(-1, tl.layers).min(axis=1)
            ends = tl.block_end_s[sel].reshape(-1, tl.layers).max(axis=1)
            pair.append(_bars(starts, ends - starts, 0.6, tl.layers - 0.2))
        out.append(tuple(pair))
    opt = phase == OPTIMIZER
    optimizer = _bars(tl.block_start_s[opt], np.maximum(tl.block_end_s[opt] - tl.block_start_s[opt], 0), 0.6,
                      tl.layers - 0.2)
    if not merged:
        lifetimes = _bars(tl.act_alloc_s, tl.act_free_s - tl.act_alloc_s, tl.act_layer + 0.85, 0.3)
    else:
        alloc = tl.act_alloc_s.reshape(tl.micro_batches, tl.layers).min(axis=1)
        free = tl.act_free_s.reshape(tl.micro_batches, tl.layers).max(axis=1)
        lifetimes = _bars(alloc, free - alloc, 0.85, tl.layers - 0.7)
    return out[0], out[1], optimizer, lifetimes, merged


def _ticks(count: int, label) -> list:
    """(position, label) for bars 0..count-1, at most MAX_TICKS of them."""
    step = max(1, -(-count // MAX_TICKS))
    return [(i, label(i)) for i in range(0, count, step)]


def _peak_steps(x: np.ndarray, y: np.ndarray, duration: float) -> tuple[np.ndarray, np.ndarray]:
    """A step curve with more points than a plot has pixels, as its peak per time bin."""
    if x.size <= MAX_STEP_POINTS:
        return x, y
    bins = MAX_STEP_POINTS // 2
    edges = np.linspace(0.0, duration, bins + 1)
    which = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, bins - 1)
    peak = np.zeros(bins)
    np.maximum.at(peak, which, y)
    return np.repeat(edges, 2)[1:-1], np.repeat(peak, 2)


def _layer_ticks(layers: int) -> list:
    return [(i + 1, str(i + 1)) for i in range(layers)
            if layers <= 12 or (i + 1) % max(layers // 6, 1) == 0 or i == 0]


def step_figure(inputs: Mapping[str, Any], result: Mapping[str, Any] | None, view: str = "model") -> StepFigure:
    """图 3-20 for the step card: its schedule, activation lifetimes and memory by kind.

    view 'model': the card's model on its card (the numbers beside it are the card's
    result); 'illustrative': the book's 4 layers, the same batch split into the card's
    micro-batches."""
    a = int(inputs["micro_batches"])
    if view == "illustrative":
        tl = train_step.illustrative_timeline(a)
        whole = train_step.illustrative_timeline(1)
        body = (f":{tl.layers} 层,同一 batch 拆成 {tl.micro_batches} 个 micro-batch。激活峰值 "
                f"{tl.peak_activation_bytes / GB:g} 示意单位(不拆分时 {whole.peak_activation_bytes / GB:g}):"
                "只剩一个 micro-batch 的量,总数据量不变。")
        return timeline_figure(tl, illustrative=True, verdict=(None, "图 3-20 示意", body))
    tl = train_step.model_step(inputs["model"], inputs["sequences"], inputs["seq_len"], a, inputs["cards"],
                               inputs["card"], inputs["mfu"]).timeline
    r = result or {}
    hw = catalog.hardware(inputs["card"])
    fits = r.get("fits") == 1
    body = (f": state {format_bytes(r.get('resident_state_bytes', 0), 'si')} + activation peak "
            f"{format_bytes(r.get('peak_activation_bytes', 0), 'si')} = {format_bytes(r.get('peak_total_bytes', 0), 'si')} "
            f"per card vs {format_bytes(r.get('card_memory_bytes', 0) or 0, 'si')}. "
            f"{a} micro-batch(es) of {int(r.get('tokens_per_micro_batch', 0)):,} tokens; same data per step.")
    return timeline_figure(tl, capacity_text=f"{hw.key} · {format_bytes(hw.figure('memory_bytes'), 'si')}",
                           verdict=(fits, "放得下 fits" if fits else "放不下 does not fit", body))


def timeline_figure(tl: StepTimeline, capacity_text: str = "", illustrative: bool = False,
                    verdict: tuple = (None, "", "")) -> StepFigure:
    """The drawing of any step timeline (the panel's, or a benchmark's 100 layers)."""
    forward, backward, optimizer, lifetimes, merged = _block_bars(tl)
    # Resident state is flat through the step; activations ride on top of it.
    x_full, act = _peak_steps(*tl.stacked_until(tl.duration_s), tl.duration_s)
    memory, running = {}, 0.0
    for kind in STATE_KINDS[:-1]:
        running += tl.state_bytes.get(kind, 0.0)
        memory[kind] = (np.array([0.0, tl.duration_s]), np.full(2, running / GB))
    memory["activations"] = (x_full, (act + running) / GB)
    capacity = tl.capacity_bytes
    top = max(running + tl.peak_activation_bytes, capacity or 0.0) / GB
    return StepFigure(
        illustrative=illustrative, timeline=tl, forward=forward, backward=backward,
        optimizer=optimizer, lifetimes=lifetimes, merged=merged, memory=memory,
        capacity_gb=None if capacity is None else capacity / GB,
        capacity_text=capacity_text or (f"capacity {capacity / GB:.0f} GB" if capacity else ""),
        memory_top_gb=top * 1.12, layer_ticks=_layer_ticks(tl.layers),
        verdict_fits=verdict[0], verdict_head=verdict[1], verdict_body=verdict[2], state_gb=running / GB,
        _act_layer_y=(tl.act_layer + 0.85).astype(float),
    )


def micro_batch_choices(sequences: int) -> list[int]:
    """Values the micro-batch slider steps through: divisors of the sequences per step."""
    return train_step.divisors(int(sequences))


# ======================================================================================
# 图 3-23: FLOPs item by item beside 6ND

FLOPS_SEGMENTS = {  # key -> (column, label)
    "six_matrix": (0, "层内矩阵 layer matrices"),
    "six_head": (0, "词表投影 lm_head"),
    "six_embedding": (0, "词嵌入等 (6ND 多算) embedding + norms"),
    "item_matrix": (1, ""),
    "item_head": (1, ""),
    "item_attention": (1, "注意力 attention (6ND 漏算)"),
    "item_recompute": (1, "重计算 recompute"),
}


@dataclass(frozen=True)
class Segment:
    x: float
    y0: float
    height: float
    text: str
    text_y: float
    text_visible: bool


@dataclass(frozen=True)
class FlopsFigure:
    segments: dict  # key of FLOPS_SEGMENTS -> Segment (TFLOPs)
    six_nd: float
    ratio_text: str
    ratio_pos: tuple
    y_top: float


def flops_figure(result: Mapping[str, Any]) -> FlopsFigure:
    r = result
    values = {
        "six_matrix": r["matrix_flops"], "six_head": r["lm_head_flops"],
        "six_embedding": r["embedding_overcount_flops"] + r["norm_overcount_flops"],
        "item_matrix": r["matrix_flops"], "item_head": r["lm_head_flops"],
        "item_attention": r["attention_flops"], "item_recompute": r["recompute_flops"],
    }
    segments, base = {}, [0.0, 0.0]
    for key, (x, _) in FLOPS_SEGMENTS.items():
        value = values[key]
        segments[key] = Segment(x, base[x] / TFLOP, value / TFLOP, format_flops(value, 4),
                                (base[x] + value / 2) / TFLOP, bool(value > 0.035 * r["total_flops"]))
        base[x] += value
    top = max(r["six_nd_flops"], r["total_flops"]) / TFLOP
    return FlopsFigure(segments, r["six_nd_flops"] / TFLOP,
                       f"逐项 / 6ND = {r['ratio_vs_6nd']:.4f} ({(r['ratio_vs_6nd'] - 1) * 100:+.2f}%)",
                       (0.5, top * 1.03), top * 1.12)


# ======================================================================================
# Packing: two documents in one sequence


@dataclass(frozen=True)
class PackingFigure:
    first_length: np.ndarray
    pairs_ratio: np.ndarray
    layer_work_ratio: np.ndarray
    marker_x: list
    marker_y: list
    split: float | None  # first document's length when there are two
    seq_len: int
    mask: np.ndarray  # queries x keys, 1 where a query sees a key
    slider_range: tuple
    slider_steps: tuple  # single, page
    slider_enabled: bool
    label: str


def packing_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> PackingFigure:
    seq = int(inputs["seq_len"])
    lengths = inputs["doc_lengths"]
    curve = training.packing_curve(inputs["model"], seq)
    first = float(lengths[0]) if len(lengths) == 2 else None
    label = (" + ".join(f"{int(x):,}" for x in lengths[:6]) + (" + …" if len(lengths) > 6 else "")
             + f" · pairs {result['pairs_ratio']:.3f} · layer {result['layer_work_ratio']:.3f}")
    return PackingFigure(
        curve["first_length"], curve["pairs_ratio"], curve["layer_work_ratio"],
        [first] * 2 if first else [], [result["pairs_ratio"], result["layer_work_ratio"]] if first else [],
        first, seq, training.packing_mask(lengths, seq),
        (1, max(seq - 1, 1)), (max(seq // 128, 1), max(seq // 16, 1)), len(lengths) <= 2 and seq > 1, label)


def packing_split(inputs: Mapping[str, Any], first: int) -> tuple:
    """doc_lengths for the split slider at `first`: two documents filling the sequence."""
    return (float(first), float(inputs["seq_len"] - first))


# ======================================================================================
# 练习 3-6: label masking vs projecting supervised rows only


@dataclass(frozen=True)
class UpdateFigure:
    trunk: list  # per column, TFLOPs
    head: list
    totals: list
    texts: list
    y_top: float
    caption: str


def update_figure(result: Mapping[str, Any]) -> UpdateFigure:
    r = result
    trunk = (r["step_flops_label_masking"] - r["lm_head_flops_all_rows"]) / TFLOP
    heads = [r["lm_head_flops_all_rows"] / TFLOP, r["lm_head_flops_supervised_rows"] / TFLOP]
    totals = [r["step_flops_label_masking"], r["step_flops_skip_projection"]]
    caption = (f"每次更新读 {r['input_tokens_per_update']:,} 个输入 token,损失只用 {r['supervised_tokens_per_update']:,} 个。"
               f"只屏蔽标签时词表投影照样对全部 {r['input_tokens_per_update']:,} 行执行;只对监督行投影省 "
               f"{format_flops(r['lm_head_flops_saved'])}(更新的 {r['saved_share_of_step'] * 100:.1f}%)。")
    return UpdateFigure([trunk, trunk], heads, [t / TFLOP for t in totals],
                        [format_flops(t, 5) for t in totals], max(totals) / TFLOP * 1.12, caption)


# ======================================================================================
# 图 3-24: the RL pipeline, synchronous and asynchronous

PIPELINE_MODES = ("synchronous", "asynchronous")


@dataclass(frozen=True)
class PipelineFigure:
    schedules: dict  # mode -> rl.PipelineSchedule
    bars: dict  # mode -> role -> Bars
    labels: dict  # mode -> list of (text, x, y)
    end_s: float
    role_ticks: list  # (y, label)

    def status_at(self, mode: str, t: float) -> str:
        s = self.schedules[mode]
        done = int(np.count_nonzero(s.end_s["sync"] <= t))
        busy = [rl.ROLE_LABELS[r].split()[-1] for r in rl.ROLES
                if np.any((s.start_s[r] <= t) & (t < s.end_s[r]))]
        return f"{done}/{s.batches} batches done · busy: {', '.join(busy) or 'idle'}"


def role_y(role: str) -> int:
    return len(rl.ROLES) - 1 - rl.ROLES.index(role)


def pipeline_figure(inputs: Mapping[str, Any], cancel=None) -> PipelineFigure:
    v = inputs
    args = (v["batches"], v["rollout_s"], v["reward_s"], v["reference_s"], v["update_s"], v["sync_s"])
    schedules = {"synchronous": rl.pipeline_schedule("synchronous", *args),
                 "asynchronous": rl.pipeline_schedule("asynchronous", *args, max_staleness=v["max_staleness"])}
    if cancel is not None:
        cancel.check()
    end = max(s.total_s for s in schedules.values())
    bars: dict[str, Any] = {}
    labels: dict[str, Any] = {}
    for mode, s in schedules.items():
        bars[mode], labels[mode] = {}, []
        for role in rl.ROLES:
            y = role_y(role)
            starts, ends = s.start_s[role], s.end_s[role]
            bars[mode][role] = _bars(starts, ends - starts, y - 0.35, 0.7)
            for k in range(min(s.batches, MAX_PIPELINE_LABELS)):
                if ends[k] - starts[k] > end / 80:  # a label wider than its bar is left out
                    text = f"b{k + 1}·v{s.weight_version[k]}" if role == "rollout" else f"b{k + 1}"
                    labels[mode].append((text, float((starts[k] + ends[k]) / 2), float(y)))
    ticks = [(role_y(r), rl.ROLE_LABELS[r]) for r in rl.ROLES]
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
    base = rl.cycle(v["model"], v["prompt_tokens"], v["output_tokens"], v["n_keep"], 1.0, v["n_keep"])
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
        x, rewards, adv, adv > 0, float(result["group_mean"]), _ticks(rewards.size, lambda i: f"#{i + 1}"),
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
                      _ticks(len(counts), lambda i: f"μb{i + 1}: {int(counts[i]):,} tok"),
                      (-0.7, w1.size - 0.3), (0, max(w1.max(), w2.max()) * 1.15), caption)

