"""One clock (issue 13): a voice-agent turn from the user's last word to the first sound
of the reply, through the loaded serving engine and the jitter buffer.

    from core.voice import VoiceParams, simulate_voice
    run = simulate_voice(VoiceParams.from_raw({"rate": "2", "turns": "200"}))
    run.summary["silence_p95_ms"]; run.turns[run.turn_index(95)].spans

A turn's LLM request is a request of the same serving engine as the background traffic
(routed mode: everything submitted in time order), so its queue wait, prefill and token
times come from the engine at that moment; the audio after TTS follows core.audio.timeline
(chunks, send, network delay and jitter, the jitter buffer), the barge-in its interrupt
moments plus Engine.cancel. No Qt here.
"""
from core.voice.model import AFTER, STAGES, BargeIn, Span, Turn, VoiceRun
from core.voice.params import PARAMS, VoiceParams
from core.voice.simulate import simulate_voice

__all__ = ["AFTER", "PARAMS", "STAGES", "BargeIn", "Span", "Turn", "VoiceParams", "VoiceRun", "simulate_voice"]
