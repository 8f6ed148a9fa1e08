"""§3.3.3 实时播放: an interrupt (barge-in) and the moments that follow it.

An interrupt at t is seen by the device at the first device-quantum boundary (absolute
multiples of the quantum) at or after t + control delay; the backend stop and the release
of buffers and state are two later moments with their own delays. The real-time engine's
interrupt controller (audio/interrupt.py) stamps the same moments.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core.audio.timeline import Timeline


def quantum_boundary_at_or_after(t: float, quantum_s: float) -> float:
    """First absolute multiple of the quantum at or after t."""
    return math.ceil(round(t / quantum_s, 9)) * quantum_s


@dataclass(frozen=True)
class InterruptMoments:
    interrupt_s: float
    command_at_s: float  # the mute command reaches the device
    mute_at_s: float
    backend_stop_at_s: float
    release_at_s: float

    @property
    def interrupt_to_mute_s(self) -> float:
        return self.mute_at_s - self.interrupt_s


def interrupt_moments(interrupt_s: float, control_delay_s: float, quantum_s: float,
                      backend_stop_s: float, release_s: float) -> InterruptMoments:
    """Mute at the first device quantum boundary at or after t + control delay; the
    backend stops generating backend_stop_s after the interrupt; buffers and state are
    released release_s after that."""
    command = interrupt_s + control_delay_s
    stop = interrupt_s + backend_stop_s
    return InterruptMoments(interrupt_s, command, quantum_boundary_at_or_after(command, quantum_s), stop, stop + release_s)


def audible_between(tl: Timeline, t0: float, t1: float) -> float:
    """Seconds within [t0, t1] during which some chunk was playing."""
    overlap = np.clip(np.minimum(tl.play_end, t1) - np.maximum(tl.play_start, t0), 0.0, None)
    return float(overlap.sum())
