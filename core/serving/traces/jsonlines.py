"""JSON Lines traces: our own fields (the CSV aliases) and Mooncake / AIPerf mooncake_trace.

The whole file is parsed by one json.loads of its lines joined into an array; only if that
fails, or a line is not one object, are the lines parsed one by one to name the bad one.

mooncake: {"timestamp": ms, "input_length": n, "output_length": n, "hash_ids": [int, ...]}
with one hash id per hash_block_tokens prompt tokens (512 in Mooncake's release), so a
line has ceil(input_length / hash_block_tokens) ids; the ids are kept as PrefixBlocks.
AIPerf also takes rows with no timestamp (its load generator sends them, by --concurrency or
--request-rate): read as all arriving at 0 s in file order (meta["timestamps"] says so), so
max_concurrency=N replays AIPerf's --concurrency N.
"""
from __future__ import annotations

import json
from itertools import chain

import numpy as np

from core.cancel import NEVER
from core.serving.traces import aiperf_text, arrow_lines
from core.serving.traces.columns import _newlines
from core.serving.traces.guard import MAX_LINE_CHARS, check_arrivals, check_tokens, fail, number, short
from core.serving.traces.images import parse_cell
from core.serving.traces.tabular import FIELDS, IMAGES, generic_columns
from core.serving.traces.transforms import Parsed
from core.serving.workload import MAX_REQUESTS

MAX_HASH_LINE_CHARS = 1 << 20  # a line with hash_ids: 10 M tokens / 16-token blocks, ids of 8 digits
BLOCK_LINES = 65_536  # lines parsed into Python objects at a time (json path)
MOONCAKE_KEYS = ("timestamp", "input_length", "output_length", "hash_ids")
# AIPerf's mooncake_trace rows without a timestamp go out by its --concurrency or --request-rate.
NO_TIMESTAMPS = ("none: every request arrives at 0 s, in file order; max_concurrency=N sends them N at a time, "
                 "as AIPerf's --concurrency N (dataset=trace_lengths lengths=FILE request_rate=R resamples them "
                 "at a rate)")
_ID_LIMIT = 1 << 62


def split_lines(text: str, max_chars: int) -> tuple[list[str], list[int]]:
    """Non-blank lines and their 1-based line numbers, each bounded in length."""
    lines, numbers = [], []
    for i, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            if len(line) > max_chars:
                raise fail(f"line {i} is {len(line):,} characters long; valid: at most {max_chars:,} characters a line")
            lines.append(line)
            numbers.append(i)
    if len(lines) > MAX_REQUESTS:
        raise fail(f"more than {MAX_REQUESTS:,} rows; valid: at most {MAX_REQUESTS:,}")
    return lines, numbers


def parse_objects(lines: list[str], numbers: list[int]) -> list[dict]:
    """One JSON object per line: one parse for the whole file, line by line only to name a bad one."""
    try:
        objs = json.loads("[" + ",".join(lines) + "]")
        if len(objs) == len(lines) and all(type(o) is dict for o in objs):
            return objs
    except (ValueError, RecursionError):
        pass
    for line, i in zip(lines, numbers):
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError, or a number Python will not convert
            raise fail(f"line {i} is not JSON ({getattr(exc, 'msg', exc)}); valid: one JSON object per line") from None
        if not isinstance(obj, dict):
            raise fail(f"line {i} is not a JSON object; valid: one object per line")
    raise fail("the lines do not parse as one object each; valid: one JSON object per line")


def values(objs: list[dict], key: str, label: str, rows: np.ndarray, integer: bool) -> np.ndarray:
    """float64 of one field of every object; anything but a finite plain number is refused
    by guard.number with its row (a string holding a number passes, as it always did)."""
    vals = [o.get(key) for o in objs]
    kinds = set(map(type, vals))
    out = None
    if kinds <= {int, float}:
        try:
            out = np.array(vals, dtype=float)
        except OverflowError:
            out = None
    if out is None:
        out = np.array([number(v, label, int(r), integer) for v, r in zip(vals, rows)], dtype=float)
    return out


def read_jsonl(data, fmt: str = "jsonl", hash_block_tokens: int = 512, progress=None, cancel=NEVER) -> Parsed:
    """data: the file's bytes (or its text). A large plain file is read by pyarrow
    (arrow_lines.py); otherwise, or if that declines, line by line with json."""
    max_chars = MAX_HASH_LINE_CHARS if fmt == "mooncake" else MAX_LINE_CHARS
    if isinstance(data, bytes) and len(data) >= arrow_lines.MIN_BYTES:
        parsed = _read_arrow(data, fmt, hash_block_tokens, max_chars)
        if parsed is not None:
            cancel.check()
            return parsed
    text = data.decode("utf-8-sig") if isinstance(data, bytes) else data
    lines, numbers = split_lines(text, max_chars)
    del text
    if not lines:
        raise fail("the file has no requests; valid: at least one JSON line")
    # In blocks: a large file never holds a Python object per line and per hash id at once.
    state: dict = {}
    parts = []
    for a in range(0, len(lines), BLOCK_LINES):
        objs = parse_objects(lines[a:a + BLOCK_LINES], numbers[a:a + BLOCK_LINES])
        rows = np.array(numbers[a:a + BLOCK_LINES], dtype=np.int64)
        parts.append(_mooncake(objs, rows, hash_block_tokens, state) if fmt == "mooncake" else _plain(objs, rows, state))
        del objs
        cancel.check()
        if progress is not None:
            progress(min(a + BLOCK_LINES, len(lines)) / len(lines))
    return parts[0] if len(parts) == 1 else _joined(parts)


def _plain(objs: list[dict], rows: np.ndarray, state: dict) -> Parsed:
    """Our own fields (the CSV aliases), named the same on every line."""
    for keys in {frozenset(o) for o in objs}:
        mapping = generic_columns(sorted(keys))
        first = state.setdefault("mapping", mapping)
        if mapping != first:
            raise fail(f"lines name their fields differently ({sorted(first.values())} and "
                       f"{sorted(mapping.values())}); valid: the same field names on every line")
    mapping = state["mapping"]
    cols = {mapping[k]: values(objs, mapping[k], k, rows, k != "arrival_s") for k in FIELDS}
    raw = {k: (lambda i, key=mapping[k]: objs[i][key]) for k in mapping}
    return _with_images(_generic(cols, mapping, rows, raw), objs, rows)


def _with_images(parsed: Parsed, objs: list[dict], rows: np.ndarray) -> Parsed:
    """The images field (images.py) of a block where any line has one."""
    if any(IMAGES in o for o in objs):
        parsed.images = [parse_cell(o.get(IMAGES), int(r), "line") for o, r in zip(objs, rows)]
    return parsed


def _joined(parts: list[Parsed]) -> Parsed:
    """One Parsed of the blocks' (in file order)."""
    first = parts[0]
    prefix = None
    if first.prefix is not None:
        chains = [p.prefix for p in parts if p.prefix is not None]  # every block's, as the first has them
        ids = np.concatenate([c[0] for c in chains])
        lengths = np.concatenate([np.diff(c[1]) for c in chains])
        prefix = (ids, np.concatenate(([0], np.cumsum(lengths))).astype(np.int64))
    images = None
    if any(p.images is not None for p in parts):
        images = [x for p in parts for x in (p.images if p.images is not None else [[]] * p.rows.size)]
    return Parsed(arrival_s=np.concatenate([p.arrival_s for p in parts]),
                  input_tokens=np.concatenate([p.input_tokens for p in parts]),
                  output_tokens=np.concatenate([p.output_tokens for p in parts]),
                  rows=np.concatenate([p.rows for p in parts]), fmt=first.fmt,
                  rows_read=sum(p.rows_read for p in parts), prefix=prefix, block_tokens=first.block_tokens,
                  images=images, extra=first.extra)


def _generic(cols: dict, mapping: dict, rows: np.ndarray, raw: dict) -> Parsed:
    t, p, g = (cols[mapping[k]] for k in FIELDS)
    return Parsed(arrival_s=check_arrivals(t, "arrival_s", rows, raw["arrival_s"]),
                  input_tokens=check_tokens(p, "input_tokens", rows, raw["input_tokens"]),
                  output_tokens=check_tokens(g, "output_tokens", rows, raw["output_tokens"]),
                  rows=rows, fmt="jsonl", rows_read=int(rows.size))


def _read_arrow(data: bytes, fmt: str, block_tokens: int, max_chars: int) -> Parsed | None:
    """The pyarrow path, or None (a long line, blank lines, or anything arrow_lines declines:
    the json path then names what is wrong)."""
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    ends = _newlines(body)
    lengths = np.diff(np.concatenate(([-1], ends, [len(body)])))[:-1] - 1
    if body and not body.endswith(b"\n"):
        lengths = np.append(lengths, len(body) - (int(ends[-1]) + 1 if ends.size else 0))
    rows = np.flatnonzero(lengths > 0) + 1  # line numbers of the non-empty lines (pyarrow skips empty ones)
    if rows.size == 0 or lengths.max() > max_chars or rows.size > MAX_REQUESTS:
        return None
    cols = arrow_lines.columns(body, int(rows.size))
    if cols is None or IMAGES in cols:  # an images field: the json path reads it
        return None
    if fmt == "mooncake":
        if not set(cols) <= set(MOONCAKE_KEYS) or not all(k in cols for k in MOONCAKE_KEYS[:3]) \
                or isinstance(cols["timestamp"], tuple):
            return None
        if any(isinstance(cols[k], tuple) for k in MOONCAKE_KEYS[1:3]):
            return None
        ms = cols["timestamp"].astype(float)
        p = check_tokens(cols["input_length"].astype(float), "input_length", rows, lambda i: cols["input_length"][i].item())
        g = check_tokens(cols["output_length"].astype(float), "output_length", rows, lambda i: cols["output_length"][i].item())
        if "hash_ids" in cols and not isinstance(cols["hash_ids"], tuple):
            return None
        prefix = None
        if "hash_ids" in cols:
            ids, offsets = cols["hash_ids"]
            prefix = _check_ids(ids, offsets, rows, p, block_tokens)
        return Parsed(arrival_s=check_arrivals(ms / 1000.0, "timestamp (ms)", rows, lambda i: float(ms[i]) / 1000.0),
                      input_tokens=p, output_tokens=g, rows=rows, fmt="mooncake", rows_read=int(rows.size),
                      prefix=prefix, block_tokens=block_tokens)
    if any(isinstance(v, tuple) for v in cols.values()):
        return None
    mapping = generic_columns(sorted(cols))
    raw = {k: (lambda i, column=cols[mapping[k]]: column[i].item()) for k in mapping}  # as the file wrote it
    return _generic({k: v.astype(float) for k, v in cols.items()}, mapping, rows, raw)


def _mooncake(objs: list[dict], rows: np.ndarray, block_tokens: int, state: dict) -> Parsed:
    """One block of lines; state carries whether the file's first line had hash_ids."""
    with_ids, with_ts = state.get("with_ids"), state.get("with_ts")
    for o, r in zip(objs, rows):
        unknown = [k for k in o if k not in MOONCAKE_KEYS and k != IMAGES]
        missing = [k for k in MOONCAKE_KEYS[1:3] if k not in o]
        if unknown or missing:
            aiperf_text.refuse(o, int(r))  # text_input / messages in place of input_length: say so
            what = f"unknown field {unknown[0]!r}" if unknown else f"no field {missing[0]!r}"
            raise fail(f"line {int(r)}: {what} for format mooncake; valid: {', '.join(MOONCAKE_KEYS)} "
                       "(timestamp and hash_ids optional)")
        if with_ids is None:
            with_ids, with_ts = state["with_ids"], state["with_ts"] = "hash_ids" in o, "timestamp" in o
            state["first_row"] = int(r)
        for key, on in (("hash_ids", with_ids), ("timestamp", with_ts)):
            if on != (key in o):
                raise fail(f"line {int(r)}: {key} {'missing' if on else 'present'} unlike line "
                           f"{state['first_row']}; valid: {key} on every line or on none")
    if with_ts:
        ms = values(objs, "timestamp", "timestamp", rows, False)
        t = check_arrivals(ms / 1000.0, "timestamp (ms)", rows, lambda i: objs[i]["timestamp"] / 1000.0
                           if type(objs[i]["timestamp"]) in (int, float) else objs[i]["timestamp"])
    else:  # AIPerf sends such rows by its load generator, in file order: here all at 0 s
        t = np.zeros(len(objs))
    p = check_tokens(values(objs, "input_length", "input_length", rows, True), "input_length", rows,
                     lambda i: objs[i]["input_length"])
    g = check_tokens(values(objs, "output_length", "output_length", rows, True), "output_length", rows,
                     lambda i: objs[i]["output_length"])
    prefix = _hash_ids(objs, rows, p, block_tokens) if with_ids else None
    return _with_images(Parsed(arrival_s=t, input_tokens=p, output_tokens=g, rows=rows, fmt="mooncake",
                               rows_read=len(objs), prefix=prefix, block_tokens=block_tokens,
                               extra={} if with_ts else {"timestamps": NO_TIMESTAMPS}), objs, rows)


def _hash_ids(objs: list[dict], rows: np.ndarray, p: np.ndarray, block_tokens: int) -> tuple[np.ndarray, np.ndarray]:
    lists = [o["hash_ids"] for o in objs]
    lengths = np.fromiter((len(x) if type(x) is list else -1 for x in lists), dtype=np.int64, count=len(lists))
    flat_ok = all(type(x) is int for x in chain.from_iterable(x for x in lists if type(x) is list))
    if flat_ok and (lengths >= 0).all():
        ids = np.fromiter(chain.from_iterable(lists), dtype=object, count=int(lengths.sum()))
        flat_ok = ids.size == 0 or (min(ids) >= 0 and max(ids) < _ID_LIMIT)
    if not flat_ok or (lengths < 0).any():
        for x, r in zip(lists, rows):
            if type(x) is not list:
                raise fail(f"line {int(r)}: hash_ids is {short(x)}; valid: a list of whole numbers")
            for v in x:
                if type(v) is not int or not 0 <= v < _ID_LIMIT:
                    raise fail(f"line {int(r)}: hash_ids holds {short(v)}; valid: whole numbers in [0, 2^62)")
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    return _check_ids(np.array(ids, dtype=np.int64), offsets, rows, p, block_tokens)


def _check_ids(ids: np.ndarray, offsets: np.ndarray, rows: np.ndarray, p: np.ndarray,
               block_tokens: int) -> tuple[np.ndarray, np.ndarray]:
    """One id in [0, 2^62) per hash_block_tokens prompt tokens on every line."""
    bad_id = np.flatnonzero((ids < 0) | (ids >= _ID_LIMIT))
    if bad_id.size:
        line = int(np.searchsorted(offsets, bad_id[0], side="right")) - 1
        raise fail(f"line {int(rows[line])}: hash_ids holds {int(ids[bad_id[0]])}; valid: whole numbers in [0, 2^62)")
    lengths = np.diff(offsets)
    expected = -(-p // block_tokens)
    bad = np.flatnonzero(lengths != expected)
    if bad.size:
        i = int(bad[0])
        raise fail(f"line {int(rows[i])}: hash_ids has {int(lengths[i])} ids for input_length {int(p[i]):,}; valid: "
                   f"{int(expected[i])} (one id per hash_block_tokens={block_tokens} tokens)")
    return ids, offsets
