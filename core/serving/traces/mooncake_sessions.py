"""AIPerf's multi-turn Mooncake form: mooncake_trace JSONL rows that carry a session_id.

    {"session_id": "a", "timestamp": 0, "input_length": 900, "output_length": 120, "hash_ids": [0, 1]}
    {"session_id": "a", "delay": 5000, "input_length": 40, "output_length": 80}

AIPerf (docs: benchmark-modes/trace-replay, "Multi-turn conversation trace") groups rows
by session_id into one conversation, turns in file order, and keeps the conversation's
history: a turn's prompt is the history (every earlier prompt and answer) plus its own
input_length tokens. delay is milliseconds after the previous turn's answer ends;
timestamp is milliseconds from the run's start. Read here as sessions (sessions.py):
input_length -> the turn's new tokens, timestamp -> arrival_s, delay -> think_time_s.

- A session's first turn has a timestamp, or nothing (it starts at 0 ms); a delay there
  is refused (no previous turn to wait on).
- A later turn has delay, timestamp (a fixed time), or nothing (sent as soon as the
  previous answer ends, delay 0); not both.
- output_length is needed (the simulation generates that many tokens); text_input
  (exact text, no lengths) is refused: there is no tokenizer here.
- hash_ids are checked (whole numbers) but a session's reuse is its own history, so they
  add nothing the history does not.
"""
from __future__ import annotations

import dataclasses
import json
import math

from core.serving.traces.guard import MAX_ARRIVAL_S, MAX_LINE_CHARS, fail, short
from core.serving.traces.jsonlines import MAX_HASH_LINE_CHARS, MOONCAKE_KEYS, parse_objects, split_lines
from core.serving.traces.sessions import read_sessions
from core.serving.traces.transforms import Parsed

KEYS = MOONCAKE_KEYS + ("session_id", "delay", "images")  # images: the turn's new ones (images.py)
_VALID = ("session_id, input_length, output_length, timestamp (ms) or delay (ms after the previous turn), "
          "hash_ids, images (optional)")


def looks_like(obj) -> bool:
    """A Mooncake row of a session (the first line of a file decides its format)."""
    return isinstance(obj, dict) and "session_id" in obj and "input_length" in obj and set(obj) <= set(KEYS)


def has_sessions(data: bytes) -> bool:
    """Whether a Mooncake file's rows carry session_id (any row: AIPerf mixes them)."""
    return b'"session_id"' in data


def _ms(obj: dict, key: str, row: int) -> float:
    v = obj[key]
    if type(v) not in (int, float) or not math.isfinite(v) or not 0 <= v / 1e3 <= MAX_ARRIVAL_S:
        raise fail(f"line {row}: {key} is {short(v)}; valid: milliseconds in [0, {MAX_ARRIVAL_S * 1e3:.0e}]")
    return float(v) / 1e3


def _turn(obj: dict, row: int, turn: int) -> dict:
    """One row as a sessions line (our names, seconds)."""
    unknown = [k for k in obj if k not in KEYS]
    if unknown:
        why = " (exact text needs a tokenizer; give input_length)" if unknown[0] == "text_input" else ""
        raise fail(f"line {row}: unknown field {unknown[0]!r}{why} for format mooncake with sessions; valid: {_VALID}")
    for key in ("input_length", "output_length"):
        if key not in obj:
            raise fail(f"line {row}: no field {key!r} for format mooncake with sessions; valid: {_VALID}")
        if type(obj[key]) is not int:
            raise fail(f"line {row}: {key} is {short(obj[key])}; valid: a whole number of tokens")
    ids = obj.get("hash_ids", [])
    if type(ids) is not list or any(type(x) is not int or x < 0 for x in ids):
        raise fail(f"line {row}: hash_ids is {short(ids)}; valid: a list of whole numbers >= 0")
    out = {"session_id": obj["session_id"], "turn": turn, "input_tokens": obj["input_length"],
           "output_tokens": obj["output_length"]}
    if "images" in obj:
        out["images"] = obj["images"]
    if "timestamp" in obj and "delay" in obj:
        raise fail(f"line {row}: both timestamp and delay; valid: one of them")
    if "timestamp" in obj:
        out["arrival_s"] = _ms(obj, "timestamp", row)
    elif turn == 0:
        if "delay" in obj:
            raise fail(f"line {row}: session {short(obj['session_id'])}'s first turn has a delay; valid: a "
                       "timestamp (ms) or nothing (0 ms) on a first turn, delay on later turns")
        out["arrival_s"] = 0.0
    else:
        out["think_time_s"] = _ms(obj, "delay", row) if "delay" in obj else 0.0
    return out


def read_mooncake_sessions(text: str, progress=None, cancel=None) -> Parsed:
    """The rows as sessions: turns numbered per session in file order, line numbers kept."""
    lines, numbers = split_lines(text, MAX_HASH_LINE_CHARS)
    if not lines:
        raise fail("the file has no requests; valid: at least one JSON line")
    objs = parse_objects(lines, numbers)
    del lines
    turns: dict = {}
    out = [""] * (numbers[-1] if numbers else 0)
    for obj, row in zip(objs, numbers):
        sid = obj.get("session_id")
        if "session_id" not in obj:  # AIPerf: a row without one is a conversation of its own
            sid = obj["session_id"] = f"row {row}"
        if type(sid) not in (int, str):
            raise fail(f"line {row}: session_id is {short(sid)}; valid: a whole number or a string")
        turn = turns.get(sid, -1) + 1
        turns[sid] = turn
        line = json.dumps(_turn(obj, row, turn))
        if len(line) > MAX_LINE_CHARS:  # a session_id too long for a sessions line
            raise fail(f"line {row}: session_id is {short(sid)}; valid: at most 256 characters")
        out[row - 1] = line
    del objs
    parsed = read_sessions("\n".join(out), progress, cancel)
    return dataclasses.replace(parsed, fmt="mooncake")
