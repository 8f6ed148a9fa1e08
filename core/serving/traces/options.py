"""How a trace is read, checked once: the format, the transforms (window, limit,
time_scale) and the filters (BurstGPT's trace_model and trace_log_type, Mooncake's
hash_block_tokens). `trace_options` checks the values and names the field; everything
downstream (load_trace, parse_bytes, the transforms) takes a TraceOptions as it is."""
from __future__ import annotations

from dataclasses import dataclass

from core.registry import ParamError
from core.serving.traces.sniff import check_format
from core.serving.traces.transforms import check_options

MAX_HASH_BLOCK_TOKENS = 1 << 20


@dataclass(frozen=True)
class TraceOptions:
    """Made by trace_options (which checks them); the defaults read the whole file as is."""

    format: str = "auto"
    time_scale: float = 1.0
    window: tuple[float, float] | None = None  # (start_s, end_s) after the first request
    limit: int | None = None  # the first N requests (after window)
    trace_model: str | None = None
    trace_log_type: str | None = None
    hash_block_tokens: int | None = None  # None: Mooncake's 512


def trace_options(format: str = "auto", time_scale: float = 1.0, window=None, limit=None, trace_model=None,
                  trace_log_type=None, hash_block_tokens=None) -> TraceOptions:
    """The options checked; ParamError naming the field and its valid range."""
    check_format(format)
    scale, window, limit = check_options(time_scale, window, limit)
    if hash_block_tokens is not None and (isinstance(hash_block_tokens, bool) or not isinstance(hash_block_tokens, int)
                                          or not 1 <= hash_block_tokens <= MAX_HASH_BLOCK_TOKENS):
        raise ParamError("hash_block_tokens", f"got {hash_block_tokens!r}; valid: a whole number in "
                         f"[1, {MAX_HASH_BLOCK_TOKENS:,}] (Mooncake: 512)")
    return TraceOptions(format, scale, window, limit, trace_model, trace_log_type, hash_block_tokens)


DEFAULT = TraceOptions()
