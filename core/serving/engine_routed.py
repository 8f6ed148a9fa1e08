"""The engine driven from outside (core.serving.replicas, core.voice): a router submits
requests one by one as their time comes and reads the engine's state between arrivals; a
client can go away (cancel). A mixin of engine.Engine (its state lives there)."""
from __future__ import annotations

import math

import numpy as np

from core.serving.engine_feed import RoutedFeed
from core.serving.engine.records import ReplayResult


class RoutedUse:
    # -- routed use (core.serving.replicas) ----------------------------------------------
    def route(self) -> None:
        """From now on only submitted requests arrive (and their sessions' later turns)."""
        self.feed = RoutedFeed(self.arrival)
        if self.arrivals is not None:  # fixed arrivals come from the router, not the list
            self.arrivals.fixed_t = []
            self.arrivals.fixed_ids = []

    def submit(self, r: int) -> None:
        self.feed.submit(r)

    def close(self) -> None:
        """No more submissions: the engine may now run past any time to finish its work."""
        self.feed.open = False

    def _routed_work_left(self) -> bool:
        return bool(self.running or self.waiting) or self.feed.has_pending(self.arrivals)

    def outstanding(self) -> int:
        """Requests submitted here and not finished (queued, running, not yet arrived)."""
        return len(self.running) + len(self.waiting) + len(self.feed.pending)

    def kv_used_blocks(self) -> int:
        return self.cfg.num_blocks - self.free

    def cached_prefix_blocks(self, r: int) -> int:
        """Full blocks of r's prompt this engine's prefix cache holds now (0 without one);
        looks, takes nothing."""
        if self.cache is None:
            return 0
        bs = self._bs
        most = (self._p[r] - 1) // bs
        return self.cache.lookup(self.identity.keys(r, 0, most, bs))[0] if most > 0 else 0

    def cancel(self, r: int) -> bool:
        """The client went away (a voice barge-in): r leaves the engine now, its blocks go
        back to the pool (cached full blocks stay cached, as vLLM frees an aborted request).
        Its finish time is the cancel time and `cancelled[r]` is set. False if r had
        already finished or was never submitted here."""
        if not math.isnan(self.finish[r]):
            return False
        if r in self.running:
            self._give_back(r, finished=False)
            self.running.remove(r)
        elif r in self.waiting:
            self.waiting.remove(r)
        elif self.feed is not None and r in self.feed.pending:
            self.feed.pending.remove(r)
        else:
            return False
        self._pending_resume.pop(r, None)
        self.finish[r] = self.now
        self.cancelled[r] = True
        self.done += 1
        self._record(0, 0)
        return True

    def step_series(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(time, steps, tokens) of every event so far, as views of the engine's arrays (no
        copy; valid until the next advance): what result() will report for them."""
        self._flush_series()
        return (np.frombuffer(self._s_t, dtype=np.float64), np.frombuffer(self._s_steps, dtype=np.int64),
                np.frombuffer(self._s_tok, dtype=np.int64))

    def result(self) -> ReplayResult:
        return self._result()
