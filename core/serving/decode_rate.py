"""§3.1.3 例题 3-1: the bandwidth bound of decode. Each step reads every weight once
(shared by the batch) plus each sequence's KV; bytes over bandwidth is the shortest a
step can take, and the batch over that time the most decode steps a card can do."""
from __future__ import annotations

from core import catalog
from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError

_QWEN = catalog.model("qwen3-8b")
_CARD = catalog.hardware("rtx-pro-6000-blackwell")

WEIGHTS_BYTES = int(_QWEN["weights_read_per_decode_step_bytes"])  # 15.14 GB, no input embedding
KV_BYTES_PER_TOKEN = int(_QWEN["kv_bytes_per_token"])  # 144 KiB
BANDWIDTH = _CARD.figure("bandwidth_bytes_per_s")
# The book's rate per card (书中取值). Its backlog (112,792 steps), two-card capacity (5,591)
# and 练习 3-2 all rest on it, so the lab has one per-card rate: this one.
BOOK_STEPS_PER_S_PER_CARD = 2795.66
BOOK_SEQUENCES = 64


def step_bytes(weights_bytes: float, kv_bytes_per_token: float, sequences: int, mean_context_tokens: float) -> float:
    """Bytes one decode step moves: the weights once, and for each sequence the KV of
    its c old tokens read plus its new token's KV written, (c + 1) · kv."""
    return weights_bytes + sequences * (mean_context_tokens + 1) * kv_bytes_per_token


def context_for_rate(steps_per_s_per_card: float, weights_bytes: float = WEIGHTS_BYTES,
                     kv_bytes_per_token: float = KV_BYTES_PER_TOKEN, sequences: int = BOOK_SEQUENCES,
                     bandwidth_bytes_per_s: float = BANDWIDTH) -> float:
    """The mean context c̄ at which the bandwidth bound is this rate per card (step_bytes
    solved for c̄)."""
    total = bandwidth_bytes_per_s * sequences / steps_per_s_per_card
    return (total - weights_bytes) / (sequences * kv_bytes_per_token) - 1


# The book prints c̄ only as "约 2,742"; the c̄ within that rounding that gives its 2,795.66
# per card is 2,742.06 (the mix's exact step-weighted mean, 2,741.77, would give 2,795.85
# and a second capacity, 5,591.69 beside the backlog's 5,591.32). Four decimals keep the
# field short and the rate within 1e-8 of the book's.
BOOK_MEAN_CONTEXT = round(context_for_rate(BOOK_STEPS_PER_S_PER_CARD), 4)


def decode_rate(weights_bytes, kv_bytes_per_token, sequences, mean_context_tokens,
                bandwidth_bytes_per_s, cards) -> dict:
    total = step_bytes(weights_bytes, kv_bytes_per_token, sequences, mean_context_tokens)
    step_time = total / bandwidth_bytes_per_s
    per_card = sequences / step_time
    return {
        "bytes_per_step": total,
        "kv_bytes_per_step": total - weights_bytes,
        "step_time_s": step_time,
        "steps_per_s_per_card": per_card,
        "steps_per_s": per_card * cards,
    }


def _check(values: dict) -> None:
    total = step_bytes(values["weights_bytes"], values["kv_bytes_per_token"], values["sequences"],
                       values["mean_context_tokens"])
    if not total >= 1:
        raise ParamError("kv_bytes_per_token", f"a step would move {total:g} bytes (weights_bytes "
                         f"{values['weights_bytes']:g}, kv_bytes_per_token {values['kv_bytes_per_token']:g}); "
                         "valid: weights_bytes + sequences · (c̄ + 1) · kv_bytes_per_token >= 1 byte")


DECODE_RATE = Calculator(
    byte_system="si",  # the book prints 15.14 GB and 41.02 GB
    name="serving.decode_rate",
    title="带宽给出的 decode 上限 · bandwidth-bound decode rate",
    ref=BookRef("3.1.3", "例题 3-1"),
    params=(
        Param("weights_bytes", "bytes", WEIGHTS_BYTES, "weights read once per step, shared by the batch (Qwen3-8B BF16 without the input embedding: 15.14 GB)", 0, 1e15, label="W"),
        Param("kv_bytes_per_token", "bytes", KV_BYTES_PER_TOKEN, "KV of one token over all layers (Qwen3-8B: 144 KiB)", 0, 1e9, label="kv"),
        Param("sequences", "seqs", BOOK_SEQUENCES, "sequences decoding together in one step (例题 3-1: 64)", 1, 1_000_000, kind="int", label="B"),
        Param("mean_context_tokens", "tokens", BOOK_MEAN_CONTEXT, "mean context c a step starts from, decode-step weighted (例题 3-1: about 2,742; 2,742.06 gives the book's 2,795.66 per card; serving.mix's exact mean 2,741.77 gives 2,795.85)", 0, 1e8, label="c̄"),
        Param("bandwidth_bytes_per_s", "bytes/s", BANDWIDTH, "memory bandwidth of one card (RTX PRO 6000 Blackwell: 1.792 TB/s)", 1e6, 1e16, label="BW"),
        Param("cards", "cards", 2, "cards doing decode (例题 3-1: 2)", 1, 100_000, kind="int"),
    ),
    outputs=(
        Output("bytes_per_step", "bytes", "bytes one decode step moves", "W + B · (c̄ + 1) · kv"),
        Output("kv_bytes_per_step", "bytes", "the KV part of it", "B · (c̄ + 1) · kv"),
        Output("step_time_s", "s", "shortest time a step can take on one card", "bytes_per_step / BW"),
        Output("steps_per_s_per_card", "steps/s", "decode steps (one token of one sequence each) per second per card", "B / step_time"),
        Output("steps_per_s", "steps/s", "all cards together", "cards · B / step_time"),
    ),
    compute=decode_rate,
    check=_check,
    book=(
        BookValue("bytes_per_step", 41.02e9, "一步读写 41.02 GB", rel_tol=1.3e-4),
        BookValue("step_time_s", 22.89e-3, "耗时 22.89 ms", rel_tol=2.2e-4),
        BookValue("steps_per_s_per_card", BOOK_STEPS_PER_S_PER_CARD, "一卡每秒约 2,795.66 步(书中取值)", rel_tol=1e-8),
        BookValue("steps_per_s", 2 * BOOK_STEPS_PER_S_PER_CARD, "两张每秒最多约 5,591 步", rel_tol=1e-8),
    ),
)

CALCULATORS = (DECODE_RATE,)
