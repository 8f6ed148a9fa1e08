"""From the reply's text to the first audible sample and the stalls: TTS, the downlink and
the jitter buffer, with core.audio.timeline's rules.

- TTS works clause by clause: clause c starts when its text is complete and the previous
  clause is synthesised; its first TTS chunk is ready tts_ttfb_ms later, each further one
  after rtf × its audio; a TTS chunk is tts_chunk_ms of audio = several playback chunks.
- Each playback chunk (chunk_ms, 图 3-18's 20 ms) is sent on one serial link (send_ms
  each, audio_timing.pipeline_times' rule) and crosses the network with
  audio_timing.network_delays_s (base delay, seeded exponential jitter, spikes).
- The player is audio_timing.playout: a fixed buffer after chunk 0 arrives, in-order play,
  stalls when a chunk is missing (adaptive: rebuffer to the learned target).
The fixed-buffer playout and the serial link are the same recurrences in closed form
(running maxima), which the tests check against audio_timing's loops.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core.audio.interrupt import interrupt_moments
from core.audio.jitter import network_delays_s
from core.audio.timeline import EPS_S, playout
from core.registry import get
from core.units import MS
from core.voice.params import chunks_of, clause_sizes


@dataclass(frozen=True)
class Reply:
    ready_s: np.ndarray  # per playback chunk: its TTS chunk is synthesised
    arrival_s: np.ndarray
    play_start_s: np.ndarray
    stall_s: np.ndarray
    tts_first: np.ndarray  # per TTS chunk: index of its first playback chunk


def tts_rtf(p) -> float:
    """Seconds of TTS work per second of audio: tts_rtf, or audio.frames's frame loop."""
    if p.tts_model == "frames":
        return 1.0 / float(get("audio.frames").run()["audio_s_per_s"])
    return p.tts_rtf


def clause_token_ends(p) -> np.ndarray:
    """The token (1-based) that completes each clause."""
    return np.cumsum(clause_sizes(p))


def tts_ready(clause_done_s: np.ndarray, p, rtf: float) -> tuple[np.ndarray, np.ndarray]:
    """(ready time of every playback chunk, index of each TTS chunk's first playback
    chunk). A clause whose text never completed (NaN: cancelled) is not synthesised."""
    chunk_s = p.chunk_ms * MS
    per_tts = max(1, int(round(p.tts_chunk_ms / p.chunk_ms)))
    ready_parts, firsts = [], []
    done_before = -math.inf
    offset = 0
    for text_done, tokens in zip(clause_done_s, clause_sizes(p)):
        if math.isnan(text_done):
            break
        n = chunks_of(int(tokens), p)
        start = max(float(text_done), done_before)
        first_ready = start + p.tts_ttfb_ms * MS
        idx = np.arange(n)
        tts_chunk = idx // per_tts
        # TTS chunk m is ready once chunks 1..m are generated after the first (rtf each).
        generated_after_first = np.minimum(n, (tts_chunk + 1) * per_tts) - min(n, per_tts)
        ready = first_ready + rtf * chunk_s * generated_after_first
        ready_parts.append(ready)
        firsts.append(offset + np.arange(0, n, per_tts))
        done_before = float(ready[-1])
        offset += n
    if not ready_parts:
        return np.zeros(0), np.zeros(0, np.int64)
    return np.concatenate(ready_parts), np.concatenate(firsts).astype(np.int64)


def serial_link(ready_s: np.ndarray, send_s: float) -> np.ndarray:
    """sent_i = max(ready_i, sent_(i-1)) + send, in closed form: (i+1)·send + max_j≤i (ready_j − j·send)."""
    i = np.arange(ready_s.size, dtype=float)
    return (i + 1) * send_s + np.maximum.accumulate(ready_s - i * send_s)


def fixed_playout(arrival_s: np.ndarray, chunk_s: float, buffer_s: float) -> tuple[np.ndarray, np.ndarray]:
    """audio_timing.playout with a fixed buffer, in closed form: start_i = i·F +
    max(a_0 + buffer, max_1≤j≤i (a_j − j·F)); stall_i = start_i − (start_(i−1) + F)."""
    n = arrival_s.size
    i = np.arange(n, dtype=float)
    slack = arrival_s - i * chunk_s
    slack[0] = arrival_s[0] + buffer_s
    start = i * chunk_s + np.maximum.accumulate(slack)
    start[0] = arrival_s[0] + buffer_s
    stall = np.zeros(n)
    stall[1:] = np.maximum(0.0, start[1:] - (start[:-1] + chunk_s))
    stall[stall <= EPS_S] = 0.0
    return start, stall


def reply_audio(clause_done_s: np.ndarray, p, rtf: float, seed: int, stop_s: float = math.inf) -> Reply:
    """The reply's chunks from the clauses' text times; chunks whose TTS would finish
    after stop_s (the backend stop of a barge-in) are never made."""
    ready, firsts = tts_ready(clause_done_s, p, rtf)
    keep = ready <= stop_s
    if not keep.all():
        ready = ready[keep]
        firsts = firsts[firsts < ready.size]
    if ready.size == 0:
        empty = np.zeros(0)
        return Reply(empty, empty, empty, empty, np.zeros(0, np.int64))
    sent = serial_link(ready, p.send_ms * MS)
    arrival = sent + network(p, seed)[:ready.size]
    chunk_s = p.chunk_ms * MS
    if p.adaptive:
        start, stall, _ = playout(arrival, chunk_s, p.buffer_ms * MS, adaptive=True)
    else:
        start, stall = fixed_playout(arrival, chunk_s, p.buffer_ms * MS)
    return Reply(ready, arrival, start, stall, firsts)


def network(p, seed: int) -> np.ndarray:
    """The downlink delay of every chunk of the whole reply (drawn for the full reply, so a
    barge-in that cuts it short does not change the delays of the chunks it keeps)."""
    return network_delays_s(p.reply_chunks_total(), p.network_ms, p.jitter_ms, p.spike_prob, p.spike_ms, seed)


def audible_s(first_ready_s: float, p, seed: int) -> float:
    """The first audible sample of a reply whose first chunk is ready at first_ready_s
    (chunk 0 alone: send, its network delay, the buffer, the device)."""
    net0 = float(network(p, seed)[0])
    return first_ready_s + p.send_ms * MS + net0 + p.buffer_ms * MS + p.device_ms * MS


def barge_moments(audible: float, p):
    """图 3-19 for a barge-in barge_in_ms after the reply starts: (interrupt, mute,
    backend stop, release) as audio_timing.interrupt_moments."""
    return interrupt_moments(audible + p.barge_in_ms * MS, p.control_delay_ms * MS, p.device_quantum_ms * MS,
                             p.backend_stop_ms * MS, p.release_ms * MS)
