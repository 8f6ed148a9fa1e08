"""Sessions JSONL: multi-turn chats and agent runs, one turn per line.

    {"session_id": "a", "turn": 0, "arrival_s": 0.0, "input_tokens": 900, "output_tokens": 120}
    {"session_id": "a", "turn": 1, "think_time_s": 5.0, "input_tokens": 40, "output_tokens": 80,
     "tool_wait_s": 2.0, "keep_kv": true}

- input_tokens are the turn's NEW tokens; its prompt is the kept history plus them:
  prompt = shared_prefix_tokens + input_tokens, where shared_prefix_tokens defaults to the
  previous turn's prompt + output (all of the history) and is given when the history was
  rewritten (e.g. thinking removed); it cannot exceed the previous prompt + output.
- A session's first turn has arrival_s; a later turn has arrival_s (a fixed time) or
  think_time_s (after the previous turn finished plus that turn's tool_wait_s).
- tool_wait_s (default 0): a tool runs this long after the turn; keep_kv (default true):
  the session's KV stays cached meanwhile (evictable), false drops it.
- Turns of a session are consecutive whole numbers (any start) and never go back in time.

The Workload's arrival_s of a think-time turn is its earliest possible arrival (the
previous turn's, plus think time and tool wait, as if served instantly); the engine
times it from when the previous turn really finishes.
"""
from __future__ import annotations

import math

import numpy as np

from core.serving.mix import MAX_TOKENS
from core.serving.traces.guard import MAX_ARRIVAL_S, MAX_LINE_CHARS, check_tokens, fail, short
from core.serving.traces.images import parse_cell
from core.serving.traces.jsonlines import BLOCK_LINES, parse_objects, split_lines
from core.serving.traces.transforms import Parsed
from core.serving.workload import Sessions

REQUIRED = ("session_id", "turn", "input_tokens", "output_tokens")
OPTIONAL = ("arrival_s", "think_time_s", "shared_prefix_tokens", "tool_wait_s", "keep_kv", "images")
_VALID = "session_id, turn, arrival_s or think_time_s, input_tokens, output_tokens " \
         "(optional shared_prefix_tokens, tool_wait_s, keep_kv, images: the turn's new images, images.py)"


def looks_like(obj) -> bool:
    return isinstance(obj, dict) and "session_id" in obj and "turn" in obj


def _seconds(obj: dict, key: str, row: int, default: float) -> float:
    v = obj.get(key, default)
    if type(v) not in (int, float) or not math.isfinite(v) or not 0 <= v <= MAX_ARRIVAL_S:
        raise fail(f"line {row}: {key} is {short(v)}; valid: seconds in [0, {MAX_ARRIVAL_S:.0e}]")
    return float(v)


def _whole(obj: dict, key: str, row: int, low: int) -> int:
    v = obj[key]
    if type(v) is not int or not low <= v <= MAX_TOKENS:
        raise fail(f"line {row}: {key} is {short(v)}; valid: a whole number >= {low} and <= {MAX_TOKENS:,}")
    return v


def _fields(objs: list[dict], numbers: list[int], ids: dict, cols: dict) -> None:
    """Check one block of lines field by field (in file order) and append their values
    to cols; the objects can then be dropped (a large file never holds them all)."""
    for o, r in zip(objs, numbers):
        unknown = [k for k in o if k not in REQUIRED + OPTIONAL]
        missing = [k for k in REQUIRED if k not in o]
        if unknown or missing:
            what = f"unknown field {unknown[0]!r}" if unknown else f"no field {missing[0]!r}"
            raise fail(f"line {r}: {what} for format sessions; valid: {_VALID}")
        sid = o["session_id"]
        if type(sid) not in (int, str) or (type(sid) is str and len(sid) > 256):
            raise fail(f"line {r}: session_id is {short(sid)}; valid: a whole number or a string")
        cols["session"].append(ids.setdefault(sid, len(ids)))  # 0..S-1 in order of first appearance
        cols["turn"].append(_whole(o, "turn", r, 0))
        cols["new"].append(_whole(o, "input_tokens", r, 1))
        cols["out"].append(_whole(o, "output_tokens", r, 1))
        cols["tool"].append(_seconds(o, "tool_wait_s", r, 0.0))
        kv = o.get("keep_kv", True)
        if type(kv) is not bool:
            raise fail(f"line {r}: keep_kv is {short(kv)}; valid: true or false")
        cols["keep"].append(kv)
        cols["shared"].append(_whole(o, "shared_prefix_tokens", r, 0) if "shared_prefix_tokens" in o else -1)
        has_arrival, has_think = "arrival_s" in o, "think_time_s" in o
        if has_arrival == has_think:
            which = "both arrival_s and think_time_s" if has_arrival else "neither arrival_s nor think_time_s"
            raise fail(f"line {r}: {which}; valid: one of them")
        cols["arrival"].append(_seconds(o, "arrival_s", r, 0.0) if has_arrival else math.nan)
        cols["think"].append(_seconds(o, "think_time_s", r, 0.0) if has_think else math.nan)
        cols["sid"].append(sid)


def _fields_fast(objs: list[dict], ids: dict, cols: dict) -> bool:
    """_fields for a block whose every value is plain, by whole columns; False (nothing
    appended) if any is not, and _fields then names the line."""
    for keys in {frozenset(o) for o in objs}:
        if not keys <= _KNOWN or not keys >= _REQUIRED or ("arrival_s" in keys) == ("think_time_s" in keys):
            return False
    sid = [o["session_id"] for o in objs]
    kinds = set(map(type, sid))
    if not kinds <= {int, str} or (str in kinds and max(len(x) for x in sid if type(x) is str) > 256):
        return False
    whole = {k: [o[k] for o in objs] for k in ("turn", "input_tokens", "output_tokens")}
    whole["shared_prefix_tokens"] = [o.get("shared_prefix_tokens", -1) for o in objs]
    seconds = {k: [o.get(k, d) for o in objs] for k, d in (("tool_wait_s", 0.0), ("arrival_s", math.nan),
                                                            ("think_time_s", math.nan))}
    keep = [o.get("keep_kv", True) for o in objs]
    if any(set(map(type, v)) - {int} for v in whole.values()) or set(map(type, keep)) - {bool} \
            or any(set(map(type, v)) - {int, float} for v in seconds.values()):
        return False
    for key, low in (("turn", 0), ("input_tokens", 1), ("output_tokens", 1)):
        a = np.array(whole[key], dtype=object)
        if a.min() < low or a.max() > MAX_TOKENS:
            return False
    given = np.array([v for v in whole["shared_prefix_tokens"] if v != -1] or [0], dtype=object)
    if given.min() < 0 or given.max() > MAX_TOKENS or any(v == -1 for o, v in zip(objs, whole["shared_prefix_tokens"])
                                                           if "shared_prefix_tokens" in o):
        return False
    for key, v in seconds.items():
        a = np.array(v, dtype=float)
        if key != "tool_wait_s":  # nan marks an absent value: a NaN written in the file must not pass as one
            a = a[~np.isnan(a)]
            if a.size != sum(key in o for o in objs):
                return False
        if not np.all((a >= 0) & (a <= MAX_ARRIVAL_S)):  # NaN and inf fail too
            return False
    cols["session"].extend(ids.setdefault(x, len(ids)) for x in sid)  # 0..S-1 in order of first appearance
    for key, name in (("turn", "turn"), ("input_tokens", "new"), ("output_tokens", "out"),
                      ("shared_prefix_tokens", "shared")):
        cols[name].extend(whole[key])
    for key, name in (("tool_wait_s", "tool"), ("arrival_s", "arrival"), ("think_time_s", "think")):
        cols[name].extend(map(float, seconds[key]))
    cols["keep"].extend(keep)
    cols["sid"].extend(sid)
    return True


_KNOWN, _REQUIRED = frozenset(REQUIRED + OPTIONAL), frozenset(REQUIRED)


def read_sessions(text: str, progress=None, cancel=None) -> Parsed:
    lines, numbers = split_lines(text, MAX_LINE_CHARS)
    del text
    if not lines:
        raise fail("the file has no requests; valid: at least one JSON line")
    ids: dict = {}
    cols: dict[str, list] = {k: [] for k in ("session", "turn", "new", "out", "tool", "keep", "shared", "arrival",
                                             "think", "sid")}
    images: list = []
    for a in range(0, len(lines), BLOCK_LINES):
        objs = parse_objects(lines[a:a + BLOCK_LINES], numbers[a:a + BLOCK_LINES])
        if not _fields_fast(objs, ids, cols):
            _fields(objs, numbers[a:a + BLOCK_LINES], ids, cols)
        images.extend(parse_cell(o.get("images"), r, "line") for o, r in zip(objs, numbers[a:a + BLOCK_LINES]))
        if cancel is not None:
            cancel.check()
        if progress is not None:
            progress(0.5 * min(a + BLOCK_LINES, len(lines)) / len(lines))
    del lines
    n = len(numbers)
    session = np.array(cols["session"], np.int64)
    turn = np.array(cols["turn"], np.int64)
    new = np.array(cols["new"], np.int64)
    out = np.array(cols["out"], np.int64)
    tool = np.array(cols["tool"], float)
    keep_kv = np.array(cols["keep"], bool)
    given_shared, given_arrival, think = cols["shared"], cols["arrival"], np.array(cols["think"], float)
    order = np.lexsort((turn, session))
    # The sequential pass runs on lists (a numpy scalar per access is several times slower).
    session_l, turn_l, new_l, out_l, tool_l, think_l = (cols[k] for k in ("session", "turn", "new", "out", "tool", "think"))
    shared, arrival = [0] * n, [0.0] * n
    prev = -1
    # Each turn follows its predecessor: history, shared prefix and arrival are sequential.
    for i in order.tolist():
        r = numbers[i]
        first = prev < 0 or session_l[prev] != session_l[i]
        if not first and turn_l[i] != turn_l[prev] + 1:
            raise fail(f"line {r}: session {short(cols['sid'][i])} turn {turn_l[i]} follows turn {turn_l[prev]}; "
                       "valid: consecutive turns, each once")
        history = 0 if first else shared[prev] + new_l[prev] + out_l[prev]
        if given_shared[i] >= 0:
            shared[i] = given_shared[i]
            if shared[i] > history:
                raise fail(f"line {r}: shared_prefix_tokens is {shared[i]:,}, longer than the previous turn's "
                           f"prompt + output ({history:,}); valid: [0, {history:,}]")
        else:
            shared[i] = history
        has_arrival = not math.isnan(given_arrival[i])
        if first and not has_arrival:
            raise fail(f"line {r}: session {short(cols['sid'][i])}'s first turn has no arrival_s; "
                       "valid: a first turn arrives at a time (arrival_s)")
        if has_arrival:
            arrival[i] = given_arrival[i]
            if not first and arrival[i] < arrival[prev]:
                raise fail(f"line {r}: arrival_s {arrival[i]:g} s is before the session's previous turn "
                           f"({arrival[prev]:g} s); valid: turns in time order")
        else:
            arrival[i] = arrival[prev] + tool_l[prev] + think_l[i]
        prev = i
    shared_tokens, arrivals = np.array(shared, np.int64), np.array(arrival, float)
    rows = np.array(numbers, dtype=np.int64)
    prompt = check_tokens((shared_tokens + new).astype(float), "shared_prefix_tokens + input_tokens", rows,
                          lambda i: int(shared_tokens[i] + new[i]))
    first_turn = np.minimum.reduceat(turn[order], _starts(session[order]))  # by session id 0..S-1
    turn0 = turn - first_turn[session]
    sessions = Sessions(session=session, turn=turn0, new_input_tokens=new, shared_prefix_tokens=shared_tokens,
                        think_time_s=think, tool_wait_s=tool, keep_kv_during_tool=keep_kv)
    return Parsed(arrival_s=arrivals, input_tokens=prompt, output_tokens=out, rows=rows, fmt="sessions",
                  rows_read=n, sessions=sessions, extra={"sessions": len(ids)}, images=images if any(images) else None)


def _starts(sorted_sessions: np.ndarray) -> np.ndarray:
    """Where each session begins in the sorted order."""
    return np.flatnonzero(np.concatenate(([True], sorted_sessions[1:] != sorted_sessions[:-1])))
