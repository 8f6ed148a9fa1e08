"""Barge-in: mute, backend stop and release, as the model says, logged with measured times.

interrupt() stamps the moment and computes the modelled moments (core.audio.interrupt):
the mute command reaches the device after the control delay and the device applies it at
its next quantum boundary; the backend stops generating later; buffers and state are
released later still. A control thread carries each step out at its moment and logs the
time it actually happened.
"""
from __future__ import annotations

import threading
from collections.abc import Callable

from audio.events import BACKEND_STOP, COMMAND, INTERRUPT, RELEASE, EventRing
from audio.sinks import realtime_thread
from core.audio.interrupt import InterruptMoments, interrupt_moments


class InterruptController:
    def __init__(self, clock: Callable[[], float], control_delay_s: float, quantum_s: float,
                 backend_stop_s: float, release_s: float, *, on_command: Callable[[float], None],
                 on_backend_stop: Callable[[float], None], on_release: Callable[[], None]):
        self.clock = clock
        self.control_delay_s = control_delay_s
        self.quantum_s = quantum_s
        self.backend_stop_s = backend_stop_s
        self.release_s = release_s
        self._on_command = on_command
        self._on_backend_stop = on_backend_stop
        self._on_release = on_release
        self.events = EventRing(64)
        self.moments: InterruptMoments | None = None
        self.measured: dict[str, float] = {}
        self._halt = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def interrupted(self) -> bool:
        return self.moments is not None

    def logged(self, step: str) -> bool:
        """The step ('command', 'backend_stop', 'release') happened and its event is logged."""
        return self.measured.get(step) is not None

    def interrupt(self, at_s: float | None = None) -> InterruptMoments | None:
        """Barge in now (or at engine time at_s, for tests and replays). Only the first counts."""
        if self.moments is not None:
            return None
        t = self.clock() if at_s is None else at_s
        self.moments = interrupt_moments(t, self.control_delay_s, self.quantum_s, self.backend_stop_s, self.release_s)
        self._thread = threading.Thread(target=self._run, name="audio-interrupt", daemon=True)
        self._thread.start()
        return self.moments

    def halt(self) -> None:
        self._halt.set()

    def _wait_until(self, t: float) -> bool:
        left = t - self.clock()
        if left > 0 and self._halt.wait(left):
            return False
        return not self._halt.is_set()

    def _run(self) -> None:
        realtime_thread(10)
        m = self.moments
        assert m is not None  # set before the thread starts
        self.events.push(INTERRUPT, -1, m.interrupt_s, 0.0)
        self.measured["interrupt"] = m.interrupt_s
        if not self._wait_until(m.command_at_s):
            return
        self._on_command(m.mute_at_s)
        t = self.clock()
        self.events.push(COMMAND, -1, t, m.interrupt_s)
        self.measured["command"] = t
        steps = ((m.backend_stop_at_s, "backend_stop", BACKEND_STOP), (m.release_at_s, "release", RELEASE))
        for when, name, kind in steps:
            if not self._wait_until(when):
                return
            if name == "backend_stop":
                self._on_backend_stop(when)
            else:
                self._on_release()
            t = self.clock()
            self.events.push(kind, -1, t, when)
            self.measured[name] = t  # last: logged() then means the event is in the ring
