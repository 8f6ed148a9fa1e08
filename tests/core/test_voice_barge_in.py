"""Barge-in (图 3-19 plus the engine): the turn's LLM request is cancelled at the backend stop
and its KV blocks go back to the pool at that moment, in the replay's KV series; bad input
names its field."""
import math

import numpy as np
import pytest

from core.audio.interrupt import interrupt_moments
from core.registry import ParamError
from core.units import MS
from core.voice import VoiceParams, simulate_voice


def test_barge_in_frees_the_turns_kv_at_the_cancel():
    p = VoiceParams(turns=1, reply_tokens=400, barge_in_ms=300)
    run = simulate_voice(p)
    turn = run.turns[0]
    b = turn.barge_in
    assert turn.cancelled and b.freed_kv
    im = interrupt_moments(turn.audible_s + 0.3, p.control_delay_ms * MS, p.device_quantum_ms * MS,
                           p.backend_stop_ms * MS, p.release_ms * MS)
    assert (b.interrupt_s, b.mute_s, b.backend_stop_s, b.release_s) == pytest.approx(
        (im.interrupt_s, im.mute_at_s, im.backend_stop_at_s, im.release_at_s), abs=1e-12)
    assert b.interrupt_s < b.mute_s < b.backend_stop_s + 1e-12 or b.mute_s <= b.backend_stop_s
    # The engine stops at the end of the step running at the backend stop (one decode step here).
    assert b.backend_stop_s <= b.engine_cancel_s < b.backend_stop_s + 0.05
    res = run.replay
    assert res.finish_s[turn.request] == b.engine_cancel_s
    t, kv = res.series_t, res.series_kv_blocks
    at = np.flatnonzero(t == b.engine_cancel_s)  # the step that ended then, and the cancel's own entry
    before = kv[at[-1] - 1]
    tokens_done = np.count_nonzero(turn.token_times_s <= b.engine_cancel_s)
    assert before == math.ceil((p.prompt_tokens + tokens_done - 1) / 16) or before == math.ceil(
        (p.prompt_tokens + tokens_done) / 16)
    assert kv[at[-1]] == 0  # the lone request's blocks are all back
    assert np.all(kv[t > b.engine_cancel_s] == 0)
    # Nothing heard after the mute; the reply was cut there.
    assert turn.span("reply").end_s == pytest.approx(b.mute_s)
    assert turn.reply_s == pytest.approx(b.mute_s - turn.audible_s)
    assert np.isnan(turn.token_times_s[-1])  # the reply's last token never came


def test_barge_in_under_load_frees_only_the_turns_blocks():
    p = VoiceParams(rate=0.5, turns=10, duration_s=30, reply_tokens=300, barge_in_ms=200, seed=2)
    run = simulate_voice(p)
    res = run.replay
    cancelled = [t for t in run.turns if t.cancelled]
    assert cancelled and run.summary["cancelled_turns"] == len(cancelled)
    for turn in cancelled:
        b = turn.barge_in
        assert res.finish_s[turn.request] == b.engine_cancel_s >= b.backend_stop_s
        at = np.flatnonzero(res.series_t == b.engine_cancel_s)
        # The cancel's own series entry: the pool lost exactly the turn's blocks then.
        drops = [int(res.series_kv_blocks[i - 1] - res.series_kv_blocks[i]) for i in at[1:]]
        tokens = p.prompt_tokens + np.count_nonzero(turn.token_times_s <= b.engine_cancel_s)
        assert any(d in (math.ceil((tokens - 1) / 16), math.ceil(tokens / 16)) for d in drops), drops
    # Background requests are never cancelled.
    bg = run.background_rows
    assert np.all(np.isfinite(res.finish_s[bg]))


def test_a_barge_in_after_the_reply_changes_nothing():
    """Watching the turns (the engine stopped at each hop) leaves the replay's timing as it
    was: a barge-in after every reply has ended cancels nothing and moves no turn."""
    p = VoiceParams(rate=0.5, turns=12, duration_s=30, seed=5)
    plain = simulate_voice(p)
    late = simulate_voice(p.with_(barge_in_ms=3_600_000))
    assert not any(t.cancelled for t in late.turns)
    assert [t.silence_s for t in late.turns] == pytest.approx([t.silence_s for t in plain.turns], rel=1e-9)
    assert late.summary["silence_p95_ms"] == pytest.approx(plain.summary["silence_p95_ms"], rel=1e-9)


def test_same_run_without_barge_in_finishes_every_turn():
    run = simulate_voice(VoiceParams(turns=5, rate=0.5, duration_s=30))
    assert not any(t.cancelled for t in run.turns)
    assert all(t.barge_in is None for t in run.turns)


@pytest.mark.parametrize("raw, field", [
    ({"turns": "0"}, "turns"),
    ({"vad_silence_ms": "-5"}, "vad_silence_ms"),
    ({"asr_final_ms": "1e9"}, "asr_final_ms"),
    ({"barge_in_ms": "-100"}, "barge_in_ms"),
    ({"reply_tokens": "4", "first_clause_tokens": "6"}, "first_clause_tokens"),
    ({"rate": "2", "scenario": "uniform"}, "rate"),
    ({"tts_rtf": "-1"}, "tts_rtf"),
    ({"chunk_ms": "0.01"}, "chunk_ms"),
    ({"warp": "9"}, "warp"),
    ({"time_scale": "2"}, "time_scale"),
    ({"rate": "1000", "duration_s": "1000"}, "rate"),
    ({"prompt_tokens": "500000"}, "prompt_tokens"),
    ({"scenario": "shift", "duration_s": "60"}, "duration_s"),
    ({"turns": "20000", "reply_tokens": "100000", "first_clause_tokens": "1"}, "reply_tokens"),
])
def test_bad_input_names_the_field(raw, field):
    with pytest.raises(ParamError) as err:
        VoiceParams.from_raw(raw)
    assert err.value.param == field
    assert "valid" in err.value.message


def test_checked_again_when_built_directly():
    with pytest.raises(ParamError) as err:
        simulate_voice(VoiceParams(turns=1, reply_tokens=2, first_clause_tokens=3))
    assert err.value.param == "first_clause_tokens"
