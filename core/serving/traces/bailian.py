"""Alibaba's Bailian usage traces (qwen-bailian-usagetraces-anon), as AIPerf reads them
(--custom-dataset-type bailian_trace; docs: tutorials/bailian-trace):

    {"chat_id": 159, "parent_chat_id": -1, "timestamp": 61.114, "input_length": 521,
     "output_length": 132, "type": "text", "turn": 1, "hash_ids": [1089, 1090, ...]}

timestamp is in seconds. Each row already holds its whole context (its input_length counts
the earlier turns), so, as AIPerf replays them, rows are requests of their own;
parent_chat_id, turn and type are checked but add no timing. hash_ids are one id per 16
prompt tokens (salted SipHash, up to 2^64): renumbered densely (only equality matters)
they give the prefix the cache can reuse; a file whose counts do not fit 16 tokens a block
is read without them (meta says so).
"""
from __future__ import annotations

import numpy as np

from core.serving.traces.guard import check_arrivals, check_tokens, fail, short
from core.serving.traces.jsonlines import MAX_HASH_LINE_CHARS, parse_objects, split_lines
from core.serving.traces.transforms import Parsed

KEYS = ("chat_id", "parent_chat_id", "timestamp", "input_length", "output_length", "type", "turn", "hash_ids")
REQUIRED = ("timestamp", "input_length", "output_length")
BLOCK_TOKENS = 16  # the traces' README: one hash id per 16 tokens
_VALID = "chat_id, parent_chat_id, timestamp (s), input_length, output_length, type, turn, hash_ids"


def looks_like(obj) -> bool:
    return isinstance(obj, dict) and "chat_id" in obj and "input_length" in obj and set(obj) <= set(KEYS)


def read_bailian(text: str, progress=None, cancel=None) -> Parsed:
    lines, numbers = split_lines(text, MAX_HASH_LINE_CHARS)
    del text
    if not lines:
        raise fail("the file has no requests; valid: at least one JSON line")
    objs = parse_objects(lines, numbers)
    del lines
    rows = np.array(numbers, dtype=np.int64)
    for o, r in zip(objs, numbers):
        unknown = [k for k in o if k not in KEYS]
        missing = [k for k in REQUIRED if k not in o]
        if unknown or missing:
            what = f"unknown field {unknown[0]!r}" if unknown else f"no field {missing[0]!r}"
            raise fail(f"line {r}: {what} for format bailian; valid: {_VALID}")
        for key in REQUIRED:
            if type(o[key]) not in (int, float):
                raise fail(f"line {r}: {key} is {short(o[key])}; valid: a number")
    t = check_arrivals(np.array([float(o["timestamp"]) for o in objs]), "timestamp (s)", rows,
                       lambda i: objs[i]["timestamp"])
    p = check_tokens(np.array([float(o["input_length"]) for o in objs]), "input_length", rows,
                     lambda i: objs[i]["input_length"])
    g = check_tokens(np.array([float(o["output_length"]) for o in objs]), "output_length", rows,
                     lambda i: objs[i]["output_length"])
    prefix, note = _prefix(objs, numbers, p)
    if progress is not None:
        progress(1.0)
    return Parsed(arrival_s=t, input_tokens=p, output_tokens=g, rows=rows, fmt="bailian", rows_read=len(objs),
                  prefix=prefix, block_tokens=BLOCK_TOKENS, extra={"hash_ids": note} if note else {})


def _prefix(objs: list[dict], numbers: list[int], p: np.ndarray):
    """(ids, offsets) CSR of the hash ids renumbered 0.. in order of first appearance, or
    (None, why) when a row has none or a count that is not one per 16 tokens."""
    dense: dict = {}
    ids: list[int] = []
    offsets = [0]
    for o, r, n in zip(objs, numbers, p.tolist()):
        x = o.get("hash_ids")
        if x is None:
            return None, f"line {r} has no hash_ids: the prefix is not known"
        if type(x) is not list or any(type(v) is not int or v < 0 for v in x):
            raise fail(f"line {r}: hash_ids is {short(x)}; valid: a list of whole numbers >= 0")
        if len(x) != -(-n // BLOCK_TOKENS):
            return None, (f"line {r} has {len(x)} hash_ids for input_length {n:,} (not one per {BLOCK_TOKENS} "
                          "tokens): the prefix is not known")
        ids.extend(dense.setdefault(v, len(dense)) for v in x)
        offsets.append(len(ids))
    return (np.array(ids, dtype=np.int64), np.array(offsets, dtype=np.int64)), None
