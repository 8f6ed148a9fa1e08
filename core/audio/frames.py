"""§3.3.2 语音:帧内还有一层循环 (Fish Audio S2 Pro).

The slow path advances one acoustic frame per step; inside each frame the fast path runs
1 forward to set up its state and 9 more to fill in the codebooks: 10 fast forwards per
frame. So "language token/s", "acoustic frame/s" and "seconds of audio per second" are
three different speeds; this calculator turns step times into all three.
"""
from __future__ import annotations

from core.registry import BookRef, BookValue, Calculator, Output, Param
from core.units import MS

# Bounds that keep every speed finite (frame time >= 1 µs, so frames/s <= 1e6 and audio
# s/s <= 1e7): a model step faster than a microsecond, or a codec frame longer than 10 s of
# audio, is no model of the book's.
STEP_MIN_MS = 0.001
FRAMES_PER_AUDIO_S_MIN = 0.1


def frames(slow_steps_per_frame: int, setup_forwards: int, codebook_predictions: int, slow_step_ms: float,
           fast_forward_ms: float, frames_per_audio_s: float, text_tokens_per_audio_s: float) -> dict:
    fast_forwards_per_frame = setup_forwards + codebook_predictions
    frame_s = slow_steps_per_frame * slow_step_ms * MS + fast_forwards_per_frame * fast_forward_ms * MS
    frames_per_s = 1.0 / frame_s
    audio_s_per_s = frames_per_s / frames_per_audio_s
    # The slow head predicts the first codebook; the 9 fast predictions the rest.
    codebooks = 1 + codebook_predictions
    return {
        "fast_forwards_per_frame": fast_forwards_per_frame,
        "forwards_per_frame": slow_steps_per_frame + fast_forwards_per_frame,
        "codebook_tokens_per_frame": codebooks,
        "frame_time_s": frame_s,
        "frames_per_s": frames_per_s,
        "fast_forwards_per_s": frames_per_s * fast_forwards_per_frame,
        "codebook_tokens_per_s": frames_per_s * codebooks,
        "audio_s_per_s": audio_s_per_s,
        "text_tokens_per_s": audio_s_per_s * text_tokens_per_audio_s,
        "real_time": audio_s_per_s >= 1.0,
    }


FRAMES = Calculator(
    name="audio.frames",
    title="语音的帧循环 · token/s vs frame/s vs audio s/s",
    ref=BookRef("3.3.2", "Fish Audio S2 Pro"),
    params=(
        Param("slow_steps_per_frame", "steps", 1, "slow path: one step per acoustic frame (book)", 1, 100, kind="int"),
        Param("setup_forwards", "forwards", 1, "fast path: forwards that set up its state (book: 1)", 0, 100, kind="int"),
        Param("codebook_predictions", "forwards", 9, "fast path: predictions that fill in the codebooks (book: 9)", 0, 1000,
              kind="int"),
        Param("slow_step_ms", "ms", 12.0, "time of one slow step", STEP_MIN_MS, 10_000, illustrative=True),
        Param("fast_forward_ms", "ms", 1.2, "time of one fast forward", 0, 10_000, illustrative=True),
        Param("frames_per_audio_s", "frames/s", 21.5, "codec frames per second of audio", FRAMES_PER_AUDIO_S_MIN,
              10_000, illustrative=True),
        Param("text_tokens_per_audio_s", "tokens/s", 4.0, "text tokens spoken per second of audio", 0, 1000,
              illustrative=True),
    ),
    outputs=(
        Output("fast_forwards_per_frame", "forwards", "fast-path forwards per frame", "1 set-up + 9 predictions"),
        Output("forwards_per_frame", "forwards", "model forwards behind one acoustic frame", "slow + fast"),
        Output("codebook_tokens_per_frame", "tokens", "codebook ids per frame", "1 + 9"),
        Output("frame_time_s", "s", "generation time of one frame", "slow·t_slow + fast·t_fast"),
        Output("frames_per_s", "frames/s", "acoustic frames generated per second", "1 / frame time"),
        Output("fast_forwards_per_s", "forwards/s", "fast-path forwards per second", "frames/s × 10"),
        Output("codebook_tokens_per_s", "tokens/s", "codebook tokens per second", "frames/s × 10"),
        Output("audio_s_per_s", "s/s", "seconds of audio per second (≥ 1 keeps up with playback)",
               "frames/s ÷ codec frames per audio s"),
        Output("text_tokens_per_s", "tokens/s", "text spoken per second of generation", "audio s/s × text tokens per audio s"),
        Output("real_time", "bool", "generation keeps up with playback", "audio s/s ≥ 1"),
    ),
    compute=frames,
    note="步时与 codec 帧率为示意",
    book=(
        BookValue("fast_forwards_per_frame", 10, "即每帧 10 次快速前向"),
        BookValue("codebook_tokens_per_frame", 10, "1 次前向建立状态,再 9 次预测补齐码本", derived=True),
        BookValue("forwards_per_frame", 11, "慢速 1 步 + 每帧 10 次快速前向", derived=True),
    ),
)

CALCULATORS = (FRAMES,)
