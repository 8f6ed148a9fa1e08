"""Trace files: one request per row with its arrival time, input tokens and output tokens.

CSV (with a header) or JSON Lines. Column names are matched case-insensitively; the
public BurstGPT trace's names work as they are ("Timestamp", "Request tokens",
"Response tokens"), and its other columns ("Model", "Total tokens", "Log Type") are
ignored. Any other column is an error, so a typo is not silently dropped.
"""
from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import numpy as np

from core.registry import ParamError
from core.serving.workload import MAX_REQUESTS, Workload

FIELDS = {
    "arrival_s": ("arrival_s", "arrival", "arrival_time", "arrival_time_s", "timestamp", "time", "t"),
    "input_tokens": ("input_tokens", "request tokens", "request_tokens", "prompt_tokens", "input", "p"),
    "output_tokens": ("output_tokens", "response tokens", "response_tokens", "completion_tokens", "output", "g"),
}
IGNORED = ("model", "total tokens", "total_tokens", "log type", "log_type", "id", "request_id", "class")
_LOOKUP = {alias: key for key, aliases in FIELDS.items() for alias in aliases}
_VALID_TEXT = ("columns: arrival_s|timestamp, input_tokens|request tokens, output_tokens|response tokens "
               "(ignored: " + ", ".join(IGNORED) + ")")


def _columns(names) -> dict[str, str]:
    """Map each of our fields to the file's column name; reject unknown columns."""
    mapping: dict[str, str] = {}
    for name in names:
        norm = str(name).strip().lower()
        if norm in IGNORED:
            continue
        key = _LOOKUP.get(norm)
        if key is None:
            raise ParamError("trace", f"unknown column {name!r}; valid {_VALID_TEXT}")
        if key in mapping:
            raise ParamError("trace", f"columns {mapping[key]!r} and {name!r} both give {key}; valid: one of them")
        mapping[key] = name
    missing = [k for k in FIELDS if k not in mapping]
    if missing:
        raise ParamError("trace", f"missing column {', '.join(missing)}; valid {_VALID_TEXT}")
    return mapping


def _number(raw, field: str, row: int, integer: bool) -> float:
    try:
        value = float(str(raw).strip())
    except (TypeError, ValueError):
        raise ParamError("trace", f"row {row}: {field} is {raw!r}, not a number") from None
    if not math.isfinite(value):
        raise ParamError("trace", f"row {row}: {field} is {raw!r}; valid: a finite number")
    if integer:
        if not value.is_integer() or value < 1:
            raise ParamError("trace", f"row {row}: {field} is {raw!r}; valid: a whole number >= 1")
    elif value < 0:
        raise ParamError("trace", f"row {row}: {field} is {raw!r}; valid: >= 0 s")
    return value


def parse_rows(rows, names) -> Workload:
    mapping = _columns(names)
    t, p, g = [], [], []
    for i, row in enumerate(rows, start=1):
        if len(t) >= MAX_REQUESTS:
            raise ParamError("trace", f"more than {MAX_REQUESTS:,} rows; valid: at most {MAX_REQUESTS:,}")
        try:
            t.append(_number(row[mapping["arrival_s"]], "arrival_s", i, False))
            p.append(_number(row[mapping["input_tokens"]], "input_tokens", i, True))
            g.append(_number(row[mapping["output_tokens"]], "output_tokens", i, True))
        except (KeyError, IndexError):
            raise ParamError("trace", f"row {i} has fewer fields than the header; valid: one value per column") from None
    if not t:
        raise ParamError("trace", "the file has no requests; valid: at least one data row")
    arrival = np.asarray(t)
    arrival = arrival - arrival.min()  # times relative to the first request
    order = np.argsort(arrival, kind="stable")
    return Workload(arrival_s=arrival[order], input_tokens=np.asarray(p, np.int64)[order],
                    output_tokens=np.asarray(g, np.int64)[order], label="trace")


def parse_text(text: str, fmt: str) -> Workload:
    if fmt == "jsonl":
        rows = []
        for i, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ParamError("trace", f"line {i} is not JSON ({exc.msg}); valid: one JSON object per line") from None
            if not isinstance(obj, dict):
                raise ParamError("trace", f"line {i} is not a JSON object; valid: one object per line")
            rows.append(obj)
        if not rows:
            raise ParamError("trace", "the file has no requests; valid: at least one JSON line")
        names = list(dict.fromkeys(k for obj in rows for k in obj))
        for i, obj in enumerate(rows, start=1):
            if any(name not in obj for name in _columns(names).values()):
                raise ParamError("trace", f"line {i} lacks a field; valid: every line has arrival, input and output")
        return parse_rows(rows, names)
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames:
        raise ParamError("trace", "the file is empty; valid: a CSV header and rows")
    rows = list(reader)
    for i, row in enumerate(rows, start=1):
        if None in row or any(v is None for v in row.values()):
            raise ParamError("trace", f"row {i} has a different number of fields than the header")
    return parse_rows(rows, reader.fieldnames)


def load_trace(path) -> Workload:
    """Read a CSV or JSONL trace; raises ParamError('trace', ...) on anything malformed."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ParamError("trace", f"no file {str(path)!r}; valid: a CSV or JSONL file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ParamError("trace", f"cannot read {str(path)!r} ({exc.__class__.__name__}); valid: a UTF-8 CSV or JSONL file") from None
    if not text.strip():
        raise ParamError("trace", f"{str(path)!r} is empty; valid: a CSV or JSONL file with requests")
    fmt = "jsonl" if path.suffix.lower() in (".jsonl", ".ndjson", ".json") or text.lstrip().startswith("{") else "csv"
    return parse_text(text, fmt)


def write_trace(path, workload: Workload) -> None:
    """Write a workload as CSV (arrival_s, input_tokens, output_tokens)."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["arrival_s", "input_tokens", "output_tokens"])
        for t, p, g in zip(workload.arrival_s, workload.input_tokens, workload.output_tokens):
            w.writerow([f"{t:.6f}", int(p), int(g)])
