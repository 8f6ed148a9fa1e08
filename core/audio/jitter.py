"""§3.3.3 实时播放: what the network does to a stream, and the buffer that rides it out.

network_delays_s gives each chunk its delay (a list, or a seeded jitter model); DelayEstimator
learns the jitter buffer's target from the arrivals seen so far, as WebRTC's NetEq does in
spirit. The model's playout (core.audio.timeline) and the real-time engine's network thread
(audio/network.py) run the same estimator.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from core.request.metrics import nearest_rank
from core.units import MS


def network_delays_s(chunks: int, network_ms, jitter_ms: float = 0.0, spike_prob: float = 0.0,
                     spike_ms: float = 0.0, seed: int = 0) -> np.ndarray:
    """One network delay per chunk, in seconds.

    network_ms: a number or a list; a list shorter than the stream repeats its last value
    (so `5` means 5 ms for every chunk and `5,5,50,5` is one spike on chunk 2).
    On top, a seeded jitter model: an exponential extra delay with mean jitter_ms (the
    network never gets faster than its base delay) and, with probability spike_prob,
    a spike of spike_ms. Same seed, same delays.
    """
    base = np.atleast_1d(np.asarray(network_ms, dtype=float))
    delays = np.full(chunks, base[-1])
    k = min(chunks, base.size)
    delays[:k] = base[:k]
    if jitter_ms > 0 or (spike_prob > 0 and spike_ms > 0):
        rng = np.random.default_rng(int(seed))
        if jitter_ms > 0:
            delays += rng.exponential(jitter_ms, chunks)
        if spike_prob > 0 and spike_ms > 0:
            delays += np.where(rng.random(chunks) < spike_prob, spike_ms, 0.0)
    return delays * MS


@dataclass
class DelayEstimator:
    """Target buffer from observed arrival jitter, as WebRTC's NetEq does in spirit.

    Each arrival's relative delay is how much later it came than the fastest chunk so far
    would predict: d_j = (a_j − j·F) − min_k (a_k − k·F). The target is the nearest-rank
    quantile of the last `window` relative delays, at least min_target_s. Incremental and
    allocation-light, so the engine's network thread can run the same code live.
    """

    chunk_s: float
    min_target_s: float
    quantile: float = 0.95
    window: int = 50
    _best: float = math.inf
    _raw: list = field(default_factory=list)
    _target: float | None = None  # computed once per observation, not per read

    def observe(self, index: int, arrival_s: float) -> float:
        """Record chunk `index` arriving at arrival_s; return the new target in seconds."""
        offset = arrival_s - index * self.chunk_s
        self._raw.append(offset)
        if offset < self._best:
            self._best = offset
        if len(self._raw) > self.window:
            del self._raw[0]
        rel = sorted(self._raw)
        rank = nearest_rank(len(rel), self.quantile)
        self._target = max(self.min_target_s, rel[rank - 1] - self._best)
        return self._target

    @property
    def target_s(self) -> float:
        return self.min_target_s if self._target is None else self._target
