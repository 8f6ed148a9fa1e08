"""The Voice panel's stages: their names in both languages and colour kinds, the lanes
that belong to the silence gap, and the clock the figures share (ms since the user's last
word)."""
from __future__ import annotations

import numpy as np

S_TO_MS = 1e3

# Stage name (core.voice) -> (中文, English, colour kind). Names not listed keep their own name.
STAGES = {
    "vad": ("VAD 端点", "VAD endpoint", "wait"),
    "asr": ("ASR 定稿", "ASR final", "ec"),
    "uplink": ("上行", "uplink", "arrival"),
    "queue": ("排队", "queue", "backlog"),
    "prefill": ("预填充", "prefill", "prefill"),
    "decode": ("首句解码", "first clause", "decode"),
    "tts": ("TTS 首包", "TTS first audio", "tool"),
    "network": ("下行", "downlink", "arrival"),
    "downlink": ("下行", "downlink", "arrival"),
    "buffer": ("抖动缓冲", "jitter buffer", "state"),
    "jitter_buffer": ("抖动缓冲", "jitter buffer", "state"),
    "device": ("设备", "device", "muted"),
    "speaker": ("设备", "device", "muted"),
}
REPLY_LANE = "回复播放 · reply"
AFTER_GAP = ("reply", "barge_in")  # core.voice spans after the silence gap: not lanes of the gap
ARRIVAL_LANES = ("downlink", "network", "buffer", "jitter_buffer")


def stage_names(name: str) -> tuple[str, str]:
    """(中文, English) of a stage."""
    zh, en, _ = STAGES.get(name, (name, name, "ink"))
    return zh, en


def stage_label(name: str) -> str:
    zh, en = stage_names(name)
    return zh if zh == en else f"{zh} · {en}"


def stage_kind(name: str) -> str:
    return STAGES.get(name, (name, name, "ink"))[2]


def ms_since(t, origin_s: float) -> np.ndarray:
    """Times on the replay's clock (s) as ms since origin_s (the user's last word)."""
    return (np.asarray(t, dtype=float) - origin_s) * S_TO_MS
