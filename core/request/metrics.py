"""§3.1.2: what counts as done. TTFT, T_request, T_token; p95 by nearest rank."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError

HOUR = 3600.0


def latency(t_arrival_s: float, t_first_s: float, t_last_s: float, output_tokens: int) -> dict:
    return {
        "ttft_s": t_first_s - t_arrival_s,
        "t_request_s": t_last_s - t_arrival_s,
        # T_token is defined only when there is a gap between tokens to average (G > 1).
        "t_token_s": (t_last_s - t_first_s) / (output_tokens - 1) if output_tokens > 1 else None,
    }


def _check_latency(values: dict) -> None:
    if values["t_first_s"] < values["t_arrival_s"]:
        raise ParamError("t_first_s", f"got {values['t_first_s']:g}; valid: >= t_arrival_s ({values['t_arrival_s']:g})")
    if values["t_last_s"] < values["t_first_s"]:
        raise ParamError("t_last_s", f"got {values['t_last_s']:g}; valid: >= t_first_s ({values['t_first_s']:g})")


def nearest_rank(n: int, q: float) -> int:
    """1-based rank of the q-quantile by nearest rank: ceil(q·n), at least 1.

    The one nearest-rank rule of the lab; everything that ranks observations uses it.
    """
    # q·n carries binary float error: 0.28 · 25 gives 7.000000000000001, which ceil would
    # turn into rank 8. Rounding to 9 decimals first keeps rank 7, as the decimals say.
    return max(1, math.ceil(round(q * n, 9)))


def nearest_rank_value(values: Sequence[float] | np.ndarray, q: float) -> float | None:
    """The observation at the nearest rank ⌈q·n⌉ (1-based, ascending); None with none.

    Works on lists and numpy arrays; selects in O(n) (np.partition) rather than sorting.
    """
    v = np.asarray(values, dtype=float).ravel()
    if v.size == 0:
        return None
    k = nearest_rank(v.size, q) - 1
    return float(np.partition(v, k)[k])


def percentile(values: Sequence[float], q: float) -> dict:
    rank = nearest_rank(len(values), q)
    return {"rank": rank, "value": sorted(values)[rank - 1], "n": len(values)}


@dataclass(frozen=True)
class RequestTimeline:
    """The segments of 图 3-2 for one request (all 示意)."""

    queue_s: float
    prepare_s: float
    prefill_s: float
    thinking_tokens: int
    output_tokens: int
    token_interval_s: float

    @property
    def t_first(self) -> float:
        return self.queue_s + self.prepare_s + self.prefill_s

    @property
    def t_first_useful(self) -> float:
        """Reasoning models: the answer starts after the thinking tokens."""
        return self.t_first + self.thinking_tokens * self.token_interval_s

    @property
    def t_last(self) -> float:
        return self.t_first + (self.thinking_tokens + self.output_tokens - 1) * self.token_interval_s

    def metrics(self) -> dict:
        out = latency(0.0, self.t_first, self.t_last, self.thinking_tokens + self.output_tokens)
        out["first_useful_s"] = self.t_first_useful
        return out

    def segments(self) -> list[tuple[str, float, float]]:
        """(kind, start, end) bars for drawing: queue, prepare, prefill, thinking, decode."""
        t0 = 0.0
        bars = []
        for kind, length in (("queue", self.queue_s), ("prepare", self.prepare_s), ("prefill", self.prefill_s)):
            bars.append((kind, t0, t0 + length))
            t0 += length
        thinking_end = self.t_first_useful
        if self.thinking_tokens:
            bars.append(("thinking", t0, thinking_end))
        bars.append(("decode", thinking_end, self.t_last))
        return bars


def timeline(queue_s: float, prepare_s: float, prefill_s: float, thinking_tokens: int,
             output_tokens: int, token_interval_s: float) -> dict:
    return RequestTimeline(queue_s, prepare_s, prefill_s, thinking_tokens, output_tokens, token_interval_s).metrics()


def illustrative_observations(n: int = 40, seed: int = 7) -> dict[str, np.ndarray]:
    """A made-up batch of requests (示意) where the long wait sits in the queue for a few:
    queue, first response (TTFT) and completion ranked separately show where."""
    rng = np.random.default_rng(seed)
    queue = rng.exponential(0.3, n)
    slow = rng.choice(n, size=max(1, n // 10), replace=False)
    queue[slow] += rng.uniform(4.0, 8.0, slow.size)
    prefill = rng.uniform(0.2, 0.6, n)
    decode = rng.uniform(2.0, 5.0, n)
    ttft = queue + prefill
    return {"queue_s": queue, "ttft_s": ttft, "completion_s": ttft + decode}


LATENCY = Calculator(
    name="metrics.latency",
    title="三个时间指标 · TTFT, T_request, T_token",
    ref=BookRef("3.1.2", "图 3-2"),
    params=(
        Param("t_arrival_s", "s", 0.0, "t_a: the request arrives", 0, 1e7, illustrative=True),
        Param("t_first_s", "s", 1.2, "t_1: the first token comes back", 0, 1e7, illustrative=True),
        Param("t_last_s", "s", 6.0, "t_G: the last token comes back", 0, 1e7, illustrative=True),
        Param("output_tokens", "tokens", 97, "G: tokens returned", 1, 10_000_000, kind="int", illustrative=True),
    ),
    outputs=(
        Output("ttft_s", "s", "how soon it starts answering: queue + input preparation + prefill + return", "t_1 − t_a"),
        Output("t_request_s", "s", "the whole request", "t_G − t_a"),
        Output("t_token_s", "s", "mean gap between output tokens; absent for G = 1", "(t_G − t_1) / (G − 1)"),
    ),
    compute=latency,
    check=_check_latency,
    note="数值为示意 · values are illustrative",
    book=(
        # The book prints no numbers for 图 3-2 (示意); these rows check the definitions.
        BookValue("ttft_s", 1.2, "t1 − ta", derived=True),
        BookValue("t_request_s", 6.0, "tG − ta", derived=True),
        BookValue("t_token_s", 0.05, "(tG − t1)/(G − 1)", derived=True),
    ),
)

TIMELINE = Calculator(
    name="metrics.timeline",
    title="缩短哪一段,只改变包含它的指标 · drag the queue",
    ref=BookRef("3.1.2", "图 3-2"),
    params=(
        Param("queue_s", "s", 0.6, "waiting in the queue", 0, 1e6, illustrative=True),
        Param("prepare_s", "s", 0.2, "input preparation", 0, 1e6, illustrative=True),
        Param("prefill_s", "s", 0.4, "prefill, up to the first token", 0, 1e6, illustrative=True),
        Param("thinking_tokens", "tokens", 0, "reasoning tokens before the first useful output", 0, 1e6, kind="int", illustrative=True),
        Param("output_tokens", "tokens", 97, "answer tokens", 1, 1e7, kind="int", illustrative=True),
        Param("token_interval_s", "s", 0.05, "time between output tokens", 1e-6, 100, illustrative=True),
    ),
    outputs=(
        Output("ttft_s", "s", "", "queue + prepare + prefill"),
        Output("t_request_s", "s", "", "TTFT + (G_all − 1) · interval"),
        Output("t_token_s", "s", "does not move when the queue does", "(t_G − t_1)/(G − 1)"),
        Output("first_useful_s", "s", "reasoning models: when the answer starts", "TTFT + thinking · interval"),
    ),
    compute=timeline,
    note="数值为示意 · values are illustrative",
)

PERCENTILE = Calculator(
    name="metrics.percentile",
    title="p95:最近秩法 · nearest rank",
    ref=BookRef("3.1.2", "p95"),
    params=(
        Param("values", "s", (1.2, 0.8, 3.5, 2.0), "observed latencies, comma-separated (示意)", kind="floats",
              min=0, max=None, illustrative=True),
        Param("q", "", 0.95, "quantile", 0, 1, min_exclusive=True),
    ),
    outputs=(
        Output("rank", "rank", "1-based rank in ascending order", "⌈q · n⌉"),
        Output("value", "s", "the observation at that rank", "x₍⌈q·n⌉₎"),
        Output("n", "count", "number of observations", "n"),
    ),
    compute=percentile,
    book=(
        BookValue("rank", 4, "4 条请求 → 第 4 个(最大值)"),
        BookValue("value", 3.5, "最大值"),
        BookValue("rank", 456, "480 条 → 第 456 个", params={"values": ",".join(str(i) for i in range(1, 481))}),
    ),
)

CALCULATORS = (LATENCY, TIMELINE, PERCENTILE)
