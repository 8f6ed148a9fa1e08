"""The loop's cards and the stages other than rollout, from the lab's own calculators.

FLOPs are core/training's (例题 3-4's conventions: generation = prefill + G−1 decode
steps, the reference forward = teacher forcing over P+G−1 rows, the update = kept samples
× TRAINING_PASSES × that forward); a time is FLOPs / (cards · the card's BF16 peak · MFU).
Weight sync sends BF16 weights (2 bytes × N) to each rollout replica (练习 3-7's total for
independent sends; a broadcast is one transfer's time). The trainer's state per card is
core.training.calculator.state with ZeRO's sharded kinds over the trainer cards. The
rollout engines are the serving simulation's deployment of the model on the card
(core.serving.simulate_keys: the basis step-time model, vLLM's batch defaults).
"""
from __future__ import annotations

import functools
import heapq
from dataclasses import dataclass

import numpy as np

from core.hardware_config import card_replay_values
from core.registry import ParamError, get
from core.serving import replay as rp
from core.serving import simulate_keys as keys
from core.serving.engine import EngineConfig
from core.training.calculator import state
from core.training.model import TRAINING_PASSES, DecoderShape, shape

WEIGHT_BYTES = 2.0  # BF16 weights sent to the rollout replicas
# ZeRO stage -> which training-state kinds are sharded over the data-parallel cards.
# Bytes per parameter: BF16 weight and grad, FP32 master and Adam moments (the book's 16 B).
STATE_BYTES = {"weight": 2.0, "grad": 2.0, "master": 4.0, "adam_m": 4.0, "adam_v": 4.0}
SHARDED = {0: (), 1: ("master", "adam_m", "adam_v"), 2: ("grad", "master", "adam_m", "adam_v"),
           3: ("weight", "grad", "master", "adam_m", "adam_v")}


@dataclass(frozen=True)
class Cards:
    """Both pools' card and what the lab knows of it."""

    name: str
    peak_flops: float
    memory_bytes: float
    price_per_card_hour: float | None
    price_source: str


def forward_flops(s: DecoderShape, rows: np.ndarray) -> float:
    """Σ teacher-forcing forwards over sequences of `rows` rows (one call per distinct length)."""
    values, counts = np.unique(np.asarray(rows, np.int64), return_counts=True)
    return float(sum(c * s.teacher_forcing_forward_flops(int(v)) for v, c in zip(values, counts)))


def generation_flops(s: DecoderShape, prompt_tokens: int, lengths: np.ndarray) -> float:
    values, counts = np.unique(np.asarray(lengths, np.int64), return_counts=True)
    return float(sum(c * s.generation_flops(prompt_tokens, int(v)) for v, c in zip(values, counts)))


def update_flops(s: DecoderShape, rows: np.ndarray) -> float:
    """F_u: kept samples × forward + backward (TRAINING_PASSES forwards each)."""
    return TRAINING_PASSES * forward_flops(s, rows)


def compute_s(flops: float, cards: int, card: Cards, mfu: float) -> float:
    return flops / (cards * card.peak_flops * mfu)


def sync_bytes(s: DecoderShape, replicas: int) -> float:
    """练习 3-7: new BF16 weights sent to every replica separately."""
    return replicas * WEIGHT_BYTES * s.parameters


def sync_s(s: DecoderShape, replicas: int, how: str, link_bytes_per_s: float, latency_s: float) -> float:
    sends = replicas if how == "independent" else 1
    return latency_s + sends * WEIGHT_BYTES * s.parameters / link_bytes_per_s


def sandbox_s(times: np.ndarray, workers: int) -> float:
    """Samples' sandbox times run in order on `workers` sandboxes, each to the first free one."""
    if times.size <= workers:
        return float(times.max()) if times.size else 0.0
    free = [0.0] * workers
    for t in times.tolist():
        heapq.heappush(free, heapq.heappop(free) + t)
    return max(free)


def trainer_state_per_card(s: DecoderShape, cards: int, zero: int) -> float:
    """Training state per trainer card: ZeRO-sharded kinds over the cards, the rest whole
    (core.training.calculator.state; its card only sets the fit, which the caller judges)."""
    n = s.parameters

    def per_card(kinds, over: int) -> float:
        bytes_ = {f"{k}_bytes": (v if k in kinds else 0.0) for k, v in STATE_BYTES.items()}
        return state(n, cards=min(over, n), card=_BOOK_CARD, **bytes_)["per_card_bytes"]

    whole = tuple(k for k in STATE_BYTES if k not in SHARDED[zero])
    return float(per_card(SHARDED[zero], cards) + per_card(whole, 1))


@functools.lru_cache(maxsize=32)
def rollout_engine(model: str, hardware: str, tp: int) -> tuple[EngineConfig, keys.Expanded]:
    """One rollout engine: the serving simulation's deployment of model on tp cards of hardware."""
    try:
        e = keys.expand_checked({"model": model, "hardware": hardware, "tp": str(tp)}, lambda: "")
    except ParamError as err:
        name = {"tp": "rollout_tp"}.get(err.param, err.param)
        raise ParamError(name, err.message) from None
    values = get("serving.replay").resolve(e.raw)
    return rp.config_from(values, e.step_cost(values)), e


@functools.lru_cache(maxsize=32)
def cards(hardware: str) -> Cards:
    _, e = rollout_engine(_BOOK_MODEL, hardware, 1)
    card = e.choice.card
    assert card is not None  # hardware= given: choose() loaded it
    figures = card_replay_values(card)
    return Cards(card.name, float(figures["peak_flops"]), float(figures["memory_bytes"]),
                 e.choice.price_per_card_hour, e.choice.price_source)


_BOOK_MODEL = "qwen3-8b"
_BOOK_CARD = "rtx-pro-6000-blackwell"


def policy_shape(model: str, key: str = "model") -> DecoderShape:
    """The dense decoder's shape, its errors named after the key the user typed."""
    try:
        return shape(model)
    except ParamError as err:
        message = err.message if err.param == "model" else f"{err.param}: {err.message}"
        raise ParamError(key, message) from None
