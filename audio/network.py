"""The pipeline and network stage: releases chunks to the player on the model's schedule.

The model (core.audio.timeline) says when each chunk finishes processing and when it
arrives; this thread sleeps until each arrival and hands the chunk to the jitter buffer,
stamping the measured time. Once the backend has been told to stop, chunks whose
generation would have finished after the stop are never produced.
"""
from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

import numpy as np

from audio.events import ARRIVAL, DROPPED, FIRST_PLAY, TARGET, EventRing
from audio.playout import Playout
from audio.sinks import realtime_thread
from core.audio.jitter import DelayEstimator

_SPIN_S = 0.0015  # sleep coarse, then wait the last bit in short sleeps for ~0.1 ms accuracy


class NetworkStage(threading.Thread):
    def __init__(self, playout: Playout, arrival_s: np.ndarray, processed_s: np.ndarray, buffer_s: float,
                 clock: Callable[[], float], adaptive_min_target_s: float | None = None):
        super().__init__(name="audio-network", daemon=True)
        self.playout = playout
        self.arrival_s = np.asarray(arrival_s, dtype=float)
        self.processed_s = np.asarray(processed_s, dtype=float)
        self.buffer_s = float(buffer_s)
        self.clock = clock
        self.events = EventRing(2 * self.arrival_s.size + 16)
        self.stop_at = math.inf  # the backend stops generating (set by the interrupt controller)
        self._halt = threading.Event()
        self.estimator = DelayEstimator(playout.chunk_s, playout.chunk_s if adaptive_min_target_s is None
                                        else adaptive_min_target_s)
        playout.target_s = self.buffer_s if not playout.adaptive else self.estimator.target_s

    def halt(self) -> None:
        self._halt.set()

    def _sleep_until(self, t: float) -> bool:
        """False when halted meanwhile."""
        while True:
            left = t - self.clock()
            if left <= 0:
                return not self._halt.is_set()
            if left > _SPIN_S:
                if self._halt.wait(left - _SPIN_S):
                    return False
            else:
                time.sleep(left / 2)

    def run(self) -> None:
        realtime_thread(10)
        order = np.argsort(self.arrival_s, kind="stable")
        for i in order:
            i = int(i)
            if not self._sleep_until(self.arrival_s[i]):
                return
            if self.processed_s[i] > self.stop_at:
                self.events.push(DROPPED, i, self.clock(), self.arrival_s[i])
                continue
            t = self.clock()
            self.playout.mark_arrived(i)
            self.events.push(ARRIVAL, i, t, self.arrival_s[i])
            if i == 0:
                # The jitter buffer is counted from when chunk 0 really arrived.
                self.playout.first_play_t = t + self.buffer_s
                self.events.push(FIRST_PLAY, 0, t, t + self.buffer_s)
            if self.playout.adaptive:
                old = self.playout.target_s
                new = self.estimator.observe(i, t)
                self.playout.target_s = new
                if abs(new - old) > 1e-4:
                    self.events.push(TARGET, i, t, new)
