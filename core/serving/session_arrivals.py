"""Sessions in a workload: which turn follows which (links, turn_order), the check of a
sessions trace at the edge, and the hit rate by turn index. A turn with a think time
arrives only once its predecessor has finished (plus its tool wait and the think time), a
time the engine learns while it runs (core/serving/engine/queues.py merges those turns,
due in a heap, with the fixed arrivals)."""
from __future__ import annotations

import numpy as np

from core.registry import ParamError
from core.serving.workload import Sessions


def links(sessions: Sessions, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(prev, next) in the engine's request order (arrival-sorted ids; -1: none):
    the same session's turn − 1 and turn + 1."""
    session = sessions.session[order]
    turn = sessions.turn[order]
    n = order.size
    by_turn = np.lexsort((turn, session))
    prev = np.full(n, -1, np.int64)
    nxt = np.full(n, -1, np.int64)
    same = (session[by_turn[1:]] == session[by_turn[:-1]]) & (turn[by_turn[1:]] == turn[by_turn[:-1]] + 1)
    prev[by_turn[1:][same]] = by_turn[:-1][same]
    nxt[by_turn[:-1][same]] = by_turn[1:][same]
    return prev, nxt


def turn_order(sessions: Sessions, order: np.ndarray) -> np.ndarray:
    """Engine ids sorted so every turn comes after its predecessor."""
    return np.lexsort((sessions.turn[order], sessions.session[order]))


def check(sessions: Sessions, input_tokens: np.ndarray, output_tokens: np.ndarray) -> None:
    """Sessions the engine cannot replay raise ParamError('trace', ...) naming the request."""
    n = input_tokens.size
    for name in ("session", "turn", "new_input_tokens", "shared_prefix_tokens", "think_time_s",
                 "tool_wait_s", "keep_kv_during_tool"):
        if np.asarray(getattr(sessions, name)).shape != (n,):
            raise ParamError("trace", f"sessions.{name} has {np.asarray(getattr(sessions, name)).size} "
                             f"entries for {n} requests; valid: one per request")
    shared = sessions.shared_prefix_tokens
    bad = np.flatnonzero((shared < 0) | (shared > input_tokens))
    if bad.size:
        i = int(bad[0])
        raise ParamError("trace", f"request {i}: shared_prefix_tokens {int(shared[i])} with a prompt of "
                         f"{int(input_tokens[i])}; valid: 0..input_tokens")
    wait = sessions.tool_wait_s
    if np.any(~np.isfinite(wait) | (wait < 0)):
        i = int(np.flatnonzero(~np.isfinite(wait) | (wait < 0))[0])
        raise ParamError("trace", f"request {i}: tool_wait_s {wait[i]}; valid: >= 0 seconds")
    think = sessions.think_time_s
    if np.any(think < 0):
        i = int(np.flatnonzero(think < 0)[0])
        raise ParamError("trace", f"request {i}: think_time_s {think[i]}; valid: >= 0 seconds or empty")
    ident = np.arange(n)
    prev, _ = links(sessions, ident)
    orphan = np.flatnonzero(np.isfinite(think) & (prev < 0) & (sessions.turn > 0))
    if orphan.size:
        i = int(orphan[0])
        raise ParamError("trace", f"request {i} (session {int(sessions.session[i])}, turn {int(sessions.turn[i])}) "
                         "waits for a previous turn that is not in the trace; valid: consecutive turns from 0")
    history = np.where(prev >= 0, input_tokens[prev] + output_tokens[prev], 0)
    bad = np.flatnonzero(shared > history)
    if bad.size:
        i = int(bad[0])
        raise ParamError("trace", f"request {i} (session {int(sessions.session[i])}, turn {int(sessions.turn[i])}): "
                         f"shares {int(shared[i])} tokens of a history of {int(history[i])}; "
                         "valid: at most the previous turn's input + output")


def hit_rate_by_turn(turn: np.ndarray, cached: np.ndarray, prompt: np.ndarray) -> list[float]:
    """Cached prompt tokens / prompt tokens of each turn index 0, 1, ..."""
    if turn.size == 0:
        return []
    k = int(turn.max()) + 1
    hits = np.bincount(turn, weights=cached, minlength=k)
    total = np.bincount(turn, weights=prompt, minlength=k)
    return [float(h / t) if t > 0 else 0.0 for h, t in zip(hits, total)]
