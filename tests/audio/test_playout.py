"""The callback's player against the model, on a simulated clock (no threads, no device).

Blocks of 10 ms are rendered at exact times; chunks are marked arrived at the model's
arrival times; the player must start, stall, resume and mute where core.audio.timeline says,
to within one block (the player only learns of an arrival at its next callback).
"""
import math

import numpy as np
import pytest

from audio import events as ev
from audio.markers import marker_runs
from audio.playout import Playout
from audio.sources import ToneSource
from core.audio.interrupt import interrupt_moments
from core.audio.jitter import DelayEstimator
from core.audio.timeline import build_timeline

RATE = 48_000
BLOCK = 480  # 10 ms


def simulate(tl, adaptive=False, interrupt_at=None, until=None, block=BLOCK):
    pcm = ToneSource().render(tl.n, int(RATE * tl.chunk_s), RATE)
    p = Playout(pcm, RATE, tl.chunk_s, adaptive=adaptive)
    est = DelayEstimator(tl.chunk_s, tl.chunk_s)
    p.target_s = est.target_s if adaptive else tl.buffer_s
    order = np.argsort(tl.arrival, kind="stable")
    nxt = 0
    out = np.zeros(block, np.float32)
    recorded = []
    moments = None if interrupt_at is None else interrupt_moments(interrupt_at, 0.005, 0.010, 0.030, 0.020)
    end = until or tl.finish_s + 0.1
    t = 0.0
    step = block / RATE
    while t < end:
        # Everything that happened before this callback is visible to it.
        while nxt < tl.n and tl.arrival[order[nxt]] <= t:
            i = int(order[nxt])
            p.mark_arrived(i)
            if i == 0:
                p.first_play_t = tl.arrival[0] + tl.buffer_s
            if adaptive:
                p.target_s = est.observe(i, float(tl.arrival[i]))
            nxt += 1
        if moments is not None and moments.command_at_s <= t and not p.mute_cmd:
            p.request_mute(moments.mute_at_s)
        p.render(out, t)
        recorded.append(out.copy())
        t += step
    return p, np.concatenate(recorded), moments


def test_fixed_buffer_follows_the_model_including_the_stall():
    tl = build_timeline(chunks=12, network_ms=(5, 5, 5, 5, 105, 5))
    p, rec, _ = simulate(tl)
    e = p.events.all()
    play = e.of(ev.PLAY)
    assert list(play.chunk) == list(range(12))
    # Starts are on the model's times, except that a late chunk is picked up at the next block.
    late = play.t - tl.play_start
    assert (late >= -1e-9).all() and (late < BLOCK / RATE + 1e-9).all()
    assert np.allclose(play.t[:4], tl.play_start[:4], atol=1e-9)
    under = e.of(ev.UNDERRUN)
    assert list(under.chunk) == list(tl.underruns()) == [4]
    assert under.t[0] == pytest.approx(tl.play_start[3] + tl.chunk_s)
    # The audio itself: every chunk's marker in order, with a silent gap at the stall.
    runs = marker_runs(rec, RATE)
    assert [r.slot for r in runs] == list(range(12))
    gap = runs[4].start_s - runs[3].end_s
    assert gap == pytest.approx(tl.stall[4], abs=BLOCK / RATE + 0.003)


def test_buffer_level_matches_model_and_is_zero_in_the_stall():
    tl = build_timeline(chunks=12, network_ms=(5, 5, 5, 5, 105, 5))
    p, _, _ = simulate(tl)
    t, level = p.levels.last(10_000)
    model = tl.buffer_level(t)
    in_stall = (t > tl.play_start[3] + tl.chunk_s + 0.011) & (t < tl.arrival[4] - 0.001)
    assert in_stall.any() and np.allclose(level[in_stall], 0.0)
    steady = t < tl.play_start[3]
    assert np.allclose(level[steady], model[steady], atol=1e-9)


def test_mute_lands_on_the_modelled_quantum_boundary():
    tl = build_timeline(chunks=30)
    p, rec, m = simulate(tl, interrupt_at=0.2515)
    mute = p.events.all().of(ev.MUTE)
    assert m.mute_at_s == pytest.approx(0.26)
    assert mute.t[0] == pytest.approx(m.mute_at_s, abs=1 / RATE)
    cut = int(round(m.mute_at_s * RATE))
    assert np.abs(rec[cut:]).max() == 0.0
    assert np.abs(rec[cut - BLOCK:cut]).max() > 0.1


def test_command_seen_late_mutes_at_the_next_block_start():
    tl = build_timeline(chunks=30)
    # A 2.5 ms block grid offset: the command (at 0.2565) misses the block starting 0.2525.
    p, rec, m = simulate(tl, interrupt_at=0.2515, block=600)  # 12.5 ms blocks
    mute = p.events.all().of(ev.MUTE)
    assert m.mute_at_s <= mute.t[0] <= m.mute_at_s + 600 / RATE


def test_adaptive_player_rebuffers_like_the_model():
    tl = build_timeline(chunks=60, network_ms=(5,), jitter_ms=2, spike_prob=0.1, spike_ms=70, seed=5, adaptive=True)
    p, _, _ = simulate(tl, adaptive=True)
    e = p.events.all()
    assert list(e.of(ev.PLAY).chunk) == list(range(60))
    seen = set(e.of(ev.UNDERRUN).chunk.tolist())
    model = tl.underruns()
    # The player learns of arrivals one block late at most, so it may ride out a stall
    # shorter than a block that the model has; every longer one must be there.
    assert {int(i) for i in model if tl.stall[i] > BLOCK / RATE} <= seen <= set(model.tolist())
    assert tl.target.max() > 0.06  # the spikes raised the target
    late = e.of(ev.PLAY).t - tl.play_start
    assert (late > -1e-9).all() and (late < 2 * BLOCK / RATE + 1e-9).all()


def test_nothing_plays_before_the_first_playback_moment():
    tl = build_timeline(chunks=5)
    p, rec, _ = simulate(tl)
    start = int(math.floor(tl.first_playback_s * RATE))
    assert np.abs(rec[:start]).max() == 0.0
    assert np.abs(rec[start:start + 480]).max() > 0.1
    assert p.finished


def test_interrupt_before_playback_starts_means_nothing_is_heard():
    tl = build_timeline(chunks=10)
    p, rec, m = simulate(tl, interrupt_at=0.030)  # mute at 40 ms, playback was due at 78 ms
    assert p.muted and np.abs(rec).max() == 0.0
    assert len(p.events.all().of(ev.PLAY)) == 0


def test_no_chunk_is_logged_as_playing_after_the_mute():
    tl = build_timeline(chunks=30)
    p, _, m = simulate(tl, interrupt_at=0.2015, block=720)  # 15 ms blocks straddle boundaries
    e = p.events.all()
    mute_t = e.of(ev.MUTE).t[0]
    assert (e.of(ev.PLAY).t < mute_t).all()
