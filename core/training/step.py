"""图 3-20: one training step as a schedule, with each layer's activations alive from the
end of its forward until its backward has used them, and the memory that results.

The whole step is computed here at once (arrays); the panel only plays it back.

Order: for each micro-batch, the layers' forward 1..L, then their backward L..1; the
gradients accumulate, and one optimizer update ends the step. Splitting a batch into a
micro-batches keeps the data of the step the same, but only one micro-batch's
activations are alive at a time; the parameter state stays resident all along.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core import catalog
from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError
from core.training.model import TRAINING_PASSES, causal_pairs, dense_model_keys, memory_hardware_keys, shape

FORWARD, BACKWARD, OPTIMIZER = 0, 1, 2
BACKWARD_RATIO = TRAINING_PASSES - 1  # input gradient + weight gradient, each like the forward
# Durations divide FLOPs by peak · MFU; a floor keeps every step of every allowed shape finite.
MIN_MFU = 1e-6

STATE_KINDS = ("weights", "gradients", "master", "adam", "activations")
STATE_LABELS = {
    "weights": "BF16 权重 weights",
    "gradients": "FP32 梯度 gradients",
    "master": "FP32 主权重 master",
    "adam": "Adam m + v",
    "activations": "激活 activations",
}


@dataclass(frozen=True)
class StepTimeline:
    """A training step laid out in time.

    blocks_*: one entry per compute block (layer forward or backward on one micro-batch,
    plus the optimizer update, whose layer is -1).
    act_*: one entry per (layer, micro-batch) activation: allocated at the end of the
    layer's forward, freed at the end of its backward.
    mem_t / mem_activation_bytes: the activation bytes as a step function of time
    (value holds from mem_t[i] until mem_t[i+1]).
    state_bytes: resident bytes per kind (per card), constant through the step.
    """

    layers: int
    micro_batches: int
    block_start_s: np.ndarray
    block_end_s: np.ndarray
    block_layer: np.ndarray
    block_micro_batch: np.ndarray
    block_phase: np.ndarray
    act_layer: np.ndarray
    act_micro_batch: np.ndarray
    act_alloc_s: np.ndarray
    act_free_s: np.ndarray
    activation_bytes_each: float
    mem_t: np.ndarray
    mem_activation_bytes: np.ndarray
    state_bytes: dict = field(default_factory=dict)
    capacity_bytes: float | None = None

    @property
    def duration_s(self) -> float:
        return float(self.block_end_s[-1])

    @property
    def peak_activation_bytes(self) -> float:
        return float(self.mem_activation_bytes.max())

    @property
    def resident_state_bytes(self) -> float:
        return float(sum(v for k, v in self.state_bytes.items() if k != "activations"))

    @property
    def peak_total_bytes(self) -> float:
        return self.resident_state_bytes + self.peak_activation_bytes

    def activation_at(self, t: float) -> float:
        i = int(np.searchsorted(self.mem_t, t, side="right")) - 1
        return float(self.mem_activation_bytes[max(i, 0)])

    def alive_at(self, t: float) -> np.ndarray:
        """Indices of activations alive at time t."""
        return np.nonzero((self.act_alloc_s <= t) & (t < self.act_free_s))[0]

    def stacked_until(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """The activation step curve up to time t, as (x, y) ready to draw as steps."""
        n = int(np.searchsorted(self.mem_t, t, side="right"))
        n = max(n, 1)
        x = np.repeat(self.mem_t[:n], 2)[1:]
        x = np.append(x, t)
        y = np.repeat(self.mem_activation_bytes[:n], 2)
        return x, y


def build_timeline(layers: int, micro_batches: int, activation_bytes_per_layer_per_micro_batch: float,
                   forward_s: float, optimizer_s: float = 0.0,
                   state_bytes: dict | None = None, capacity_bytes: float | None = None) -> StepTimeline:
    """Schedule of one step: `forward_s` per layer per micro-batch, backward twice that."""
    if layers < 1:
        raise ParamError("layers", f"got {layers}; valid: a whole number >= 1")
    if micro_batches < 1:
        raise ParamError("micro_batches", f"got {micro_batches}; valid: a whole number >= 1")
    L, a = int(layers), int(micro_batches)
    backward_s = BACKWARD_RATIO * forward_s
    per_mb = L * (forward_s + backward_s)
    mb_start = np.arange(a, dtype=float) * per_mb  # (a,)
    layer_idx = np.arange(L)
    # Forward of layer l in micro-batch m: starts at mb_start + l·tf.
    f_start = mb_start[:, None] + layer_idx[None, :] * forward_s  # (a, L)
    f_end = f_start + forward_s
    # Backward runs layers L-1 .. 0 after the whole forward.
    back_rank = (L - 1 - layer_idx)  # layer L-1 first
    b_start = mb_start[:, None] + L * forward_s + back_rank[None, :] * backward_s
    b_end = b_start + backward_s
    opt_start = a * per_mb
    mb_grid = np.repeat(np.arange(a), L).reshape(a, L)
    layer_grid = np.tile(layer_idx, (a, 1))

    # Blocks in time order: per micro-batch, forwards then backwards (backward by rank).
    order_b = np.argsort(back_rank)
    blocks_start = np.append(np.hstack([f_start, b_start[:, order_b]]).ravel(), opt_start)
    blocks_end = np.append(np.hstack([f_end, b_end[:, order_b]]).ravel(), opt_start + optimizer_s)
    blocks_layer = np.append(np.tile(np.concatenate([layer_idx, layer_idx[order_b]]), a), -1)
    blocks_mb = np.append(np.repeat(np.arange(a), 2 * L), -1)
    blocks_phase = np.append(np.tile(np.repeat([FORWARD, BACKWARD], L), a), OPTIMIZER)

    alloc = f_end.ravel()
    free = b_end.ravel()
    each = float(activation_bytes_per_layer_per_micro_batch)
    # Memory: +each at every alloc, -each at every free; release before hold at equal times.
    ev_t = np.concatenate([alloc, free])
    ev_d = np.concatenate([np.full(alloc.size, each), np.full(free.size, -each)])
    order = np.lexsort((ev_d, ev_t))
    t_sorted = ev_t[order]
    level = np.cumsum(ev_d[order])
    # Keep the last level at each distinct time.
    last = np.append(t_sorted[1:] != t_sorted[:-1], True)
    mem_t = np.concatenate([[0.0], t_sorted[last], [opt_start + optimizer_s]])
    mem_y = np.concatenate([[0.0], level[last], [0.0]])
    mem_y = np.maximum(mem_y, 0.0)  # float cancellation never shows as negative bytes

    states = dict(state_bytes or {})
    return StepTimeline(
        layers=L, micro_batches=a,
        block_start_s=blocks_start, block_end_s=blocks_end, block_layer=blocks_layer.astype(int),
        block_micro_batch=blocks_mb.astype(int), block_phase=blocks_phase.astype(int),
        act_layer=layer_grid.ravel(), act_micro_batch=mb_grid.ravel(), act_alloc_s=alloc, act_free_s=free,
        activation_bytes_each=each, mem_t=mem_t, mem_activation_bytes=mem_y,
        state_bytes=states, capacity_bytes=capacity_bytes,
    )


# --------------------------------------------------------------------------------------
# A real model's step: Qwen3-8B on a card, for the panel.

@dataclass(frozen=True)
class ModelStep:
    timeline: StepTimeline
    state_per_card_bytes: dict
    activation_bytes_per_layer_per_micro_batch: float
    forward_s_per_layer_per_micro_batch: float
    tokens_per_micro_batch: int


def model_step(model: str = "qwen3-8b", sequences: int = 8, seq_len: int = 4096, micro_batches: int = 1,
               cards: int = 1, card: str = "rtx-pro-6000-blackwell", mfu: float = 0.4,
               grad_bytes: float = 4.0) -> ModelStep:
    """One step of `sequences` x `seq_len` split into `micro_batches`, state sharded over `cards`.

    Durations come from FLOPs at `mfu` of the card's dense BF16 peak (an illustrative
    rate; the book's figure is 示意). The optimizer time is the state read and written
    once at the card's bandwidth. Activations are per card for the data it runs.
    """
    if sequences % micro_batches:
        raise ParamError("micro_batches", f"{micro_batches} does not divide {sequences} sequences; "
                         "valid: a divisor of the sequences per step")
    if not MIN_MFU <= mfu <= 1:
        raise ParamError("mfu", f"got {mfu:g}; valid: [{MIN_MFU:g}, 1]")
    s = shape(model)
    hw = catalog.hardware(card)
    if cards < 1 or cards > s.parameters:
        raise ParamError("cards", f"got {cards}; valid: 1 .. {s.parameters:,}")
    per_mb_seqs = sequences // micro_batches
    tokens = per_mb_seqs * seq_len
    per_card_params = -(-s.parameters // cards)
    state = {
        "weights": 2.0 * per_card_params,
        "gradients": grad_bytes * per_card_params,
        "master": 4.0 * per_card_params,
        "adam": 8.0 * per_card_params,
    }
    act_each = float(s.activation_bytes_per_token_per_layer() * tokens)
    rate = hw.figure("bf16_dense_flops") * mfu
    forward_s = s.layer_forward_flops(tokens, per_mb_seqs * causal_pairs(seq_len)) / rate
    optimizer_s = 2.0 * sum(state.values()) / hw.bandwidth_bytes_per_s if hw.bandwidth_bytes_per_s else 0.0
    tl = build_timeline(s.num_layers, micro_batches, act_each, forward_s, optimizer_s,
                        state_bytes=state, capacity_bytes=hw.memory_bytes)
    return ModelStep(tl, state, act_each, forward_s, tokens)


# --------------------------------------------------------------------------------------
# train.activations: the calculator of 图 3-20


# Every (layer, micro-batch) activation is laid out with its own times; beyond this many
# the arrays (and the series returned) grow past what one calculation should hold.
MAX_ACTIVATIONS = 250_000


def _check_activations(values: dict) -> None:
    layers, micro_batches = values["layers"], values["micro_batches"]
    if layers * micro_batches > MAX_ACTIVATIONS:
        most = max(1, MAX_ACTIVATIONS // layers)
        raise ParamError("micro_batches", f"got {micro_batches}; valid: 1 .. {most:,} with layers = {layers:,} "
                         f"(layers × micro_batches <= {MAX_ACTIVATIONS:,} activations laid out)")


def activations(layers: int, micro_batches: int, activation_bytes_per_layer_per_micro_batch: float,
                forward_s: float) -> dict:
    tl = build_timeline(layers, micro_batches, activation_bytes_per_layer_per_micro_batch, forward_s)
    return {
        "peak_activation_bytes": tl.peak_activation_bytes,
        # The same data in one pass holds a micro-batches' worth in every layer.
        "peak_without_micro_batches_bytes": float(layers * micro_batches * activation_bytes_per_layer_per_micro_batch),
        "step_duration_s": tl.duration_s,
        "compute_blocks": int(tl.block_phase.size),
        "activation_timeline_s": tl.mem_t.tolist(),
        "activation_timeline_bytes": tl.mem_activation_bytes.tolist(),
        "activation_alloc_s": tl.act_alloc_s.tolist(),
        "activation_free_s": tl.act_free_s.tolist(),
    }


ACTIVATIONS = Calculator(
    byte_system="si",  # the book counts training state in GB
    name="train.activations",
    title="激活的生命周期与 micro-batch · activation lifetimes",
    ref=BookRef("3.4.1", "图 3-20"),
    params=(
        Param("layers", "layers", 4, "L: layers (图 3-20 draws 4)", 1, 10_000, kind="int", label="L"),
        Param("micro_batches", "", 2, "a: micro-batches the batch is split into", 1, 10_000, kind="int", label="a"),
        Param("activation_bytes_per_layer_per_micro_batch", "bytes", 1e9,
              "activations one layer keeps for one micro-batch", 0, 1e15, illustrative=True),
        Param("forward_s", "s", 1.0, "forward time of one layer on one micro-batch (backward: twice)", 0, 1e6,
              min_exclusive=True, illustrative=True),
    ),
    outputs=(
        Output("peak_activation_bytes", "bytes", "highest activation memory during the step: one micro-batch's worth",
               "L · A_layer,μ"),
        Output("peak_without_micro_batches_bytes", "bytes", "the same batch in one pass", "a · L · A_layer,μ"),
        Output("step_duration_s", "s", "a micro-batches, forward + backward, then the update", "a · L · 3 · t_f"),
        Output("compute_blocks", "", "forward and backward blocks plus the update", "2·a·L + 1"),
        Output("activation_timeline_s", "s", "times where the activation level changes", kind="series"),
        Output("activation_timeline_bytes", "bytes", "activation level from each time on", kind="series"),
        Output("activation_alloc_s", "s", "each layer×micro-batch activation: end of its forward", kind="series"),
        Output("activation_free_s", "s", "each activation: end of its backward", kind="series"),
    ),
    compute=activations,
    check=_check_activations,
    note="4 层、时长为示意",
    book=(
        BookValue("peak_activation_bytes", 4e9, "激活峰值只剩一个 micro-batch 的量 (4 层 × 1 个)", derived=True),
        BookValue("peak_without_micro_batches_bytes", 8e9, "不拆分时同一 batch 的峰值", derived=True),
        BookValue("peak_activation_bytes", 4e9, "a = 1:整个 batch 在一次前向里", params={"micro_batches": 1}, derived=True),
    ),
)



# --------------------------------------------------------------------------------------
# train.step: a real model's step on a card (the panel's ▶ figure)


def step(model: str, sequences: int, seq_len: int, micro_batches: int, cards: int, card: str, mfu: float) -> dict:
    ms = model_step(model, sequences, seq_len, micro_batches, cards, card, mfu)
    tl = ms.timeline
    assert tl.capacity_bytes is not None  # a step on a card: the card's memory
    return {
        "resident_state_bytes": tl.resident_state_bytes,
        "peak_activation_bytes": tl.peak_activation_bytes,
        "peak_total_bytes": tl.peak_total_bytes,
        "card_memory_bytes": tl.capacity_bytes,
        "fits": 1 if tl.peak_total_bytes <= tl.capacity_bytes else 0,
        "headroom_bytes": tl.capacity_bytes - tl.peak_total_bytes,
        "activation_bytes_per_layer_per_micro_batch": ms.activation_bytes_per_layer_per_micro_batch,
        "tokens_per_micro_batch": ms.tokens_per_micro_batch,
        "step_duration_s": tl.duration_s,
    }


def _check_step(values: dict) -> None:
    if values["sequences"] % values["micro_batches"]:
        raise ParamError("micro_batches", f"{values['micro_batches']} does not divide {values['sequences']} sequences; "
                         "valid: a divisor of sequences")
    if values["cards"] > shape(values["model"]).parameters:
        raise ParamError("cards", f"got {values['cards']}; valid: 1 .. parameters")


def divisors(n: int) -> list[int]:
    """Micro-batch counts that split n sequences evenly."""
    return [d for d in range(1, n + 1) if n % d == 0]


STEP = Calculator(
    byte_system="si",  # the book counts training state in GB
    name="train.step",
    title="一步训练的显存 · memory of one step",
    ref=BookRef("3.4.1", "例题 3-3 · 图 3-20"),
    params=(
        Param("model", "", "qwen3-8b", "model shape from the catalog, or a dense decoder's config.json path", kind="path", choices=dense_model_keys()),
        Param("sequences", "sequences", 8, "sequences per update (the batch)", 1, 4096, kind="int"),
        Param("seq_len", "tokens", 4096, "tokens per sequence (Qwen3's general stage: 4096)", 1, 1_000_000, kind="int"),
        Param("micro_batches", "", 1, "a: micro-batches the batch is split into (a divisor of sequences)", 1, 4096,
              kind="int", label="a"),
        Param("cards", "cards", 1, "cards the parameter state is split evenly over", 1, 1_000_000, kind="int"),
        Param("card", "", "rtx-pro-6000-blackwell", "card: memory, peak and bandwidth from the catalog",
              kind="choice", choices=memory_hardware_keys()),
        Param("mfu", "", 0.4, "share of the dense BF16 peak the step reaches (sets durations only)", MIN_MFU, 1,
              illustrative=True),
    ),
    outputs=(
        Output("resident_state_bytes", "bytes", "weights, gradients, master weights, Adam: the whole step", "18 · ⌈N / cards⌉"),
        Output("peak_activation_bytes", "bytes", "one micro-batch's activations in every layer", "L · A_layer · tokens_μ"),
        Output("peak_total_bytes", "bytes", "state + activation peak per card"),
        Output("card_memory_bytes", "bytes", "the card's memory"),
        Output("fits", "bool", "yes when the peak fits the card"),
        Output("headroom_bytes", "bytes", "card memory − peak (negative: does not fit)"),
        Output("activation_bytes_per_layer_per_micro_batch", "bytes", "estimate: tensors saved for backward, BF16"),
        Output("tokens_per_micro_batch", "tokens", "rows one forward processes", "sequences / a · seq_len"),
        Output("step_duration_s", "s", "a · L · (t_f + 2 t_f) + optimizer, at the chosen MFU"),
    ),
    compute=step,
    check=_check_step,
    note="激活与时长为估算/示意",
    book=(
        BookValue("resident_state_bytes", 147_433_236_480, "例题 3-3:18 字节 × 8,190,735,360", derived=True),
        BookValue("fits", 0, "还没算激活,状态就超出一张卡", derived=True),
    ),
)

CALCULATORS = (ACTIVATIONS, STEP)


def illustrative_timeline(micro_batches: int, layers: int = 4, batch_activation_bytes_per_layer: float = 1e9,
                          batch_forward_s: float = 1.0) -> StepTimeline:
    """图 3-20 as the book draws it (4 layers, durations 示意): the same batch split into
    `micro_batches`, so each micro-batch holds and takes 1/a of the batch per layer."""
    if micro_batches < 1:
        raise ParamError("micro_batches", f"got {micro_batches}; valid: a whole number >= 1")
    return build_timeline(layers, micro_batches, batch_activation_bytes_per_layer / micro_batches,
                          batch_forward_s / micro_batches, optimizer_s=0.25 * batch_forward_s)
