"""The inputs of one voice-agent simulation (`lab simulate voice`, the Voice panel).

Every key is a core.registry.Param, so text parses, ranges and error messages are the same
as everywhere else in the lab; VoiceParams holds the checked values with the defaults.
Defaults marked 示意 are assumptions chosen so an unloaded turn lands near the book's
measured anchors (§3.3.3: about 370-400 ms from the user stopping to the reply, chunk
gaps of about 94 ms); the audio figures (20 ms chunks, 1 ms send, 5 ms network, 40 ms
buffer, 5 ms control delay, 10 ms device quantum) are the book's (图 3-18/3-19).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from core.registry import Param, ParamError
from core.serving.aliases import unknown_key
from core.serving.traces import request_token_limit
from core.voice.background import engine_config

BACKGROUNDS = ("trace", "scenario", "rate")
SCENARIO_KEYS = ("uniform", "shift")  # core.serving.replay.SCENARIOS
TTS_MODELS = ("rtf", "frames")
MAX_TURNS = 20_000
MAX_STAGE_MS = 60_000.0  # a stage longer than a minute is no voice agent

PARAMS: tuple[Param, ...] = (
    # -- background load: one of trace=, scenario=, rate= -----------------------------
    Param("trace", "", None, "background: replay this trace file (the serving replay's formats)", kind="path"),
    Param("scenario", "", None, "background: one of the book's two runs (uniform = 均匀混合 1:1, shift = 前 9:1、后 1:9)",
          kind="choice", choices=SCENARIO_KEYS),
    Param("rate", "1/s", 0.0, "background: Poisson arrivals of the book's 1:1 mix at this rate; 0 = no background",
          0, 1_000),
    Param("duration_s", "s", 120.0, "with rate=: how long the background runs and the turns are spread (the book: 2 min)",
          0, 86_400, min_exclusive=True),
    Param("time_scale", "", 1.0, "with trace=: speed of the trace's arrivals (2 = twice as fast)", 1e-6, 1e6),
    Param("turns", "turns", 200, "voice turns injected across the replay", 1, MAX_TURNS, kind="int"),
    Param("seed", "", 0, "seed of the background draw, the turn times and the network jitter", 0, 2**31 - 1, kind="int"),
    # -- the turn's stages before the LLM ----------------------------------------------
    Param("vad_silence_ms", "ms", 90.0, "end of speech -> VAD endpoint (silence the VAD waits for)", 0, MAX_STAGE_MS,
          illustrative=True),
    Param("asr_final_ms", "ms", 40.0, "VAD endpoint -> final transcript", 0, MAX_STAGE_MS, illustrative=True),
    Param("uplink_ms", "ms", 20.0, "transcript -> the LLM request reaches the serving engine", 0, MAX_STAGE_MS,
          illustrative=True),
    # -- the LLM request (a request of the same engine as the background) -------------
    Param("prompt_tokens", "tokens", 1024, "the turn's prompt (agent instructions, history, the user's words)", 1,
          1_000_000, kind="int", illustrative=True),
    Param("reply_tokens", "tokens", 40, "the reply's text tokens", 1, 100_000, kind="int", illustrative=True),
    Param("first_clause_tokens", "tokens", 6, "the text chunker hands the first clause to TTS after this many tokens",
          1, 100_000, kind="int", illustrative=True),
    Param("clause_tokens", "tokens", 12, "tokens per later clause", 1, 100_000, kind="int", illustrative=True),
    # -- TTS ----------------------------------------------------------------------------
    Param("tts_model", "", "rtf", "rtf: tts_ttfb_ms and tts_rtf; frames: the real-time factor of audio.frames's "
          "frame loop (Fish Audio S2 Pro, its defaults)", kind="choice", choices=TTS_MODELS),
    Param("tts_ttfb_ms", "ms", 50.0, "a clause's text -> its first audio chunk", 0, MAX_STAGE_MS, illustrative=True),
    Param("tts_rtf", "", 0.47, "TTS seconds per second of audio after the first chunk (< 1: faster than real time)",
          0, 100, illustrative=True),
    Param("tts_chunk_ms", "ms", 200.0, "audio per chunk the TTS streams (rtf × chunk = the gap between chunks)",
          1, 60_000, illustrative=True),
    Param("text_tokens_per_audio_s", "tokens/s", 4.0, "text tokens spoken per second of audio (audio.frames: 4)",
          0.01, 1000, illustrative=True),
    # -- network, jitter buffer, device (audio.timeline's model) -----------------------
    Param("chunk_ms", "ms", 20.0, "playback chunk (book: 20 ms)", 1, 1000),
    Param("send_ms", "ms", 1.0, "send time per chunk, one link, serial (book: 1 ms)", 0, 10_000),
    Param("network_ms", "ms", 5.0, "downlink delay per chunk (book: typically 5 ms)", 0, MAX_STAGE_MS),
    Param("jitter_ms", "ms", 0.0, "seeded jitter: mean extra delay (exponential), as audio.timeline", 0, 10_000,
          illustrative=True),
    Param("spike_prob", "", 0.0, "seeded jitter: chance of a spike per chunk", 0, 1, illustrative=True),
    Param("spike_ms", "ms", 0.0, "seeded jitter: size of a spike", 0, MAX_STAGE_MS, illustrative=True),
    Param("buffer_ms", "ms", 40.0, "jitter buffer: wait after chunk 0 arrives (book: 40 ms)", 0, MAX_STAGE_MS),
    Param("adaptive", "", False, "after an underrun, rebuffer to a target learned from the jitter (NetEq-like)",
          kind="bool"),
    Param("device_ms", "ms", 10.0, "hand-over to the device -> first audible sample (one 10 ms device quantum)", 0,
          10_000, illustrative=True),
    # -- barge-in (图 3-19) ---------------------------------------------------------------
    Param("barge_in_ms", "ms", None, "the user speaks again this long after the reply starts (none: no barge-in)",
          0, 3_600_000),
    Param("control_delay_ms", "ms", 5.0, "the mute command takes this long to reach the device (book: 5 ms)", 0, 10_000),
    Param("device_quantum_ms", "ms", 10.0, "the device checks for commands every quantum (book: 10 ms)", 0.001, 10_000),
    Param("backend_stop_ms", "ms", 30.0, "barge-in -> the backend stops (LLM and TTS cancelled, KV freed)", 0, 60_000,
          illustrative=True),
    Param("release_ms", "ms", 20.0, "backend stop -> buffers and state released", 0, 60_000, illustrative=True),
)
PARAM_BY_NAME = {p.name: p for p in PARAMS}


@dataclass(frozen=True)
class VoiceParams:
    """Checked inputs of simulate_voice; build from text with from_raw (or replace() a
    default and call check())."""

    trace: str | None = None
    scenario: str | None = None
    rate: float = 0.0
    duration_s: float = 120.0
    time_scale: float = 1.0
    turns: int = 200
    seed: int = 0
    vad_silence_ms: float = 90.0
    asr_final_ms: float = 40.0
    uplink_ms: float = 20.0
    prompt_tokens: int = 1024
    reply_tokens: int = 40
    first_clause_tokens: int = 6
    clause_tokens: int = 12
    tts_model: str = "rtf"
    tts_ttfb_ms: float = 50.0
    tts_rtf: float = 0.47
    tts_chunk_ms: float = 200.0
    text_tokens_per_audio_s: float = 4.0
    chunk_ms: float = 20.0
    send_ms: float = 1.0
    network_ms: float = 5.0
    jitter_ms: float = 0.0
    spike_prob: float = 0.0
    spike_ms: float = 0.0
    buffer_ms: float = 40.0
    adaptive: bool = False
    device_ms: float = 10.0
    barge_in_ms: float | None = None
    control_delay_ms: float = 5.0
    device_quantum_ms: float = 10.0
    backend_stop_ms: float = 30.0
    release_ms: float = 20.0

    @classmethod
    def from_raw(cls, raw: Mapping[str, Any]) -> VoiceParams:
        """Text values (the CLI's key=value) -> checked params; ParamError names the field."""
        values: dict[str, Any] = {}
        for key, text in raw.items():
            p = PARAM_BY_NAME.get(key)
            if p is None:
                raise unknown_key(key, PARAM_BY_NAME, f"unknown parameter of lab simulate voice; valid: "
                                  f"{', '.join(PARAM_BY_NAME)}")  # did you mean, as every command
            values[key] = p.parse(text)
        params = cls(**values)
        params.check()
        if "time_scale" in raw and params.trace is None:
            raise ParamError("time_scale", "applies to a trace; valid: with trace=FILE")
        if "duration_s" in raw and params.background() != "rate":
            raise ParamError("duration_s", f"applies to rate=; valid: leave it out with {params.background()}= "
                             "(the turns spread over the background's own span)")
        return params

    def with_(self, **changes: Any) -> VoiceParams:
        """A copy with changes, checked (the panel's slider)."""
        params = replace(self, **changes)
        params.check()
        return params

    def background(self) -> str:
        """Which background: 'trace', 'scenario', 'rate' (rate=0 is 'rate': none)."""
        return "trace" if self.trace is not None else "scenario" if self.scenario is not None else "rate"

    def check(self) -> None:
        """Each value in its range and the cross-field rules; raises ParamError."""
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                PARAM_BY_NAME[f.name].parse(value)
        given = [k for k in BACKGROUNDS if (getattr(self, k) not in (None, 0.0) if k == "rate" else getattr(self, k)
                                            is not None)]
        if len(given) > 1:
            raise ParamError(given[1], f"given with {given[0]}=; valid: one background of trace=, scenario=, rate=")
        if self.reply_tokens < self.first_clause_tokens:
            raise ParamError("first_clause_tokens", f"got {self.first_clause_tokens} for a reply of {self.reply_tokens} "
                             f"tokens: the chunker never completes a clause; valid: 1..{self.reply_tokens} "
                             "(at most reply_tokens)")
        if self.background() == "rate" and self.rate * self.duration_s > MAX_BACKGROUND_REQUESTS:
            raise ParamError("rate", f"{self.rate:g}/s over {self.duration_s:g} s is {self.rate * self.duration_s:,.0f} "
                             f"background requests; valid: rate · duration_s <= {MAX_BACKGROUND_REQUESTS:,} "
                             "(the serving replay's bound)")
        limit = request_token_limit(engine_config())
        if self.prompt_tokens + self.reply_tokens > limit:
            raise ParamError("prompt_tokens", f"{self.prompt_tokens:,} + {self.reply_tokens:,} reply tokens; valid: "
                             f"prompt_tokens + reply_tokens <= {limit:,} (the KV pool holds no more for one request)")
        samples = 24_000 * self.chunk_ms / 1000.0
        if abs(samples - round(samples)) > 1e-6:
            raise ParamError("chunk_ms", f"got {self.chunk_ms:g} ms = {samples:g} samples at 24 kHz; valid: a whole "
                             "number of samples")
        chunks = self.reply_chunks_total()
        if chunks > MAX_REPLY_CHUNKS:
            raise ParamError("reply_tokens", f"{self.reply_tokens} tokens at {self.text_tokens_per_audio_s:g} tokens/s "
                             f"is {chunks:,} chunks of {self.chunk_ms:g} ms; valid: <= {MAX_REPLY_CHUNKS:,} chunks "
                             "per reply")
        work = (TURN_WORK_CHUNKS + chunks) * self.turns
        if work > MAX_TURN_WORK:
            raise ParamError("turns", f"{self.turns:,} turns of {chunks:,} chunks each are about {work:,} chunk-steps of "
                             f"work (a turn's own work counted as {TURN_WORK_CHUNKS} chunks); valid: <= {MAX_TURN_WORK:,}"
                             f" (turns <= {max(1, MAX_TURN_WORK // (TURN_WORK_CHUNKS + chunks)):,} here)")

    def reply_chunks_total(self) -> int:
        """Playback chunks of the whole reply (each clause rounded to whole chunks, >= 1)."""
        return sum(chunks_of(n, self) for n in clause_sizes(self))


MAX_BACKGROUND_REQUESTS = 100_000  # core.serving.replay.MAX_REPLAY_REQUESTS
MAX_REPLY_CHUNKS = 200_000  # over an hour of 20 ms chunks
# The work the turns imply, estimated before running: each turn's Python steps (the stages,
# the chunker, the jitter buffer) cost about as much as TURN_WORK_CHUNKS chunks of its
# reply; the bound keeps a run to a few seconds on a loaded two-core machine.
TURN_WORK_CHUNKS = 800
MAX_TURN_WORK = 2_000_000


def clause_sizes(p: VoiceParams) -> list[int]:
    """Tokens of each clause: the first clause, then clause_tokens each (the last may be
    shorter)."""
    sizes = [p.first_clause_tokens]
    left = p.reply_tokens - p.first_clause_tokens
    while left > 0:
        sizes.append(min(p.clause_tokens, left))
        left -= sizes[-1]
    return sizes


def chunks_of(tokens: int, p: VoiceParams) -> int:
    """Playback chunks of a clause of this many tokens (at least one)."""
    return max(1, int(round(tokens / p.text_tokens_per_audio_s * 1000.0 / p.chunk_ms)))
