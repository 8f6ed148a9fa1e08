"""Trace files: one request per row with its arrival time, input tokens and output tokens.

CSV (with a header) or JSON Lines. Column names are matched case-insensitively; the
public BurstGPT trace's names work as they are ("Timestamp", "Request tokens",
"Response tokens"), and its other columns ("Model", "Total tokens", "Log Type") are
ignored. Any other column is an error, so a typo is not silently dropped.

Untrusted files (as vision/loading.py treats images): the file's type and size are
checked before a byte is read (a directory, a fifo, a device such as /dev/zero behind a
symlink, or a file above MAX_TRACE_BYTES is refused), every line and field is bounded
before it is parsed, and every value has a range: tokens up to MAX_TOKENS per field (and,
given the engine's pool, what one request may hold), arrivals up to MAX_ARRIVAL_S. A
refusal is one ParamError('trace', ...) naming the row and the field.
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
import stat
from array import array
from pathlib import Path

import numpy as np

from core.registry import ParamError
from core.serving.mix import MAX_TOKENS
from core.serving.workload import MAX_REQUESTS, Workload
from core.units import MiB

FIELDS = {
    "arrival_s": ("arrival_s", "arrival", "arrival_time", "arrival_time_s", "timestamp", "time", "t"),
    "input_tokens": ("input_tokens", "request tokens", "request_tokens", "prompt_tokens", "input", "p"),
    "output_tokens": ("output_tokens", "response tokens", "response_tokens", "completion_tokens", "output", "g"),
}
IGNORED = ("model", "total tokens", "total_tokens", "log type", "log_type", "id", "request_id", "class")
_LOOKUP = {alias: key for key, aliases in FIELDS.items() for alias in aliases}
_VALID_TEXT = ("columns: arrival_s|timestamp, input_tokens|request tokens, output_tokens|response tokens "
               "(ignored: " + ", ".join(IGNORED) + ")")

MAX_TRACE_BYTES = 256 * MiB  # BurstGPT's 1.4 M rows are about 60 MB
MAX_LINE_CHARS = 4096  # one request's row, ignored columns included
MAX_FIELD_CHARS = 64  # a number of ours is never longer
MAX_ARRIVAL_S = 1e10  # seconds (Unix time until the year 2286); far enough that steps of ms still add up


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


def _number(raw, field: str, row: int, integer: bool, max_tokens: int = MAX_TOKENS) -> float:
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        raise ParamError("trace", f"row {row}: {field} is {_short(raw)}, not a number")
    text = str(raw).strip()
    if len(text) > MAX_FIELD_CHARS:
        raise ParamError("trace", f"row {row}: {field} is {len(text):,} characters long; valid: a number of at most "
                         f"{MAX_FIELD_CHARS} characters")
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise ParamError("trace", f"row {row}: {field} is {_short(raw)}, not a number") from None
    if not math.isfinite(value):
        raise ParamError("trace", f"row {row}: {field} is {_short(raw)}; valid: a finite number")
    if integer:
        if not value.is_integer() or not 1 <= value <= max_tokens:
            raise ParamError("trace", f"row {row}: {field} is {_short(raw)}; valid: a whole number >= 1 and <= {max_tokens:,}")
    elif not 0 <= value <= MAX_ARRIVAL_S:
        raise ParamError("trace", f"row {row}: {field} is {_short(raw)}; valid: [0, {MAX_ARRIVAL_S:.0e}] s")
    return value


def _short(raw) -> str:
    text = repr(raw)
    return text if len(text) <= 40 else text[:37] + "…"


class _Columns:
    """Parsed values of our three fields, in row order, 8 bytes a value."""

    def __init__(self, max_request_tokens: int | None):
        self.t, self.p, self.g = array("d"), array("d"), array("d")
        self.max_request_tokens = max_request_tokens

    def add(self, row: int, arrival, input_tokens, output_tokens) -> None:
        if len(self.t) >= MAX_REQUESTS:
            raise ParamError("trace", f"more than {MAX_REQUESTS:,} rows; valid: at most {MAX_REQUESTS:,}")
        t = _number(arrival, "arrival_s", row, False)
        p = _number(input_tokens, "input_tokens", row, True)
        g = _number(output_tokens, "output_tokens", row, True)
        limit = self.max_request_tokens
        if limit is not None and p + g > limit:
            raise ParamError("trace", f"row {row}: input_tokens + output_tokens = {p + g:,.0f} tokens; valid: at most "
                             f"{limit:,}, what the KV pool holds for one request")
        self.t.append(t)
        self.p.append(p)
        self.g.append(g)

    def workload(self, what: str) -> Workload:
        if not self.t:
            raise ParamError("trace", f"the file has no requests; valid: at least one {what}")
        arrival = np.frombuffer(self.t, dtype=float).copy()
        arrival = arrival - arrival.min()  # times relative to the first request
        order = np.argsort(arrival, kind="stable")
        return Workload(arrival_s=arrival[order], input_tokens=np.frombuffer(self.p, dtype=float).astype(np.int64)[order],
                        output_tokens=np.frombuffer(self.g, dtype=float).astype(np.int64)[order], label="trace")


def parse_rows(rows, names, max_request_tokens: int | None = None) -> Workload:
    """Rows as mappings (column name -> value) with the given column names."""
    mapping = _columns(names)
    cols = _Columns(max_request_tokens)
    for i, row in enumerate(rows, start=1):
        try:
            cols.add(i, row[mapping["arrival_s"]], row[mapping["input_tokens"]], row[mapping["output_tokens"]])
        except (KeyError, IndexError):
            raise ParamError("trace", f"row {i} has fewer fields than the header; valid: one value per column") from None
    return cols.workload("data row")


def _long_line(lines, names: list[str] | None, first_row: int, what: str) -> None:
    """Refuse the first line above MAX_LINE_CHARS, naming the field that makes it long."""
    for i, line in enumerate(lines):
        if len(line) <= MAX_LINE_CHARS:
            continue
        row = first_row + i
        if row == 0:
            raise ParamError("trace", f"the header is {len(line):,} characters long; valid: at most {MAX_LINE_CHARS:,}")
        field = ""
        if names:
            parts = line.split(",")
            k = max(range(len(parts)), key=lambda j: len(parts[j]))
            field = f", its field {names[k]!r} is {len(parts[k]):,} characters" if k < len(names) else ""
        raise ParamError("trace", f"{what} {row} is {len(line):,} characters long{field}; valid: at most "
                         f"{MAX_LINE_CHARS:,} characters a line, {MAX_FIELD_CHARS} a number")


def _parse_jsonl(text: str, max_request_tokens: int | None) -> Workload:
    lines = text.splitlines()
    _long_line(lines, None, 1, "line")
    cols = None
    for i, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:  # JSONDecodeError, or a number Python will not convert
            raise ParamError("trace", f"line {i} is not JSON ({getattr(exc, 'msg', exc)}); valid: one JSON object per line") from None
        if not isinstance(obj, dict):
            raise ParamError("trace", f"line {i} is not a JSON object; valid: one object per line")
        if cols is None:
            mapping = _columns(list(obj))
            cols = _Columns(max_request_tokens)
        else:
            _columns(list(obj))  # every line names the same fields
        if any(name not in obj for name in mapping.values()):
            raise ParamError("trace", f"line {i} lacks a field; valid: every line has arrival, input and output")
        cols.add(i, obj[mapping["arrival_s"]], obj[mapping["input_tokens"]], obj[mapping["output_tokens"]])
    if cols is None:
        raise ParamError("trace", "the file has no requests; valid: at least one JSON line")
    return cols.workload("JSON line")


def _parse_csv(text: str, max_request_tokens: int | None) -> Workload:
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise ParamError("trace", "the file is empty; valid: a CSV header and rows")
    _long_line(lines[:1], None, 0, "row")
    names = next(csv.reader([lines[0]]))
    _long_line(lines[1:], names, 1, "row")
    mapping = _columns(names)
    index = {key: names.index(name) for key, name in mapping.items()}
    cols = _Columns(max_request_tokens)
    reader = csv.reader(io.StringIO(text))
    next(reader)
    try:
        for i, row in enumerate(reader, start=1):
            if not row:
                continue  # a blank line
            if len(row) != len(names):
                raise ParamError("trace", f"row {i} has a different number of fields than the header "
                                 f"({len(row)} for {len(names)})")
            cols.add(i, row[index["arrival_s"]], row[index["input_tokens"]], row[index["output_tokens"]])
    except csv.Error as exc:
        raise ParamError("trace", f"row {reader.line_num - 1} is not valid CSV ({exc}); valid: a CSV header and rows") from None
    return cols.workload("data row")


def parse_text(text: str, fmt: str, max_request_tokens: int | None = None) -> Workload:
    if fmt == "jsonl":
        return _parse_jsonl(text, max_request_tokens)
    return _parse_csv(text, max_request_tokens)


def _read_checked(path: Path) -> bytes:
    """The file's bytes, after checking that it is a regular file of bounded size. Opened
    without blocking and checked again on the open descriptor, so a fifo swapped in after
    the first look does not hang the read."""
    try:
        info = os.stat(path)  # follows symlinks: a link to /dev/zero is a character device
    except FileNotFoundError:
        raise ParamError("trace", f"no file {str(path)!r}; valid: a CSV or JSONL file") from None
    except OSError as exc:
        raise ParamError("trace", f"cannot read {str(path)!r} ({exc.strerror or exc.__class__.__name__}); valid: a readable CSV or JSONL file") from None
    _check_kind(path, info)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise ParamError("trace", f"cannot read {str(path)!r} ({exc.strerror or exc.__class__.__name__}); valid: a readable CSV or JSONL file") from None
    with os.fdopen(fd, "rb") as fh:
        _check_kind(path, os.fstat(fh.fileno()))
        data = fh.read(MAX_TRACE_BYTES + 1)
    if len(data) > MAX_TRACE_BYTES:
        raise ParamError("trace", f"{str(path)!r} is larger than {MAX_TRACE_BYTES:,} bytes; valid: at most {MAX_TRACE_BYTES:,}")
    return data


def _check_kind(path: Path, info: os.stat_result) -> None:
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise ParamError("trace", f"{str(path)!r} is a directory; valid: a CSV or JSONL file")
    if not stat.S_ISREG(mode):
        kind = "a fifo" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else \
            "a socket" if stat.S_ISSOCK(mode) else "not a regular file"
        raise ParamError("trace", f"{str(path)!r} is {kind}; valid: a regular CSV or JSONL file")
    if info.st_size > MAX_TRACE_BYTES:
        raise ParamError("trace", f"{str(path)!r} is {info.st_size:,} bytes; valid: at most {MAX_TRACE_BYTES:,} bytes")


def load_trace(path, max_request_tokens: int | None = None) -> Workload:
    """Read a CSV or JSONL trace; raises ParamError('trace', ...) on anything malformed.

    max_request_tokens: the most tokens one request may hold (input + output), e.g.
    `request_token_limit(config)` for the engine it will run on; None checks only
    MAX_TOKENS per field."""
    path = Path(path)
    data = _read_checked(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParamError("trace", f"{str(path)!r} is not UTF-8 text (byte {exc.start:,}); valid: a UTF-8 CSV or JSONL file") from None
    if not text.strip():
        raise ParamError("trace", f"{str(path)!r} is empty; valid: a CSV or JSONL file with requests")
    fmt = "jsonl" if path.suffix.lower() in (".jsonl", ".ndjson", ".json") or text.lstrip().startswith("{") else "csv"
    return parse_text(text, fmt, max_request_tokens)


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
