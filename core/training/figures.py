"""The training figures of the Training panel (one step of 图 3-20, FLOPs beside 6ND of
图 3-23, packing, one update of 练习 3-6), computed once from its cards' inputs and results;
its RL figures are core/training/rl/figures.py.

Each function returns everything its view draws: rectangles, curves, ranges, ticks and the
words beside them. The panel only draws these (setData on items made once); `lab snapshot`
draws the same. FLOPs are drawn in TFLOPs, bytes in GB (the book's units for training).

The ▶ figures (the step of 图 3-20 here, the RL pipeline of 图 3-24) hold per-frame arrays
prepared up front, so a frame is a lookup (`frame_at(t)`, `status_at(mode, t)`).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core import catalog
from core.training import calculator as training
from core.training import step as train_step
from core.training.bars import Bars
from core.training.bars import bars as make_bars
from core.training.step import BACKWARD, FORWARD, OPTIMIZER, STATE_KINDS, StepTimeline
from core.units import GB, TFLOP, format_bytes, format_flops

MAX_STEP_BARS = 20_000  # more blocks than this are drawn one per micro-batch and pass
MAX_STEP_POINTS = 40_000  # memory curve points; longer steps are drawn by their peak per bin

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


def _blockmake_bars(tl: StepTimeline) -> tuple[tuple[Bars, Bars], tuple[Bars, Bars], Bars, Bars, bool]:
    phase, mb = tl.block_phase, tl.block_micro_batch
    merged = phase.size > MAX_STEP_BARS
    out: list[Any] = []
    for which in (FORWARD, BACKWARD):
        pair = []
        for parity in (0, 1):
            sel = (phase == which) & (mb % 2 == parity)
            if not merged:
                pair.append(make_bars(tl.block_start_s[sel], tl.block_end_s[sel] - tl.block_start_s[sel],
                                  tl.block_layer[sel] + 0.6, 0.8))
                continue
            # One bar per micro-batch and pass, spanning every layer: the blocks are sub-pixel.
            starts = tl.block_start_s[sel].reshape(-1, tl.layers).min(axis=1)
            ends = tl.block_end_s[sel].reshape(-1, tl.layers).max(axis=1)
            pair.append(make_bars(starts, ends - starts, 0.6, tl.layers - 0.2))
        out.append(tuple(pair))
    opt = phase == OPTIMIZER
    optimizer = make_bars(tl.block_start_s[opt], np.maximum(tl.block_end_s[opt] - tl.block_start_s[opt], 0), 0.6,
                      tl.layers - 0.2)
    if not merged:
        lifetimes = make_bars(tl.act_alloc_s, tl.act_free_s - tl.act_alloc_s, tl.act_layer + 0.85, 0.3)
    else:
        alloc = tl.act_alloc_s.reshape(tl.micro_batches, tl.layers).min(axis=1)
        free = tl.act_free_s.reshape(tl.micro_batches, tl.layers).max(axis=1)
        lifetimes = make_bars(alloc, free - alloc, 0.85, tl.layers - 0.7)
    return out[0], out[1], optimizer, lifetimes, merged



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
    forward, backward, optimizer, lifetimes, merged = _blockmake_bars(tl)
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
