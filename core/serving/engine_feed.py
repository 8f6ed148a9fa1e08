"""Requests that a router hands to one engine of several (core.serving.replicas).

A routed engine knows the whole workload but admits only what was submitted to it, in
submission order (non-decreasing arrival times), merged in time order with the session
turns that arrive after their predecessor finished on this engine (those stay with their
session's engine). While the feed is open the router may still submit at its next
decision time (`horizon`), so the engine treats that as the next possible arrival."""
from __future__ import annotations

import heapq
import math
from collections import deque


class RoutedFeed:
    def __init__(self, arrival):
        self.arrival = arrival  # the engine's arrival array (engine order)
        self.pending: deque[int] = deque()
        self.open = True
        self.horizon = math.inf
        self.submitted = 0

    def submit(self, r: int) -> None:
        if self.pending and self.arrival[r] < self.arrival[self.pending[-1]]:
            raise ValueError("requests must be submitted in arrival order")
        self.pending.append(r)
        self.submitted += 1

    def next_time(self, sessions) -> float:
        t = float(self.arrival[self.pending[0]]) if self.pending else math.inf
        if sessions is not None and sessions.heap and sessions.heap[0][0] < t:
            t = sessions.heap[0][0]
        return min(t, self.horizon) if self.open else t

    def has_pending(self, sessions) -> bool:
        return bool(self.pending) or (sessions is not None and bool(sessions.heap))

    def pop_due(self, now: float, waiting, sessions) -> None:
        """Append what arrived by `now` to waiting, in arrival order (a fixed arrival
        before a session turn at the same time, as Arrivals.pop_due does)."""
        pending, arrival = self.pending, self.arrival
        heap = sessions.heap if sessions is not None else None
        while True:
            tf = float(arrival[pending[0]]) if pending else math.inf
            if heap and heap[0][0] < tf and heap[0][0] <= now:
                waiting.append(heapq.heappop(heap)[1])
            elif tf <= now:
                waiting.append(pending.popleft())
            else:
                return
