"""§3.1.1: one request = 1 prefill + (G-1) decode steps; 练习 3-1 splits the same output
over several requests."""
from __future__ import annotations

import numpy as np

from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError

MAX_TOKENS = 10_000_000


def decode_contexts(context_tokens: int, input_tokens: int, output_tokens: int) -> np.ndarray:
    """Context already present when decode step j starts: S + P + j, j = 0 .. G-2 (图 3-1)."""
    start = context_tokens + input_tokens
    return start + np.arange(max(output_tokens - 1, 0), dtype=np.int64)


def anatomy(context_tokens: int, input_tokens: int, output_tokens: int) -> dict:
    decode_steps = output_tokens - 1
    first = context_tokens + input_tokens
    return {
        "prefill_calls": 1,
        "decode_steps": decode_steps,
        # With G = 1 there is no decode step at all, so no decode context either.
        "first_decode_context": first if decode_steps > 0 else None,
        "last_decode_context": first + decode_steps - 1 if decode_steps > 0 else None,
    }


def split(requests: int, input_tokens: int, output_tokens_total: int) -> dict:
    per_request = output_tokens_total // requests
    decode_per_request = per_request - 1
    return {
        "output_tokens_per_request": per_request,
        "prefill_calls": requests,
        # Requests in lockstep: their prefills form one batch.
        "prefill_batches": 1,
        "decode_steps_total": requests * decode_per_request,
        # Tokens in each conversation when its last token has come back.
        "end_context_per_request": input_tokens + per_request,
        # One weight read for the batched prefill, then one per lockstep decode step.
        "weight_read_rounds": 1 + decode_per_request,
    }


def _check_split(values: dict) -> None:
    requests, total = values["requests"], values["output_tokens_total"]
    if total % requests != 0:
        raise ParamError("output_tokens_total", f"{total} does not split evenly over {requests} requests; "
                         "valid: a multiple of requests")
    if total < requests:
        raise ParamError("output_tokens_total", f"got {total}; valid: >= requests ({requests}), one token each")


_S = Param("context_tokens", "tokens", 0, "S: context tokens restored from earlier turns", 0, MAX_TOKENS, kind="int", label="S")
_P = Param("input_tokens", "tokens", 1024, "P: new input tokens processed by prefill (练习 3-1: 1,024)", 1, MAX_TOKENS, kind="int", label="P")
_G = Param("output_tokens", "tokens", 1024, "G: tokens returned; the first comes from prefill", 1, MAX_TOKENS, kind="int", label="G")

ANATOMY = Calculator(
    name="request.anatomy",
    title="一次请求的调用链 · one prefill, then G−1 decode steps",
    ref=BookRef("3.1.1", "图 3-1"),
    params=(_S, _P, _G),
    outputs=(
        Output("prefill_calls", "calls", "one prefill handles all P inputs and yields the first token", "1"),
        Output("decode_steps", "steps", "each decode step yields one more token", "G − 1"),
        Output("first_decode_context", "tokens", "context present when decode step j=0 starts", "S + P"),
        Output("last_decode_context", "tokens", "context present when the last decode step starts", "S + P + G − 2"),
    ),
    compute=anatomy,
    book=(
        BookValue("prefill_calls", 1, "1 次 prefill"),
        BookValue("decode_steps", 1023, "G−1 次 decode (G = 1,024)", derived=True),
        BookValue("first_decode_context", 1024, "S+P+j, j=0", derived=True),
        BookValue("last_decode_context", 2046, "S+P+j, j=G−2", derived=True),
    ),
)

SPLIT = Calculator(
    name="request.split",
    title="相同输出总量,请求数不同 · same total output, more requests",
    ref=BookRef("3.1.1", "练习 3-1"),
    params=(
        Param("requests", "requests", 8, "requests generating in lockstep (练习 3-1: 1 vs 8)", 1, 100_000, kind="int"),
        Param("input_tokens", "tokens", 1024, "input tokens of each request (练习 3-1: 1,024)", 1, MAX_TOKENS, kind="int"),
        Param("output_tokens_total", "tokens", 1024, "output tokens over all requests (练习 3-1: 1,024)", 1, MAX_TOKENS, kind="int"),
    ),
    outputs=(
        Output("output_tokens_per_request", "tokens", "", "G_total / n"),
        Output("prefill_calls", "calls", "one prefill per request", "n"),
        Output("prefill_batches", "batches", "lockstep prefills form one batch", "1"),
        Output("decode_steps_total", "steps", "decode steps summed over requests", "n · (G_total/n − 1)"),
        Output("end_context_per_request", "tokens", "tokens in each conversation at the end", "P + G_total/n"),
        Output("weight_read_rounds", "rounds", "requests in lockstep share one weight read per step", "1 + (G_total/n − 1)"),
    ),
    compute=split,
    check=_check_split,
    book=(
        BookValue("decode_steps_total", 1016, "八条各 127 步", derived=True),
        BookValue("weight_read_rounds", 128, "1 批 prefill + 127 步", derived=True),
        BookValue("end_context_per_request", 1152, "1,024 + 128", derived=True),
        BookValue("decode_steps_total", 1023, "一条 1,023 步", params={"requests": 1}, derived=True),
        BookValue("weight_read_rounds", 1024, "1 + 1,023", params={"requests": 1}, derived=True),
        BookValue("end_context_per_request", 2048, "1,024 + 1,024", params={"requests": 1}, derived=True),
    ),
)

CALCULATORS = (ANATOMY, SPLIT)
