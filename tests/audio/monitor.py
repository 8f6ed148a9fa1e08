"""Record what reached the PulseAudio null sink (its monitor source), with wall-clock times.

parec delivers the monitor's samples in small reads; each read is stamped on arrival.
Reads can be late but never early, so the recording's start is the earliest of
(arrival time − samples so far / rate) over all reads: a sample's wall time is then
start + index / rate, to within the monitor's own capture latency, which the tests
measure (they compare onsets with the engine's log) instead of assuming.
"""
from __future__ import annotations

import shutil
import subprocess
import threading
import time

import numpy as np

from audio.sinks import realtime_thread

RATE_HZ = 48_000


def _realtime() -> None:
    realtime_thread(15)


def monitor_source() -> str | None:
    """The null sink's monitor, when a PulseAudio server with `labsink` is running."""
    if not shutil.which("parec") or not shutil.which("pactl"):
        return None
    try:
        out = subprocess.run(["pactl", "list", "short", "sources"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    names = [line.split("\t")[1] for line in out.stdout.splitlines() if "\t" in line]
    for name in names:
        if name == "labsink.monitor":
            return name
    return next((n for n in names if n.endswith(".monitor")), None)


class MonitorRecorder:
    def __init__(self, source: str, rate_hz: int = RATE_HZ):
        self.rate_hz = rate_hz
        # On a busy machine a recorder that is not scheduled in time loses samples, and the
        # rest of the recording then reads early: parec and its reader get a real-time
        # priority where that is allowed (as the engine's threads do), and some buffer.
        self._proc = subprocess.Popen(
            ["parec", "-d", source, f"--rate={rate_hz}", "--channels=1", "--format=float32le", "--raw",
             "--latency-msec=10"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, preexec_fn=_realtime)
        self._parts: list[bytes] = []
        self._stamps: list[tuple[float, int]] = []  # (perf_counter after read, bytes so far)
        self._total = 0
        self.lost_s = 0.0  # recording time lost to dropped samples (known after stop)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        realtime_thread(15)
        stream = self._proc.stdout
        while True:
            data = stream.read1(4096) if hasattr(stream, "read1") else stream.read(4096)
            if not data:
                return
            t = time.perf_counter()
            self._total += len(data)
            self._parts.append(data)
            self._stamps.append((t, self._total))

    def wait_started(self, timeout: float = 30.0) -> bool:
        end = time.perf_counter() + timeout
        while time.perf_counter() < end:
            if self._total >= 4 * self.rate_hz * 0.05:
                return True
            time.sleep(0.01)
        return False

    def stop(self) -> tuple[np.ndarray, float]:
        """(samples, wall time of sample 0 as perf_counter)."""
        self._proc.terminate()
        try:
            self._proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self._proc.kill()
        self._thread.join(timeout=2)
        raw = b"".join(self._parts)
        raw = raw[: len(raw) // 4 * 4]
        samples = np.frombuffer(raw, dtype="<f4").copy()
        starts = [t - (count // 4) / self.rate_hz for t, count in self._stamps]
        start = min(starts) if starts else float("nan")
        # Samples the server or parec dropped (a starved machine) make everything after them
        # read early: then even the latest reads' own starts stay behind the earliest one.
        tail = starts[len(starts) * 3 // 4:]
        self.lost_s = (min(tail) - start) if tail else 0.0
        return samples, start
