"""Request streams for the replay: arrival time, input tokens and output tokens per request.

Arrivals within each window of the book (duration, rate, share of long-input requests)
are evenly spaced (the book's run), Poisson, or Gamma with a coefficient of variation
above 1 for burstiness; the class of each request is interleaved deterministically (the
share holds in every stretch of the window) or drawn at random with a seed.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from core.registry import ParamError
from core.serving.mix import LONG_INPUT, LONG_OUTPUT, RequestClass

ARRIVALS = ("even", "poisson", "gamma")
CLASS_ORDERS = ("interleave", "random")
MAX_REQUESTS = 5_000_000


@dataclass(frozen=True)
class PrefixBlocks:
    """What each request's prompt is made of, block by block, as a trace gives it
    (Mooncake's hash_ids): request i's ids are ids[offsets[i]:offsets[i+1]], one id per
    `block_tokens` prompt tokens (the last block may be partial). Equal ids at equal
    positions mean equal content up to and including that block (the ids are chained)."""

    ids: np.ndarray  # int64, every request's ids one after the other
    offsets: np.ndarray  # int64, len(requests) + 1
    block_tokens: int = 512  # Mooncake's hash_block_tokens


@dataclass(frozen=True)
class Sessions:
    """Multi-turn sessions, one entry per request (arrays of the workload's length).

    A turn's prompt is its session's kept history plus its new tokens: input_tokens[i] =
    shared_prefix_tokens[i] + new_input_tokens[i], where the kept history is the first
    shared_prefix_tokens[i] tokens of the previous turn's prompt + output (all of it unless
    the history was rewritten, e.g. thinking removed). A turn with a finite think_time_s
    arrives that long after the previous turn of its session finished (plus its tool
    wait); otherwise at its workload arrival_s. After a turn finishes its session may wait
    tool_wait_s for a tool, during which its KV stays cached (keep_kv_during_tool, evictable
    under pressure) or is dropped."""

    session: np.ndarray  # int64 session id
    turn: np.ndarray  # int64, 0-based within the session, consecutive
    new_input_tokens: np.ndarray  # int64
    shared_prefix_tokens: np.ndarray  # int64 (0 for a session's first turn)
    think_time_s: np.ndarray  # float64, nan where the turn has a fixed arrival
    tool_wait_s: np.ndarray  # float64, tool time after this turn finishes (0: none)
    keep_kv_during_tool: np.ndarray  # bool


@dataclass(frozen=True)
class RemoteKV:
    """Requests whose prompt KV is computed elsewhere (P/D disaggregation: the decode
    instance's view), one entry per request. ready_tokens[i] prompt tokens arrive over a
    link (0: an ordinary request); the transfer takes transfer_s[i] from the moment the
    receiving engine allocates their blocks (core/serving/engine/plan.py; the convention
    for the first token: /work/brief_team/E15_interface.md and engine/__init__.py)."""

    ready_tokens: np.ndarray  # int64
    transfer_s: np.ndarray  # float64


@dataclass(frozen=True)
class EncoderWork:
    """Encoder work of image (or other multimodal) requests, one entry per request:
    seconds[i] of encoder time for its items not found in the encoder cache, added to the
    step that admits it; tokens[i] its encoder input tokens, counted against the step's
    encoder budget (EngineConfig.max_num_encoder_input_tokens)."""

    seconds: np.ndarray  # float64
    tokens: np.ndarray  # int64


def rows_of(block, rows: np.ndarray):
    """A per-request block (RemoteKV, EncoderWork) at the workload rows `rows`; None stays None."""
    if block is None:
        return None
    return type(block)(*(getattr(block, f.name)[rows] for f in fields(block)))


@dataclass(frozen=True)
class Workload:
    """Requests sorted by arrival. Arrays of equal length; times in seconds.

    prefix / sessions: optional prefix information (the engine's prefix cache uses it);
    remote: KV arriving over a link (a decode instance's requests); encoder: encoder work;
    meta: what the loader knew (format, rows read and dropped, a vllm-bench run's
    measured ttfts/itls for overlay ...), never used by the engine."""

    arrival_s: np.ndarray
    input_tokens: np.ndarray
    output_tokens: np.ndarray
    label: str = ""
    prefix: PrefixBlocks | None = None
    sessions: Sessions | None = None
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False)
    remote: RemoteKV | None = None
    encoder: EncoderWork | None = None

    def __len__(self) -> int:
        return int(self.arrival_s.size)

    @property
    def decode_steps_total(self) -> int:
        return int(np.sum(self.output_tokens - 1))

    @property
    def decode_context_mean(self) -> float:
        """Decode-step-weighted mean of P + j over every decode step of every request."""
        g1 = (self.output_tokens - 1).astype(float)
        total = float(g1.sum())
        if total == 0:
            return 0.0
        return float(np.sum(g1 * self.input_tokens + g1 * (g1 - 1) / 2) / total)


def _class_flags(n: int, share: float, order: str, rng: np.random.Generator) -> np.ndarray:
    """True where a request is long-input: exactly round(n·share) of them."""
    if order == "interleave":
        # Bresenham: the running count of long-input requests tracks i·share, so any
        # stretch of the window holds the share (9:1 means 9 of every 10).
        i = np.arange(n + 1)
        count = np.floor(i * share + 1e-9)
        return np.diff(count) > 0
    flags = np.zeros(n, dtype=bool)
    flags[: int(round(n * share))] = True
    rng.shuffle(flags)
    return flags


def _times(start: float, duration: float, rate: float, arrival: str, cv: float,
           rng: np.random.Generator) -> np.ndarray:
    if rate <= 0 or duration <= 0:
        return np.zeros(0)
    if arrival == "even":
        n = int(round(rate * duration))
        return start + np.arange(n) / rate
    # Renewal process with Gamma gaps (shape k = 1/cv², mean 1/rate); cv = 1 is Poisson.
    shape = 1.0 if arrival == "poisson" else 1.0 / (cv * cv)
    expected = rate * duration
    chunk = int(expected + 10 * np.sqrt(expected + 1) + 16)
    gaps = rng.gamma(shape, 1.0 / (rate * shape), size=chunk)
    times = np.cumsum(gaps)
    while times[-1] < duration:  # rare: draw more until past the window's end
        more = np.cumsum(rng.gamma(shape, 1.0 / (rate * shape), size=chunk)) + times[-1]
        times = np.concatenate([times, more])
    return start + times[times < duration]


def windows(durations_s, rates_per_s, shares_long_input, classes: tuple[RequestClass, RequestClass] = (LONG_INPUT, LONG_OUTPUT),
            arrival: str = "even", cv: float = 2.0, seed: int = 0, class_order: str = "interleave") -> Workload:
    """The book's arrival profile: windows of (duration, rate, share of class 0).

    Values as serving.replay's inputs checked them (choices, lengths, the request bound);
    only what the random draw decides (no request at all) is refused here."""
    rng = np.random.default_rng(seed)
    a, b = classes
    times, long_in = [], []
    start = 0.0
    for duration, rate, share in zip(durations_s, rates_per_s, shares_long_input):
        t = _times(start, duration, rate, arrival, cv, rng)
        times.append(t)
        long_in.append(_class_flags(t.size, share, class_order, rng))
        start += duration
    t = np.concatenate(times) if times else np.zeros(0)
    flags = np.concatenate(long_in) if long_in else np.zeros(0, dtype=bool)
    if t.size == 0:
        raise ParamError("rates_per_s", "no request arrives in any window; valid: rate · duration >= 1 somewhere")
    return Workload(
        arrival_s=t,
        input_tokens=np.where(flags, a.input_tokens, b.input_tokens).astype(np.int64),
        output_tokens=np.where(flags, a.output_tokens, b.output_tokens).astype(np.int64),
        label=f"{arrival} arrivals",
    )
