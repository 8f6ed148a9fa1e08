"""One link between two instances: transfers go one after another (FCFS by the time each
is ready), each taking bytes / bandwidth, and land `latency_s` after their last byte left.

Whole transfers, not layer by layer (stated: a KV handoff here starts when the prefill
has finished, as vLLM's NIXL connector does; overlapping layers would hide part of it)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.registry import ParamError


@dataclass(frozen=True)
class Link:
    bandwidth_bytes_per_s: float
    latency_s: float = 0.0

    def __post_init__(self):
        if not self.bandwidth_bytes_per_s > 0:
            raise ParamError("link_bandwidth", f"got {self.bandwidth_bytes_per_s!r}; valid: > 0 bytes/s")
        if not self.latency_s >= 0:
            raise ParamError("link_latency_s", f"got {self.latency_s!r}; valid: >= 0 s")

    def seconds(self, nbytes: float) -> float:
        """One transfer alone on the link."""
        return float(nbytes) / self.bandwidth_bytes_per_s + self.latency_s

    def send(self, ready_s: np.ndarray, nbytes: np.ndarray) -> np.ndarray:
        """When each transfer lands. A transfer of 0 bytes sends nothing: it lands when ready."""
        ready = np.asarray(ready_s, dtype=float)
        size = np.asarray(nbytes, dtype=float)
        land = ready.copy()
        free = 0.0
        for i in np.argsort(ready, kind="stable"):
            if size[i] <= 0:
                continue
            start = max(free, ready[i])
            free = start + size[i] / self.bandwidth_bytes_per_s
            land[i] = free + self.latency_s
        return land
