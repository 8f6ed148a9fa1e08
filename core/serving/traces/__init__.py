"""Trace files: one request per row with its arrival time, input tokens and output tokens,
read as the public traces ship.

Formats (FORMATS; format="auto" sniffs the header or the first JSON line):
  csv         our columns (aliases: timestamp, request tokens, ...), as written by write_trace
  jsonl       the same fields, one JSON object per line
  azure       Azure LLM inference 2023 / 2024 (TIMESTAMP date-time, ContextTokens, GeneratedTokens)
  burstgpt    BurstGPT as downloaded (failed rows with Response tokens 0 left out and counted)
  mooncake    Mooncake / AIPerf mooncake_trace JSONL (timestamp ms, hash_ids -> Workload.prefix); rows
              with session_id (AIPerf's multi-turn form, delay ms) are sessions (mooncake_sessions.py)
  vidur       Vidur's trace CSV (arrived_at, num_prefill_tokens, num_decode_tokens)
  vllm_bench  a `vllm bench serve --save-result` JSON (measured ttfts/itls in meta["measured"])
  sessions    multi-turn sessions JSONL -> Workload(sessions=Sessions(...)) (see sessions.py)
  bailian     Alibaba's Bailian usage traces as AIPerf reads them (timestamp s, each row its whole
              context, hash_ids of 16 tokens -> Workload.prefix; bailian.py)
  baseten     Baseten's completion traces, Parquet, as AIPerf reads them (timestamp_start_unix_ms,
              input_tokens, output_tokens, total_hashes per block_size tokens; baseten.py)
AIPerf's text-only layouts (single_turn, multi_turn, random_pool, mooncake_trace with
text_input) are refused naming the missing input_length (aiperf_text.py).
Transforms (transforms.py): window=(start_s, end_s), then limit=rows, then time_scale
(2 = arrivals twice as fast).

meta of the Workload: "format", "rows" (data rows read), "requests" (kept), "dropped"
{reason: rows}, "span_s", "time_scale", "window", "limit"; vllm_bench adds "measured"
{"ttfts_s", "itls_s"}, "request_rate", "burstiness", "max_concurrency", "duration_s",
"model_id", "arrivals"; sessions adds "sessions" (their count); a file over the size limit
read for limit=N (its first N rows only) adds "head_of_file" {"bytes_read", "file_bytes"}.

Untrusted files: guard.py checks type and size before reading; every line, field and value
is bounded; a refusal is one ParamError('trace', ...) naming the file, row and field.
"""
from __future__ import annotations

import csv
import dataclasses
from pathlib import Path

from core.cancel import NEVER
from core.registry import ParamError
from core.serving.traces import baseten, guard, mooncake_sessions
from core.serving.traces.bailian import read_bailian
from core.serving.traces.baseten import read_baseten
from core.serving.traces.guard import MAX_ARRIVAL_S, MAX_FIELD_CHARS, MAX_LINE_CHARS
from core.serving.traces.jsonlines import read_jsonl
from core.serving.traces.options import DEFAULT as DEFAULT_OPTIONS
from core.serving.traces.options import MAX_HASH_BLOCK_TOKENS, TraceOptions, trace_options
from core.serving.traces.sessions import read_sessions
from core.serving.traces.sniff import FORMATS, JSON_FORMATS, sniff
from core.serving.traces.tabular import read_csv
from core.serving.traces.transforms import finish
from core.serving.traces.vllm_bench import read_vllm_bench
from core.serving.workload import Workload

MAX_TRACE_BYTES = guard.MAX_TRACE_BYTES  # read at each load, so a test may lower it

__all__ = ["FORMATS", "MAX_ARRIVAL_S", "MAX_FIELD_CHARS", "MAX_HASH_BLOCK_TOKENS", "MAX_LINE_CHARS", "MAX_TRACE_BYTES",
           "TraceOptions", "load_trace", "parse_bytes", "parse_text", "request_token_limit", "sniff", "trace_options",
           "write_trace"]


def load_trace(path, max_request_tokens: int | None = None, *, format: str = "auto", time_scale: float = 1.0,
               window=None, limit: int | None = None, trace_model=None, trace_log_type=None,
               hash_block_tokens: int | None = None, options: TraceOptions | None = None, progress=None,
               cancel=NEVER) -> Workload:
    """Read a trace file; raises ParamError('trace', ...) on anything malformed (or naming
    the option: format, window, limit, time_scale, trace_model, trace_log_type,
    hash_block_tokens).

    max_request_tokens: the most tokens one request may hold (input + output), e.g.
    `request_token_limit(config)` for the engine it will run on; None checks only MAX_TOKENS
    per field. time_scale=2 makes arrivals twice as fast; window=(start_s, end_s) keeps the
    requests arriving then (seconds from the first request), limit the first n requests.
    options: the same, checked already (trace_options) in place of the keywords.
    progress(fraction) is called a few dozen times at most; cancel (a CancelToken) is
    checked between blocks of rows."""
    path = Path(path)
    options = _options(options, format, time_scale, window, limit, trace_model, trace_log_type, hash_block_tokens)
    rows = options.limit
    # limit=N on a file over the size limit reads its first N rows (+ a CSV header): the
    # one-week Azure 2024 files are 17 M and 27 M rows, time-ordered.
    data, head = guard.read_checked(path, MAX_TRACE_BYTES, None if rows is None else rows + 1)
    kind = options.format if options.format != "auto" or not head else sniff(data)
    if head and (kind in ("sessions", "vllm_bench", "baseten") or kind == "mooncake" and mooncake_sessions.has_sessions(data)):
        why = "a Parquet file is read whole: its footer, at its end, says where the rows are" if kind == "baseten" \
            else "limit= reads the head of a larger file only for one request per row"
        raise ParamError("trace", f"{path.name}: {path.stat().st_size:,} bytes; valid: at most {MAX_TRACE_BYTES:,} "
                         f"bytes ({why})")
    work = _parse(data, path.name, options, max_request_tokens, progress, cancel)
    if head:  # said in the summary: not the whole file
        work = dataclasses.replace(work, meta={**work.meta, "head_of_file": {"bytes_read": len(data),
                                                                             "file_bytes": path.stat().st_size}})
    return work


def parse_text(text: str, fmt: str = "auto", max_request_tokens: int | None = None, **options) -> Workload:
    """A trace's text (options as load_trace's)."""
    return parse_bytes(text.encode("utf-8"), "text", fmt, max_request_tokens, **options)


def parse_bytes(data: bytes, name: str, fmt: str = "auto", max_request_tokens: int | None = None, *,
                time_scale: float = 1.0, window=None, limit=None, trace_model=None, trace_log_type=None,
                hash_block_tokens: int | None = None, options: TraceOptions | None = None, progress=None,
                cancel=NEVER) -> Workload:
    """A trace's bytes (options as load_trace's)."""
    options = _options(options, fmt, time_scale, window, limit, trace_model, trace_log_type, hash_block_tokens)
    return _parse(data, name, options, max_request_tokens, progress, cancel)


def _options(options: TraceOptions | None, *keywords) -> TraceOptions:
    """The checked options: given, or made from the keywords (not both)."""
    if options is None:
        return trace_options(*keywords)
    if tuple(keywords) != dataclasses.astuple(DEFAULT_OPTIONS):
        raise TypeError("give the trace's options either as options= or as keywords, not both")
    return options


def _parse(data: bytes, name: str, options: TraceOptions, max_request_tokens: int | None, progress,
           cancel) -> Workload:
    report = _Progress(progress)
    fmt, trace_model, trace_log_type = options.format, options.trace_model, options.trace_log_type
    hash_block_tokens = options.hash_block_tokens
    try:
        if fmt == "baseten" or fmt == "auto" and baseten.looks_like(data):  # Parquet: binary, no text checks
            return _parquet(data, name, options, max_request_tokens, report)
        guard.decode_check(data, name)
        if not data or data.isspace():
            raise guard.fail("the file is empty; valid: a trace file with requests")
        kind = sniff(data) if fmt == "auto" else fmt
        if kind == "baseten":  # text that starts with Parquet's magic bytes: _parquet says what is wrong
            return _parquet(data, name, options, max_request_tokens, report)
        if hash_block_tokens is not None and kind != "mooncake":  # given for a trace that has no hash_ids
            raise ParamError("hash_block_tokens", f"a trace of format {kind} has no hash_ids; valid: only for Mooncake traces")
        if kind in JSON_FORMATS:
            for value, param in ((trace_model, "trace_model"), (trace_log_type, "trace_log_type")):
                if value is not None:
                    raise ParamError(param, f"a {kind} trace has no such column; valid: only for BurstGPT traces")
            if kind == "vllm_bench":
                parsed = read_vllm_bench(data.decode("utf-8-sig"))
            elif kind == "sessions":
                parsed = read_sessions(data.decode("utf-8-sig"), report.part(0.9), cancel)
            elif kind == "bailian":
                parsed = read_bailian(data.decode("utf-8-sig"), report.part(0.9), cancel)
            elif kind == "mooncake" and mooncake_sessions.has_sessions(data):  # AIPerf's multi-turn form
                parsed = mooncake_sessions.read_mooncake_sessions(data.decode("utf-8-sig"), report.part(0.9), cancel)
            else:  # bytes: a large file may not need its text (jsonlines.read_jsonl)
                parsed = read_jsonl(data, kind, hash_block_tokens or 512, report.part(0.9), cancel)
        else:
            parsed = read_csv(data, kind, trace_model, trace_log_type, report.part(0.9), cancel)
        cancel.check()
        work = finish(parsed, max_request_tokens, options.time_scale, options.window, options.limit, checked=True)
    except ParamError as exc:
        if exc.param == "trace" and not exc.message.startswith(f"{name}: "):
            raise ParamError("trace", f"{name}: {exc.message}") from None
        raise
    report(1.0)
    return work


def _parquet(data: bytes, name: str, options: TraceOptions, max_request_tokens: int | None, report) -> Workload:
    """A Baseten trace (baseten.py): only the transforms apply of the options."""
    for value, param in ((options.trace_model, "trace_model"), (options.trace_log_type, "trace_log_type"),
                         (options.hash_block_tokens, "hash_block_tokens")):
        if value is not None:
            raise ParamError(param, "a baseten trace has no such column; valid: without it (its block_size "
                             "column gives the tokens a hash covers)")
    if not baseten.looks_like(data):
        raise guard.fail("not a Parquet file (no PAR1 at its start and end); valid: a Baseten trace Parquet file")
    parsed = read_baseten(data, report.part(0.9))
    work = finish(parsed, max_request_tokens, options.time_scale, options.window, options.limit, checked=True)
    report(1.0)
    return work


class _Progress:
    """progress(fraction), never backwards, and quiet when no callback was given."""

    def __init__(self, callback):
        self.callback, self.last = callback, -1.0

    def __call__(self, fraction: float) -> None:
        if self.callback is not None and fraction > self.last:
            self.last = fraction
            self.callback(fraction)

    def part(self, share: float):
        return None if self.callback is None else (lambda f: self(f * share))


def request_token_limit(config) -> int:
    """Tokens one request can hold in an engine's KV pool (its blocks times block size)."""
    return int(config.num_blocks) * int(config.block_size)


def write_trace(path, workload: Workload) -> None:
    """Write a workload as CSV (arrival_s, input_tokens, output_tokens)."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["arrival_s", "input_tokens", "output_tokens"])
        for t, p, g in zip(workload.arrival_s, workload.input_tokens, workload.output_tokens):
            w.writerow([f"{t:.6f}", int(p), int(g)])
