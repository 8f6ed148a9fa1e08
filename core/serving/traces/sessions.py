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
from core.serving.traces.jsonlines import parse_objects, split_lines
from core.serving.traces.transforms import Parsed
from core.serving.workload import Sessions

REQUIRED = ("session_id", "turn", "input_tokens", "output_tokens")
OPTIONAL = ("arrival_s", "think_time_s", "shared_prefix_tokens", "tool_wait_s", "keep_kv")
_VALID = "session_id, turn, arrival_s or think_time_s, input_tokens, output_tokens " \
         "(optional shared_prefix_tokens, tool_wait_s, keep_kv)"


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


def read_sessions(text: str, progress=None, cancel=None) -> Parsed:
    lines, numbers = split_lines(text, MAX_LINE_CHARS)
    if not lines:
        raise fail("the file has no requests; valid: at least one JSON line")
    objs = parse_objects(lines, numbers)
    if progress is not None:
        progress(0.5)
    n = len(objs)
    ids: dict = {}
    session = np.empty(n, np.int64)
    turn = np.empty(n, np.int64)
    for i, (o, r) in enumerate(zip(objs, numbers)):
        unknown = [k for k in o if k not in REQUIRED + OPTIONAL]
        missing = [k for k in REQUIRED if k not in o]
        if unknown or missing:
            what = f"unknown field {unknown[0]!r}" if unknown else f"no field {missing[0]!r}"
            raise fail(f"line {r}: {what} for format sessions; valid: {_VALID}")
        sid = o["session_id"]
        if type(sid) not in (int, str) or (type(sid) is str and len(sid) > 256):
            raise fail(f"line {r}: session_id is {short(sid)}; valid: a whole number or a string")
        session[i] = ids.setdefault(sid, len(ids))  # 0..S-1 in order of first appearance
        turn[i] = _whole(o, "turn", r, 0)
    order = np.lexsort((turn, session))
    new = np.empty(n, np.int64)
    out = np.empty(n, np.int64)
    shared = np.zeros(n, np.int64)
    arrival = np.empty(n)
    think = np.full(n, np.nan)
    tool = np.zeros(n)
    keep_kv = np.ones(n, dtype=bool)
    prev = -1
    for i in order:
        o, r = objs[i], numbers[i]
        first = prev < 0 or session[prev] != session[i]
        if not first and turn[i] != turn[prev] + 1:
            raise fail(f"line {r}: session {short(o['session_id'])} turn {turn[i]} follows turn {turn[prev]}; "
                       "valid: consecutive turns, each once")
        new[i] = _whole(o, "input_tokens", r, 1)
        out[i] = _whole(o, "output_tokens", r, 1)
        tool[i] = _seconds(o, "tool_wait_s", r, 0.0)
        kv = o.get("keep_kv", True)
        if type(kv) is not bool:
            raise fail(f"line {r}: keep_kv is {short(kv)}; valid: true or false")
        keep_kv[i] = kv
        history = 0 if first else int(shared[prev] + new[prev] + out[prev])
        if "shared_prefix_tokens" in o:
            shared[i] = _whole(o, "shared_prefix_tokens", r, 0)
            if shared[i] > history:
                raise fail(f"line {r}: shared_prefix_tokens is {shared[i]:,}, longer than the previous turn's "
                           f"prompt + output ({history:,}); valid: [0, {history:,}]")
        else:
            shared[i] = history
        has_arrival, has_think = "arrival_s" in o, "think_time_s" in o
        if has_arrival == has_think:
            which = "both arrival_s and think_time_s" if has_arrival else "neither arrival_s nor think_time_s"
            raise fail(f"line {r}: {which}; valid: one of them")
        if first and not has_arrival:
            raise fail(f"line {r}: session {short(o['session_id'])}'s first turn has no arrival_s; "
                       "valid: a first turn arrives at a time (arrival_s)")
        earliest = 0.0 if first else arrival[prev] + tool[prev]
        if has_arrival:
            arrival[i] = _seconds(o, "arrival_s", r, 0.0)
            if not first and arrival[i] < arrival[prev]:
                raise fail(f"line {r}: arrival_s {arrival[i]:g} s is before the session's previous turn "
                           f"({arrival[prev]:g} s); valid: turns in time order")
        else:
            think[i] = _seconds(o, "think_time_s", r, 0.0)
            arrival[i] = earliest + think[i]
        prev = i
    rows = np.array(numbers, dtype=np.int64)
    prompt = check_tokens((shared + new).astype(float), "shared_prefix_tokens + input_tokens", rows,
                          lambda i: int(shared[i] + new[i]))
    first_turn = np.minimum.reduceat(turn[order], _starts(session[order]))  # by session id 0..S-1
    turn0 = turn - first_turn[session]
    sessions = Sessions(session=session, turn=turn0, new_input_tokens=new, shared_prefix_tokens=shared,
                        think_time_s=think, tool_wait_s=tool, keep_kv_during_tool=keep_kv)
    return Parsed(arrival_s=arrival, input_tokens=prompt, output_tokens=out, rows=rows, fmt="sessions",
                  rows_read=n, sessions=sessions, extra={"sessions": len(ids)})


def _starts(sorted_sessions: np.ndarray) -> np.ndarray:
    """Where each session begins in the sorted order."""
    return np.flatnonzero(np.concatenate(([True], sorted_sessions[1:] != sorted_sessions[:-1])))
