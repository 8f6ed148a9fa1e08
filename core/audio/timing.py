"""§3.3.3 实时播放 (图 3-18/3-19, 练习 3-5): every chunk has to arrive on time.

The calculators of a streamed voice reply: its chunk timeline with a jitter buffer and an
interrupt (audio.timeline), two initial buffers compared (audio.buffer_compare) and a buffer
draining when arrivals fall behind playback (audio.drain). The model they compute from is
core.audio.jitter (network delays, the adaptive target), core.audio.timeline (the pipeline
and the player) and core.audio.interrupt (barge-in moments).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import numpy as np

from core.audio.interrupt import audible_between, interrupt_moments
from core.audio.timeline import AudioFormat, Timeline, build_timeline
from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError
from core.units import MS


def _stream_params(buffer_default: float = 40.0, network_default=(5.0,), chunks_default: int = 10) -> tuple[Param, ...]:
    return (
        Param("sample_rate_hz", "Hz", 24_000, "samples per second (book: 24 kHz)", 8_000, 192_000, kind="int"),
        Param("channels", "", 1, "1 = mono (book)", 1, 8, kind="int"),
        Param("bytes_per_sample", "bytes", 2, "16-bit PCM = 2 bytes (book)", 1, 4, kind="int"),
        Param("chunk_ms", "ms", 20.0, "audio per chunk = one frame (book: 20 ms)", 1, 1000, min_exclusive=False),
        Param("chunks", "chunks", chunks_default, "chunks in the stream", 1, 30_000, kind="int", illustrative=True),
        Param("process_ms", "ms", 12.0, "model/processing time per chunk, one stage, serial (book: 12 ms)", 0, 10_000),
        Param("send_ms", "ms", 1.0, "send time per chunk, one link, serial (book: 1 ms)", 0, 10_000),
        Param("network_ms", "ms", network_default,
              "network delay per chunk; a shorter list repeats its last value (book: typically 5 ms)",
              0, 60_000, kind="floats"),
        Param("jitter_ms", "ms", 0.0, "seeded jitter: mean extra delay (exponential)", 0, 10_000, illustrative=True),
        Param("spike_prob", "", 0.0, "seeded jitter: chance of a spike per chunk", 0, 1, illustrative=True),
        Param("spike_ms", "ms", 0.0, "seeded jitter: size of a spike", 0, 60_000, illustrative=True),
        Param("seed", "", 0, "seed of the jitter model: same seed, same delays", 0, 2**31 - 1, kind="int"),
        Param("buffer_ms", "ms", buffer_default, "jitter buffer: wait after chunk 0 arrives (book: 40 ms)", 0, 600_000),
        Param("adaptive", "", False, "after an underrun, rebuffer to a target learned from the jitter (NetEq-like)", kind="bool"),
    )


def _check_stream(values: dict, buffer_keys=("buffer_ms",)) -> None:
    samples = values["sample_rate_hz"] * values["chunk_ms"] * MS
    if abs(samples - round(samples)) > 1e-6 or round(samples) < 1:
        raise ParamError("chunk_ms", f"got {values['chunk_ms']:g} ms = {samples:g} samples at "
                                     f"{values['sample_rate_hz']} Hz; valid: a whole number of samples (≥ 1)")
    stream_ms = values["chunks"] * values["chunk_ms"]
    for key in buffer_keys:
        if values[key] > stream_ms + 1e-9:
            raise ParamError(key, f"got {values[key]:g} ms, longer than the stream; valid: <= {stream_ms:g} ms "
                                  f"(chunks × chunk_ms)")


STREAM_KEYS = ("chunks", "chunk_ms", "process_ms", "send_ms", "network_ms", "jitter_ms", "spike_prob", "spike_ms",
               "seed", "adaptive")


def stream_timeline(values: Mapping[str, Any], buffer_ms: float | None = None) -> Timeline:
    """The stream of a calculator's checked values; buffer_ms overrides values['buffer_ms'].

    A long adaptive stream takes up to a second to lay out, and the card, the figure and the
    engine all ask for the same one: the last few are kept (read-only arrays, shared)."""
    key = _stream_key(values, buffer_ms)
    with _CACHE_LOCK:
        tl = _CACHE.get(key)
        if tl is not None:
            _CACHE.move_to_end(key)
            return tl
    tl = build_timeline(**dict(zip(STREAM_KEYS, key[:-1])), buffer_ms=key[-1])
    for name in ("captured", "processed", "sent", "arrival", "deadline", "play_start", "stall", "target"):
        getattr(tl, name).flags.writeable = False
    with _CACHE_LOCK:
        _CACHE[key] = tl
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return tl


def has_timeline(values: Mapping[str, Any], buffer_ms: float | None = None) -> bool:
    """stream_timeline(values, buffer_ms) is at hand (no layout to wait for)."""
    with _CACHE_LOCK:
        return _stream_key(values, buffer_ms) in _CACHE


def _stream_key(values: Mapping[str, Any], buffer_ms: float | None) -> tuple:
    return tuple(tuple(values[k]) if k == "network_ms" else values[k] for k in STREAM_KEYS) + (
        float(values["buffer_ms"] if buffer_ms is None else buffer_ms),)


_CACHE: OrderedDict = OrderedDict()
_CACHE_SIZE = 8
_CACHE_LOCK = threading.Lock()


def timeline(**values) -> dict:
    tl = stream_timeline(values)
    fmt = AudioFormat(values["sample_rate_hz"], values["channels"], values["bytes_per_sample"])
    chunk_bytes = fmt.chunk_bytes(tl.chunk_s)
    im = interrupt_moments(values["interrupt_at_ms"] * MS, values["control_delay_ms"] * MS,
                           values["device_quantum_ms"] * MS, values["backend_stop_ms"] * MS,
                           values["release_ms"] * MS)
    return _tidy({
        "chunk_bytes": chunk_bytes,
        "first_arrival_s": float(tl.arrival[0]),
        "first_playback_s": tl.first_playback_s,
        "deadline_misses": int(tl.misses.sum()),
        "underruns": int(tl.underruns().size),
        "total_stall_s": float(tl.stall.sum()),
        "max_lateness_s": float(tl.lateness.max()),
        "playback_finish_s": tl.finish_s,
        "ready_queue_peak_bytes": tl.ready_queue_peak() * chunk_bytes,
        "mute_at_s": im.mute_at_s,
        "interrupt_to_mute_s": im.interrupt_to_mute_s,
        "audible_after_interrupt_s": audible_between(tl, im.interrupt_s, im.mute_at_s),
        "backend_stop_at_s": im.backend_stop_at_s,
        "release_at_s": im.release_at_s,
        "arrival_s": tl.arrival.tolist(),
        "deadline_s": tl.deadline.tolist(),
        "play_start_s": tl.play_start.tolist(),
        "stall_s": tl.stall.tolist(),
    })


def _tidy(out: dict) -> dict:
    """Round float outputs to the picosecond: 0.155 + 0.005 prints as 0.16, not 0.16000000000000003."""
    return {k: round(v, 12) if isinstance(v, float) else v for k, v in out.items()}


QUANTUM_MIN_MS = 0.001

_INTERRUPT_PARAMS = (
    Param("interrupt_at_ms", "ms", 150.0, "the user barges in at this moment", 0, 3_600_000, illustrative=True),
    Param("control_delay_ms", "ms", 5.0, "the mute command takes this long to reach the device (book: 5 ms)", 0, 10_000),
    # At least 1 µs: a device checks its commands at most once per sample (5.2 µs at 192 kHz),
    # and the mute moment is counted in quanta (an hour of stream in 1 µs quanta is 3.6e9).
    Param("device_quantum_ms", "ms", 10.0, "the device checks for commands every quantum (book: 10 ms)",
          QUANTUM_MIN_MS, 10_000),
    Param("backend_stop_ms", "ms", 30.0, "interrupt → backend stops generating", 0, 60_000, illustrative=True),
    Param("release_ms", "ms", 20.0, "backend stop → buffers and state released", 0, 60_000, illustrative=True),
)

_SPIKE = {"network_ms": "5,5,50,5"}  # chunk 2 is held up 45 ms extra: the example spike (示意)

TIMELINE = Calculator(
    name="audio.timeline",
    title="每一块都要按时到 · chunk timeline, jitter buffer and interrupt",
    ref=BookRef("3.3.3", "图 3-18/3-19"),
    params=_stream_params() + _INTERRUPT_PARAMS,
    outputs=(
        Output("chunk_bytes", "bytes", "PCM bytes in one chunk", "rate × chunk × bytes/sample × channels"),
        Output("first_arrival_s", "s", "chunk 0 reaches the player", "F + process + send + network₀"),
        Output("first_playback_s", "s", "playback starts", "a₀ + jitter buffer"),
        Output("deadline_misses", "chunks", "chunks that arrive after their deadline", "#{i : aᵢ > first + i·F}"),
        Output("underruns", "count", "times the player ran dry and stalled", "#{i : stallᵢ > 0}"),
        Output("total_stall_s", "s", "silence added by stalls (the rest of the stream shifts)", "Σ stallᵢ"),
        Output("max_lateness_s", "s", "worst play start − deadline", "max(startᵢ − deadlineᵢ)"),
        Output("playback_finish_s", "s", "last chunk ends, as scheduled before any interrupt", "start_last + F"),
        Output("ready_queue_peak_bytes", "bytes", "most audio waiting in the ready queue",
               "max_t #{i : aᵢ ≤ t < startᵢ} × chunk bytes"),
        Output("mute_at_s", "s", "the device goes silent", "⌈(t_int + control)/quantum⌉ · quantum"),
        Output("interrupt_to_mute_s", "s", "barge-in → silence", "mute − t_int"),
        Output("audible_after_interrupt_s", "s", "audio still heard after the interrupt", "|play ∩ [t_int, mute]|"),
        Output("backend_stop_at_s", "s", "the backend stops generating", "t_int + backend stop delay"),
        Output("release_at_s", "s", "buffers and state are released", "backend stop + release delay"),
        Output("arrival_s", "s", "per chunk: arrival (dots)", "aᵢ", kind="series"),
        Output("deadline_s", "s", "per chunk: scheduled playback (ticks)", "first + i·F", kind="series"),
        Output("play_start_s", "s", "per chunk: actual playback start (bars)", "max(start₍ᵢ₋₁₎ + F, aᵢ)", kind="series"),
        Output("stall_s", "s", "per chunk: stall added before it", "startᵢ − (start₍ᵢ₋₁₎ + F)", kind="series"),
    ),
    compute=timeline,
    check=_check_stream,
    note="打断时刻、后端与释放延迟为示意",
    book=(
        BookValue("chunk_bytes", 960, "24,000 × 0.020 × 2 = 960 bytes"),
        BookValue("first_arrival_s", 0.038, "第一块 38 ms 到"),
        BookValue("first_playback_s", 0.078, "38 ms + 40 ms 缓冲", derived=True),
        BookValue("deadline_misses", 0, "网络通常 5 ms:不停顿", derived=True),
        BookValue("total_stall_s", 0.0, "网络通常 5 ms:不停顿", derived=True, abs_tol=1e-12),
        BookValue("ready_queue_peak_bytes", 1920, "40 ms 缓冲 = 两块 × 960 bytes", derived=True),
        BookValue("playback_finish_s", 0.278, "78 ms + 10 块 × 20 ms", derived=True),
        BookValue("mute_at_s", 0.160, "150 + 5 ms → 下一个 10 ms 边界", derived=True),
        BookValue("interrupt_to_mute_s", 0.005, "控制延迟 5 ms,恰在 10 ms 边界:最短",
                  params={"interrupt_at_ms": 155}, derived=True),
        BookValue("interrupt_to_mute_s", 0.014, "控制延迟 5 ms + 等下一个 10 ms 检查",
                  params={"interrupt_at_ms": 156}, derived=True),
        BookValue("deadline_misses", 1, "一次网络尖峰(示意 5,5,50,5)", params=_SPIKE, derived=True),
        BookValue("total_stall_s", 0.005, "chunk 2 到 123 ms,原定 118 ms", params=_SPIKE, derived=True),
        BookValue("max_lateness_s", 0.005, "后面整体顺延 5 ms", params=_SPIKE, derived=True),
    ),
)


def buffer_compare(**values) -> dict:
    a = stream_timeline(values, values["buffer_a_ms"])
    b = stream_timeline(values, values["buffer_b_ms"])
    return _tidy({
        "first_playback_a_s": a.first_playback_s,
        "first_playback_b_s": b.first_playback_s,
        "extra_start_delay_s": b.first_playback_s - a.first_playback_s,
        "underruns_a": int(a.underruns().size),
        "underruns_b": int(b.underruns().size),
        "total_stall_a_s": float(a.stall.sum()),
        "total_stall_b_s": float(b.stall.sum()),
        "finish_a_s": a.finish_s,
        "finish_b_s": b.finish_s,
    })


BUFFER_COMPARE = Calculator(
    name="audio.buffer_compare",
    title="40 ms 与 60 ms 初始缓冲 · first playback vs stalls",
    ref=BookRef("3.3.3", "练习 3-5"),
    params=tuple(p for p in _stream_params(network_default=(5.0, 5.0, 50.0, 5.0)) if p.name != "buffer_ms") + (
        Param("buffer_a_ms", "ms", 40.0, "initial buffer A (练习 3-5: 40 ms)", 0, 600_000),
        Param("buffer_b_ms", "ms", 60.0, "initial buffer B (练习 3-5: 60 ms)", 0, 600_000),
    ),
    outputs=(
        Output("first_playback_a_s", "s", "A: playback starts", "a₀ + buffer A"),
        Output("first_playback_b_s", "s", "B: playback starts", "a₀ + buffer B"),
        Output("extra_start_delay_s", "s", "what B's safety costs up front", "buffer B − buffer A"),
        Output("underruns_a", "count", "A: stalls", "#{stallᵢ > 0}"),
        Output("underruns_b", "count", "B: stalls", "#{stallᵢ > 0}"),
        Output("total_stall_a_s", "s", "A: silence added", "Σ stallᵢ"),
        Output("total_stall_b_s", "s", "B: silence added", "Σ stallᵢ"),
        Output("finish_a_s", "s", "A: last chunk ends", "start_last + F"),
        Output("finish_b_s", "s", "B: last chunk ends", "start_last + F"),
    ),
    compute=buffer_compare,
    check=lambda v: _check_stream(v, ("buffer_a_ms", "buffer_b_ms")),
    note="网络 5,5,50,5 ms 为示意",
    book=(
        BookValue("first_playback_a_s", 0.078, "40 ms:38 + 40 = 78 ms 首播", derived=True),
        BookValue("first_playback_b_s", 0.098, "60 ms:38 + 60 = 98 ms 首播", derived=True),
        BookValue("underruns_a", 1, "40 ms:尖峰处停顿一次", derived=True),
        BookValue("total_stall_a_s", 0.005, "40 ms:停 5 ms", derived=True),
        BookValue("underruns_b", 0, "60 ms:不停顿", derived=True),
        BookValue("total_stall_b_s", 0.0, "60 ms:不停顿", derived=True, abs_tol=1e-12),
        BookValue("first_playback_b_s", 0.098, "网络恒为 5 ms 时两者都不停顿,只差首播",
                  params={"network_ms": "5"}, derived=True),
        BookValue("underruns_a", 0, "网络恒为 5 ms:40 ms 也不停顿", params={"network_ms": "5"}, derived=True),
    ),
)


def drain(arrival_rate_s_per_s: float, buffered_s: float) -> dict:
    """Playback consumes 1 s of audio per second; arrivals add `rate` s per second.
    The buffer shrinks at (1 − rate) s/s and runs dry after buffered / (1 − rate)."""
    deficit = round(1.0 - arrival_rate_s_per_s, 12)
    if deficit <= 0:
        return {"dry_at_s": None, "played_before_dry_s": None, "received_before_dry_s": None,
                "deficit_s_per_s": deficit, "stall_share_after_dry": 0.0}
    dry = buffered_s / deficit
    return _tidy({
        "dry_at_s": dry,
        "played_before_dry_s": dry,
        "received_before_dry_s": arrival_rate_s_per_s * dry,
        "deficit_s_per_s": deficit,
        # After it runs dry, only `rate` of each second can play: the rest is silence.
        "stall_share_after_dry": deficit,
    })


def drain_series(arrival_rate_s_per_s: float, buffered_s: float, horizon_s: float,
                 points: int = 400) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """t, A(t), P(t), B(t) for a steady trickle: A = buffered + rate·t, P = t until dry,
    after which playback can only follow arrivals."""
    t = np.linspace(0.0, horizon_s, points)
    arrived = buffered_s + arrival_rate_s_per_s * t
    played = np.minimum(t, arrived)
    return t, arrived, played, arrived - played


DRAIN = Calculator(
    name="audio.drain",
    title="到达跟不上播放,缓冲只是延后中断 · buffer drain",
    ref=BookRef("3.3.3", "练习 3-5"),
    params=(
        Param("arrival_rate_s_per_s", "s/s", 0.9, "seconds of playable audio arriving per second (练习 3-5: 0.9)", 0, 100),
        Param("buffered_s", "s", 0.3, "audio already buffered when playback starts (练习 3-5: 0.3 s)", 0, 3600),
    ),
    outputs=(
        Output("dry_at_s", "s", "the buffer runs out; absent when arrivals keep up", "B₀ / (1 − r)"),
        Output("played_before_dry_s", "s", "audio heard without a break", "B₀ / (1 − r)"),
        Output("received_before_dry_s", "s", "audio that arrived meanwhile", "r · B₀ / (1 − r)"),
        Output("deficit_s_per_s", "s/s", "how fast the buffer shrinks", "1 − r"),
        Output("stall_share_after_dry", "ratio", "share of each second that is silence once dry", "1 − r"),
    ),
    compute=drain,
    note="有限缓冲吸收抖动,补不了速率缺口",
    book=(
        BookValue("dry_at_s", 3.0, "0.3 / (1 − 0.9) = 3 s", derived=True),
        BookValue("received_before_dry_s", 2.7, "3 s 内又到了 2.7 s", derived=True),
    ),
)

CALCULATORS = (TIMELINE, BUFFER_COMPARE, DRAIN)
