"""§3.1.3 例题 3-1: two request classes mixed at a rate; what each second asks of prefill
and of decode.

A request of P input tokens and G output tokens asks prefill for P new input tokens and
decode for G − 1 steps (the first output token comes from prefill, 图 3-1).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError

MAX_TOKENS = 10_000_000


@dataclass(frozen=True)
class RequestClass:
    """One kind of request: its input and output length in tokens."""

    name: str
    input_tokens: int
    output_tokens: int

    @property
    def decode_steps(self) -> int:
        return self.output_tokens - 1

    @property
    def decode_context_sum(self) -> float:
        """Σ (P + j) over decode steps j = 0..G−2: the context each step starts from."""
        g1 = self.decode_steps
        return g1 * self.input_tokens + g1 * (g1 - 1) / 2


# The book's two classes (例题 3-1).
LONG_INPUT = RequestClass("long_input", 8192, 256)
LONG_OUTPUT = RequestClass("long_output", 1024, 2048)


def class_params(prefix_help: str = "") -> tuple[Param, ...]:
    """The four lengths of the two classes, editable wherever a mix is used."""
    return (
        Param("long_input_in_tokens", "tokens", LONG_INPUT.input_tokens, "long-input class: input tokens (例题 3-1: 8,192)", 1, MAX_TOKENS, kind="int"),
        Param("long_input_out_tokens", "tokens", LONG_INPUT.output_tokens, "long-input class: output tokens (例题 3-1: 256)", 1, MAX_TOKENS, kind="int"),
        Param("long_output_in_tokens", "tokens", LONG_OUTPUT.input_tokens, "long-output class: input tokens (例题 3-1: 1,024)", 1, MAX_TOKENS, kind="int"),
        Param("long_output_out_tokens", "tokens", LONG_OUTPUT.output_tokens, "long-output class: output tokens (例题 3-1: 2,048)", 1, MAX_TOKENS, kind="int"),
    )


def classes_from(values: Mapping[str, Any]) -> tuple[RequestClass, RequestClass]:
    return (
        RequestClass("long_input", int(values["long_input_in_tokens"]), int(values["long_input_out_tokens"])),
        RequestClass("long_output", int(values["long_output_in_tokens"]), int(values["long_output_out_tokens"])),
    )


def mix_rates(rate_per_s: float, share_long_input: float,
              a: RequestClass = LONG_INPUT, b: RequestClass = LONG_OUTPUT) -> dict:
    """Demand per second of a mix: share s of class a, 1 − s of class b, at rate λ."""
    s = share_long_input
    mean_input = s * a.input_tokens + (1 - s) * b.input_tokens
    mean_steps = s * a.decode_steps + (1 - s) * b.decode_steps
    context_sum = s * a.decode_context_sum + (1 - s) * b.decode_context_sum
    return {
        "new_input_tokens_per_s": rate_per_s * mean_input,
        "decode_steps_per_s": rate_per_s * mean_steps,
        "mean_input_tokens": mean_input,
        "mean_decode_steps_per_request": mean_steps,
        # Each decode step reads the KV of the context it starts from, so the mean that
        # sets bytes per step weights each context by the steps spent at it.
        "mean_decode_context_tokens": context_sum / mean_steps if mean_steps > 0 else None,
    }


def _compute(rate_per_s, share_long_input, **classes) -> dict:
    a, b = classes_from(classes)
    return mix_rates(rate_per_s, share_long_input, a, b)


RATE = Param("rate_per_s", "1/s", 4.0, "λ: requests arriving per second (例题 3-1: 4)", 0, 1e6, min_exclusive=True, label="λ")
SHARE = Param("share_long_input", "ratio", 0.5, "share of long-input requests (均匀 0.5; 前一分钟 9:1 = 0.9; 后一分钟 1:9 = 0.1)", 0, 1, label="长输入占比")

MIX = Calculator(
    name="serving.mix",
    title="到达的组合 · what a request mix asks of prefill and decode",
    ref=BookRef("3.1.3", "例题 3-1"),
    params=(RATE, SHARE) + class_params(),
    outputs=(
        Output("new_input_tokens_per_s", "tokens/s", "prompt tokens prefill must take in per second",
               "λ · (s · P_long-in + (1 − s) · P_long-out)"),
        Output("decode_steps_per_s", "steps/s", "decode steps the mix adds per second",
               "λ · (s · (G_long-in − 1) + (1 − s) · (G_long-out − 1))"),
        Output("mean_input_tokens", "tokens", "mean prompt length", "s · P₁ + (1 − s) · P₂"),
        Output("mean_decode_steps_per_request", "steps", "mean decode steps per request", "s · (G₁ − 1) + (1 − s) · (G₂ − 1)"),
        Output("mean_decode_context_tokens", "tokens", "decode-step-weighted mean context P + j",
               "Σ_classes share · Σ_j (P + j) / Σ_classes share · (G − 1)"),
    ),
    compute=_compute,
    book=(
        BookValue("new_input_tokens_per_s", 18432, "均匀混合 18,432 token/s"),
        BookValue("decode_steps_per_s", 4604, "均匀混合 4,604 步/s"),
        BookValue("mean_decode_context_tokens", 2742, "平均上下文按 decode 步加权约 2,742", rel_tol=2e-4),
        BookValue("new_input_tokens_per_s", 29900.8, "前一分钟 (9:1) 29,900.8", params={"share_long_input": 0.9}),
        BookValue("decode_steps_per_s", 1736.8, "前一分钟 (9:1) 1,736.8", params={"share_long_input": 0.9}),
        BookValue("new_input_tokens_per_s", 6963.2, "后一分钟 (1:9) 6,963.2", params={"share_long_input": 0.1}),
        BookValue("decode_steps_per_s", 7471.2, "后一分钟 (1:9) 7,471.2", params={"share_long_input": 0.1}),
    ),
)


def check_positive_decode(values: dict) -> None:
    """A class with G = 1 has no decode step; both classes at G = 1 leave nothing to decode."""
    a, b = classes_from(values)
    if a.decode_steps == 0 and b.decode_steps == 0:
        raise ParamError("long_output_out_tokens", "both classes have 1 output token, so no decode step; valid: >= 2 for one class")


CALCULATORS = (MIX,)
