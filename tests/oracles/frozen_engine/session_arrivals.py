"""Arrivals of a sessions workload: turns with a fixed time, and turns that arrive only
once their predecessor has finished (plus its tool wait and the user's think time), a time
the engine learns while it runs. Fixed arrivals are a sorted list; the others join a heap
when their predecessor finishes; the two are merged in time order."""
from __future__ import annotations

import heapq
import math

import numpy as np


def links(sessions, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


def turn_order(sessions, order: np.ndarray) -> np.ndarray:
    """Engine ids sorted so every turn comes after its predecessor."""
    return np.lexsort((sessions.turn[order], sessions.session[order]))


class Arrivals:
    """When each request arrives (engine order); `arrival` is filled in for dynamic turns."""

    def __init__(self, arrival: np.ndarray, sessions, order: np.ndarray):
        self.arrival = arrival
        n = arrival.size
        if sessions is None:
            dynamic = np.zeros(n, bool)
            self.next = np.full(n, -1, np.int64)
            self.after_s = np.zeros(n)
        else:
            prev, self.next = links(sessions, order)
            dynamic = np.isfinite(sessions.think_time_s[order]) & (prev >= 0)
            # What a finished turn adds before its successor arrives: its tool wait, then
            # the successor's think time.
            think = np.nan_to_num(sessions.think_time_s[order])
            self.after_s = np.zeros(n)
            has_next = self.next >= 0
            self.after_s[has_next] = think[self.next[has_next]]
        self.dynamic = dynamic
        self.fixed = np.flatnonzero(~dynamic)
        self.fixed_t = arrival[self.fixed].tolist()
        self.fixed_ids = self.fixed.tolist()
        self.i = 0
        self.heap: list[tuple[float, int]] = []
        self.arrival[dynamic] = np.nan

    def next_time(self) -> float:
        t = self.fixed_t[self.i] if self.i < len(self.fixed_t) else math.inf
        if self.heap and self.heap[0][0] < t:
            return self.heap[0][0]
        return t

    def pop_due(self, now: float, waiting) -> None:
        """Append the requests that arrived by `now` to waiting, in arrival order."""
        heap, fixed_t, ids = self.heap, self.fixed_t, self.fixed_ids
        while True:
            tf = fixed_t[self.i] if self.i < len(fixed_t) else math.inf
            if heap and heap[0][0] < tf and heap[0][0] <= now:
                waiting.append(heapq.heappop(heap)[1])
            elif tf <= now:
                waiting.append(ids[self.i])
                self.i += 1
            else:
                return

    def finished(self, r: int, t: float, tool_wait_s: float) -> None:
        s = int(self.next[r])
        if s >= 0 and self.dynamic[s]:
            self.arrival[s] = t + tool_wait_s + self.after_s[r]
            heapq.heappush(self.heap, (float(self.arrival[s]), s))


def hit_rate_by_turn(turn: np.ndarray, cached: np.ndarray, prompt: np.ndarray) -> list[float]:
    """Cached prompt tokens / prompt tokens of each turn index 0, 1, ..."""
    if turn.size == 0:
        return []
    k = int(turn.max()) + 1
    hits = np.bincount(turn, weights=cached, minlength=k)
    total = np.bincount(turn, weights=prompt, minlength=k)
    return [float(h / t) if t > 0 else 0.0 for h, t in zip(hits, total)]
