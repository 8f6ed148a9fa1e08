"""Which format a trace is, from its first line: a CSV header (tabular.sniff names the
layout) or a JSON object (its keys name it); a file that is one JSON object over several
lines can only be a vllm bench serve result."""
from __future__ import annotations

import json

from core.registry import ParamError
from core.serving.traces import aiperf_text, bailian, baseten, mooncake_sessions, sessions, vllm_bench
from core.serving.traces.columns import CsvText
from core.serving.traces.guard import fail
from core.serving.traces.jsonlines import MOONCAKE_KEYS
from core.serving.traces.tabular import IMAGES
from core.serving.traces.tabular import sniff as sniff_header

FORMATS = ("auto", "csv", "jsonl", "azure", "burstgpt", "mooncake", "vidur", "vllm_bench", "sessions", "bailian",
           "baseten")
JSON_FORMATS = ("jsonl", "mooncake", "vllm_bench", "sessions", "bailian")
_FIRST_LINE_BYTES = 1 << 20


def check_format(fmt) -> str:
    if fmt not in FORMATS:
        raise ParamError("format", f"got {fmt!r}; valid: {', '.join(FORMATS)}")
    return fmt


def json_kind(obj) -> str:
    if vllm_bench.looks_like(obj):
        return "vllm_bench"
    if sessions.looks_like(obj):
        return "sessions"
    if bailian.looks_like(obj):
        return "bailian"
    if isinstance(obj, dict) and "input_length" in obj and (set(obj) - {IMAGES} <= set(MOONCAKE_KEYS)
                                                          or mooncake_sessions.looks_like(obj)):
        return "mooncake"
    return "jsonl"


def sniff(data: bytes) -> str:
    """The format of a file's bytes (BOM and leading blank lines skipped)."""
    if data.startswith(baseten.MAGIC):  # Parquet: binary, read by pyarrow (baseten.py)
        return "baseten"
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    head = body[:_FIRST_LINE_BYTES].lstrip()  # a prefix: no copy of a large file
    if not head:
        raise fail("the file is empty; valid: a trace file with requests")
    if head[:1] == b"[":
        raise fail("the file is a JSON array; valid: JSON Lines (one object per line) or a vllm bench serve result")
    if head[:1] != b"{":
        return sniff_header(CsvText(head[: head.find(b"\n") + 1 if b"\n" in head else len(head)]).names)
    first = head.split(b"\n", 1)[0]
    try:
        obj = json.loads(first)
    except ValueError:
        obj = None
    if obj is None:  # one object over several lines (an indented result file)
        try:
            obj = json.loads(body)
        except ValueError as exc:
            raise fail(f"line 1 is not JSON ({getattr(exc, 'msg', exc)}); valid: one JSON object per line, "
                       "or a vllm bench serve result") from None
        if not vllm_bench.looks_like(obj):
            raise fail("one JSON object that is not a vllm bench serve result; valid: JSON Lines or such a result")
        return "vllm_bench"
    kind = json_kind(obj)
    if kind == "jsonl":  # AIPerf's text-only layouts: refused naming the missing length
        skipped = body[: min(len(body), _FIRST_LINE_BYTES) - len(head)]
        aiperf_text.refuse(obj, skipped.count(b"\n") + 1)
    return kind
