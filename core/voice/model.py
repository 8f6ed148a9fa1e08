"""What a voice simulation gives back: turns made of named spans on the replay's clock.

Times are seconds on the serving replay's clock (the background's t = 0). A turn's silence
gap runs from the user's last word (the start of its first span) to the first audible
sample of the reply; the STAGES spans tile it exactly, so their lengths sum to it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.request.metrics import nearest_rank

# The silence gap, stage by stage (contiguous spans, in this order).
STAGES = ("vad", "asr", "uplink", "queue", "prefill", "decode", "tts", "downlink", "buffer", "device")
# After the gap: the reply playing ("reply", until its end or the mute); with a barge-in
# also "barge_in" (the user's new words -> the device mutes), as the model's own spans.
AFTER = ("reply", "barge_in")


@dataclass(frozen=True)
class Span:
    name: str
    start_s: float
    end_s: float

    @property
    def duration_s(self) -> float:
        return self.end_s - self.start_s


@dataclass(frozen=True)
class BargeIn:
    """图 3-19's three moments plus the engine's: when the LLM request left the replay."""

    interrupt_s: float  # the user speaks again
    mute_s: float  # the device goes silent (next device quantum after the control delay)
    backend_stop_s: float  # LLM and TTS cancelled
    release_s: float  # buffers and state released
    engine_cancel_s: float  # the engine's clock when the request was cancelled (>= backend stop: a step ends first)
    freed_kv: bool  # the request still held KV blocks (it had not finished)


@dataclass(eq=False)
class Turn:
    index: int
    request: int  # the LLM request's row in the replay (workload order of VoiceRun.replay)
    spans: list[Span]
    silence_s: float
    underruns: int
    stall_s: float  # silence added by stalls while the reply played (before any mute)
    reply_s: float  # audio heard: first audible sample -> end of playback (or the mute)
    chunk_arrivals_s: np.ndarray  # each playback chunk's arrival at the jitter buffer (chunk_ms each)
    cancelled: bool  # barge-in cancelled the LLM request before it finished
    play_start_s: np.ndarray = field(default_factory=lambda: np.zeros(0))  # each chunk's hand-over to the device
    token_times_s: np.ndarray = field(default_factory=lambda: np.zeros(0))  # the reply's text tokens (as produced)
    tts_chunk_arrivals_s: np.ndarray = field(default_factory=lambda: np.zeros(0))  # first chunk of each TTS chunk
    barge_in: BargeIn | None = None

    @property
    def start_s(self) -> float:
        """The user's last word."""
        return self.spans[0].start_s

    @property
    def audible_s(self) -> float:
        return self.start_s + self.silence_s

    def span(self, name: str) -> Span:
        for s in self.spans:
            if s.name == name:
                return s
        raise KeyError(name)

    def stage_s(self) -> dict[str, float]:
        """Length of each stage of the silence gap (they sum to silence_s)."""
        return {s.name: s.end_s - s.start_s for s in self.spans if s.name in STAGES}


@dataclass(eq=False)
class VoiceRun:
    params: Any  # VoiceParams
    turns: list[Turn]
    summary: dict
    background: Any  # the serving replay's ReplayResult (background and turns: one engine)
    background_rows: np.ndarray  # rows of the replay that are background (not turns)
    source: str = ""

    @property
    def replay(self) -> Any:
        return self.background

    def silences_s(self) -> np.ndarray:
        return np.array([t.silence_s for t in self.turns])

    def turn_index(self, percentile: float) -> int:
        """Index of the turn at this silence percentile (0..100; 95 = the p95 turn), by
        nearest rank as the summary's silence_p95_ms (the turn whose silence it is)."""
        p = float(percentile)
        if not 0.0 <= p <= 100.0:
            raise ValueError(f"percentile {percentile!r}: valid 0..100")
        s = self.silences_s()
        order = np.argsort(s, kind="stable")
        return int(order[nearest_rank(s.size, p / 100.0) - 1])
