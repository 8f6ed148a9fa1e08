"""Untrusted trace files: the checks made before a byte is parsed, and the bounds every value
must fit.

The file's type and size are checked before it is read (a directory, a fifo, a device such
as /dev/zero behind a symlink, or a file above the size limit is refused), then again on
the open descriptor, so a fifo swapped in after the first look does not hang the read.
Every line and field is bounded before it is parsed and every value has a range; a refusal
is one ParamError('trace', ...) naming the row and the field.
"""
from __future__ import annotations

import math
import os
import stat
from pathlib import Path

import numpy as np

from core.registry import ParamError
from core.serving.mix import MAX_TOKENS
from core.units import MiB

MAX_TRACE_BYTES = 256 * MiB  # BurstGPT_1's 1.43 M rows are about 60 MB
MAX_LINE_CHARS = 4096  # one request's row, ignored columns included (hash_ids lines: see jsonlines)
MAX_FIELD_CHARS = 64  # a number of ours is never longer
MAX_ARRIVAL_S = 1e10  # seconds (Unix time until the year 2286); far enough that steps of ms still add up
_KINDS = "a CSV, JSONL or JSON trace file"


def fail(message: str) -> ParamError:
    return ParamError("trace", message)


def short(raw) -> str:
    """A value as the message shows it: repr, at most 40 characters, bytes shown as text."""
    if isinstance(raw, (bytes, bytearray)):
        raw = bytes(raw).decode("utf-8", "replace")
    text = repr(raw)
    return text if len(text) <= 40 else text[:37] + "…"


def valid_text(integer: bool, max_tokens: int = MAX_TOKENS) -> str:
    return f"a whole number >= 1 and <= {max_tokens:,}" if integer else f"[0, {MAX_ARRIVAL_S:.0e}] s"


def parse_number(raw, field: str, row: int, valid: str, word: str = "row") -> float:
    """A number of bounded length that is finite, or a refusal naming the row and field."""
    if isinstance(raw, (bytes, bytearray)):
        raw = bytes(raw).decode("utf-8", "replace")
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        raise fail(f"{word} {row}: {field} is {short(raw)}, not a number; valid: {valid}")
    text = str(raw).strip()
    if len(text) > MAX_FIELD_CHARS:
        raise fail(f"{word} {row}: {field} is {len(text):,} characters long; valid: a number of at most "
                   f"{MAX_FIELD_CHARS} characters")
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise fail(f"{word} {row}: {field} is {short(raw)}, not a number; valid: {valid}") from None
    if not math.isfinite(value):
        raise fail(f"{word} {row}: {field} is {short(raw)}; valid: a finite number, {valid}")
    return value


def number(raw, field: str, row: int, integer: bool, max_tokens: int = MAX_TOKENS, word: str = "row") -> float:
    """One value checked as the per-row parser always did: parse_number, then a whole number
    of tokens in [1, max_tokens] or an arrival in [0, MAX_ARRIVAL_S]."""
    valid = valid_text(integer, max_tokens)
    value = parse_number(raw, field, row, valid, word)
    if integer:
        if not value.is_integer() or not 1 <= value <= max_tokens:
            raise fail(f"{word} {row}: {field} is {short(raw)}; valid: {valid}")
    elif not 0 <= value <= MAX_ARRIVAL_S:
        raise fail(f"{word} {row}: {field} is {short(raw)}; valid: {valid}")
    return value


def check_tokens(values: np.ndarray, field: str, rows: np.ndarray, raw, word: str = "row") -> np.ndarray:
    """Whole numbers in [1, MAX_TOKENS], as int64; the first value out of range is refused
    through number() with its raw text (raw(i) gives the i-th value as the file wrote it)."""
    ok = (values >= 1) & (values <= MAX_TOKENS) & (values == np.floor(values))
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        number(raw(i), field, int(rows[i]), True, word=word)
    return values.astype(np.int64)


def check_arrivals(values: np.ndarray, field: str, rows: np.ndarray, raw, word: str = "row") -> np.ndarray:
    ok = (values >= 0) & (values <= MAX_ARRIVAL_S)  # nan fails both
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        number(raw(i), field, int(rows[i]), False, word=word)
    return values


def read_checked(path: Path, limit: int, head_lines: int | None = None) -> tuple[bytes, bool]:
    """(the file's bytes, whether they are only its head), after checking that it is a
    regular file of at most `limit` bytes. Opened without blocking and checked again on
    the open descriptor. With head_lines, a larger file is read up to the end of its
    head_lines-th line instead, if that comes within `limit` bytes."""
    try:
        info = os.stat(path)  # follows symlinks: a link to /dev/zero is a character device
    except FileNotFoundError:
        raise fail(f"no file {str(path)!r}; valid: {_KINDS}") from None
    except OSError as exc:
        raise fail(f"cannot read {str(path)!r} ({exc.strerror or exc.__class__.__name__}); valid: a readable trace file") from None
    _check_kind(path, info, limit if head_lines is None else None)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise fail(f"cannot read {str(path)!r} ({exc.strerror or exc.__class__.__name__}); valid: a readable trace file") from None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        _check_kind(path, info, limit if head_lines is None else None)
        if head_lines is not None and info.st_size > limit:
            return _head(fh, path, info.st_size, limit, head_lines), True
        data = fh.read(info.st_size + 1)  # its size, not the limit: no 256 MiB buffer for a small file
        if len(data) > info.st_size:  # it grew since: read on, up to the limit
            data += fh.read(limit + 1 - len(data))
    if len(data) > limit:
        raise fail(f"{str(path)!r} is larger than {limit:,} bytes; valid: at most {limit:,}")
    return data, False


def _head(fh, path: Path, size: int, limit: int, lines: int) -> bytes:
    """The file's first `lines` lines, read in 8 MiB steps; refused if they pass `limit` bytes."""
    parts, newlines, read = [], 0, 0
    while read < limit:
        chunk = fh.read(min(8 * MiB, limit - read))
        if not chunk:
            break
        count = chunk.count(b"\n")
        if newlines + count >= lines:  # the lines-th newline is in this chunk: cut just after it
            cut = -1
            for _ in range(lines - newlines):
                cut = chunk.index(b"\n", cut + 1)
            parts.append(chunk[:cut + 1])
            return b"".join(parts)
        parts.append(chunk)
        newlines += count
        read += len(chunk)
    raise fail(f"{str(path)!r} is {size:,} bytes and its first {lines:,} lines pass {limit:,} bytes; valid: "
               f"a smaller limit=, or a file of at most {limit:,} bytes")


def _check_kind(path: Path, info: os.stat_result, limit: int | None) -> None:
    """A regular file of at most limit bytes (None: any size, its head is read)."""
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise fail(f"{str(path)!r} is a directory; valid: {_KINDS}")
    if not stat.S_ISREG(mode):
        kind = "a fifo" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else \
            "a socket" if stat.S_ISSOCK(mode) else "not a regular file"
        raise fail(f"{str(path)!r} is {kind}; valid: a regular file, {_KINDS}")
    if limit is not None and info.st_size > limit:
        raise fail(f"{str(path)!r} is {info.st_size:,} bytes; valid: at most {limit:,} bytes; limit=N reads "
                   "only a larger file's first N rows (Azure 2024's one-week files hold 17 M and 27 M rows), "
                   "window= applies after reading")


def decode_check(data: bytes, name: str) -> None:
    """Refuse bytes that are not UTF-8 text, naming the first bad byte."""
    if data.isascii():
        return
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise fail(f"{name!r} is not UTF-8 text (byte {exc.start:,}); valid: a UTF-8 trace file") from None
