"""Chunk sources: what the "model" streams. Every chunk carries its marker tone.

- VoiceSource: a synthetic voice-like signal (a glottal pulse train with intonation,
  shaped by vowel formants, in syllables), so a listener hears "speech" break up when
  the player stalls.
- ToneSource: a steady tone, or a chirp sweeping over the stream; stalls are easy to hear.
- WavSource: a PCM WAV file, checked on load (PCM only, not truncated), mixed to mono
  and resampled to the stream rate.

All sources prepare the whole stream up front into one (chunks × samples) float32 array:
the audio callback only ever copies from it.
"""
from __future__ import annotations

import io
import struct
import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from audio.markers import add_marker, min_sample_rate_hz
from core.file_guard import FileRefused, read_regular

# A WAV source is a voice clip: minutes at most. The bound keeps its samples, as float32
# and their temporaries, far below the corpus's memory bound even at 8 bits.
MAX_WAV_BYTES = 32 * 2**20
RATE_RANGE_HZ = (1_000, 768_000)  # telephone-band files to studio rates
MAX_CHANNELS = 64


class SourceError(ValueError):
    """A source cannot be prepared; `field` names the input at fault."""

    def __init__(self, field: str, message: str):
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


def _check_rate(rate_hz: int) -> None:
    if rate_hz < min_sample_rate_hz():
        raise SourceError("sample_rate_hz", f"got {rate_hz}; valid: >= {min_sample_rate_hz()} Hz "
                                            f"(the chunk markers sit up to {min_sample_rate_hz() // 2 - 600} Hz)")


def _chunked(signal: np.ndarray, chunks: int, chunk_samples: int, rate_hz: int, marker: bool) -> np.ndarray:
    out = np.zeros((chunks, chunk_samples), dtype=np.float32)
    flat = out.reshape(-1)
    take = min(flat.size, signal.size)
    flat[:take] = signal[:take]
    if marker:
        for i in range(chunks):
            add_marker(out[i], i, rate_hz, start_sample=i * chunk_samples)
    return out


@dataclass(frozen=True)
class VoiceSource:
    """Voice-like: f0 around 150 Hz with a falling intonation per phrase, vowels changing
    every syllable (~180 ms), additive synthesis of harmonics weighted by formants."""

    f0_hz: float = 150.0
    syllable_s: float = 0.18
    level: float = 0.30
    seed: int = 1
    name: str = "voice"

    # (F1, F2, F3) of a few vowels, Hz: a, i, u, e, o
    VOWELS = ((730, 1090, 2440), (270, 2290, 3010), (300, 870, 2240), (530, 1840, 2480), (570, 840, 2410))

    def render(self, chunks: int, chunk_samples: int, rate_hz: int, marker: bool = True) -> np.ndarray:
        _check_rate(rate_hz)
        n = chunks * chunk_samples
        t = np.arange(n) / rate_hz
        rng = np.random.default_rng(self.seed)
        syll = (t / self.syllable_s).astype(int)
        n_syll = int(syll.max()) + 1
        vowel = rng.integers(0, len(self.VOWELS), n_syll)
        # Intonation: each phrase of 6 syllables falls by a fifth; small vibrato.
        phrase_pos = (t % (6 * self.syllable_s)) / (6 * self.syllable_s)
        f0 = self.f0_hz * (1.15 - 0.35 * phrase_pos) * (1 + 0.01 * np.sin(2 * np.pi * 5.5 * t))
        phase = 2 * np.pi * np.cumsum(f0) / rate_hz
        # Formant gains change with the syllable and the slowly moving f0: compute them at
        # a 1 kHz control rate and interpolate (the per-sample cost is then just the sines).
        ctl = np.arange(0, n, max(1, rate_hz // 1000))
        formants = np.array(self.VOWELS, dtype=float)[vowel][syll[ctl]]  # control points × 3
        signal = np.zeros(n)
        for h in range(1, 26):
            fh = h * f0[ctl]
            gain = np.zeros(ctl.size)
            for k, bw in enumerate((90.0, 110.0, 170.0)):
                gain += (1.0 / (1 + k)) / (1 + ((fh - formants[:, k]) / bw) ** 2)
            gain *= fh < 4_000
            if not gain.any():
                break
            signal += np.interp(np.arange(n), ctl, gain) * np.sin(h * phase) / h**0.3
        # Syllable envelope: rise, hold, fall; short dips between syllables (never fully
        # silent, so silence in a recording always means the player stopped).
        pos = (t % self.syllable_s) / self.syllable_s
        env = 0.25 + 0.75 * np.sin(np.pi * np.clip(pos * 1.1, 0, 1)) ** 0.6
        signal *= env
        signal *= self.level / max(1e-9, np.percentile(np.abs(signal), 99.5))
        return _chunked(signal.astype(np.float32), chunks, chunk_samples, rate_hz, marker)


@dataclass(frozen=True)
class ToneSource:
    """A tone at start_hz, or (end_hz != start_hz) a chirp sweeping over the stream."""

    start_hz: float = 440.0
    end_hz: float = 440.0
    level: float = 0.25
    name: str = "tone"

    def render(self, chunks: int, chunk_samples: int, rate_hz: int, marker: bool = True) -> np.ndarray:
        _check_rate(rate_hz)
        for key, f in (("start_hz", self.start_hz), ("end_hz", self.end_hz)):
            if not (20 <= f <= 4_000):
                raise SourceError(key, f"got {f:g}; valid: [20, 4000] Hz (above are the chunk markers)")
        n = chunks * chunk_samples
        t = np.arange(n) / rate_hz
        duration = n / rate_hz
        freq = self.start_hz + (self.end_hz - self.start_hz) * t / max(duration, 1e-9)
        phase = 2 * np.pi * np.cumsum(freq) / rate_hz
        return _chunked((self.level * np.sin(phase)).astype(np.float32), chunks, chunk_samples, rate_hz, marker)


@dataclass(frozen=True)
class WavSource:
    """A PCM WAV file (8/16/24/32-bit integer), mixed to mono, resampled linearly."""

    path: str
    level: float = 0.8
    name: str = "wav"

    def load(self) -> tuple[np.ndarray, int]:
        """Samples in [-1, 1] and the file's rate. Raises SourceError on a bad file."""
        p = Path(self.path)
        if not p.is_file():
            raise SourceError("wav", f"{self.path!r} does not exist or is not a file")
        try:  # read whole through the guard: a regular file of bounded size, never a FIFO
            data = read_regular(p, MAX_WAV_BYTES)
        except FileRefused as err:
            raise SourceError("wav", f"{p.name}: {err}; valid: a PCM WAV file of at most {MAX_WAV_BYTES:,} bytes") from None
        try:
            with wave.open(io.BytesIO(data), "rb") as w:
                if w.getcomptype() != "NONE":
                    raise SourceError("wav", f"{p.name}: compressed ({w.getcompname()}); valid: PCM WAV only")
                width, channels, rate, frames = w.getsampwidth(), w.getnchannels(), w.getframerate(), w.getnframes()
                raw = w.readframes(frames)
        except SourceError:
            raise
        except (wave.Error, EOFError, struct.error, ValueError, ZeroDivisionError, OverflowError) as err:
            # The wave module refuses float (format 3), extensible oddities and cut headers;
            # a zero channel count or sample width fails inside it on some versions.
            raise SourceError("wav", f"{p.name}: not a readable PCM WAV ({err}); valid: PCM WAV, 8/16/24/32-bit") from None
        low, high = RATE_RANGE_HZ
        if not (1 <= channels <= MAX_CHANNELS and low <= rate <= high):
            raise SourceError("wav", f"{p.name}: {channels} channels at {rate:,} Hz; valid: 1..{MAX_CHANNELS} channels "
                              f"at {low:,}..{high:,} Hz")
        expected = frames * width * channels
        if len(raw) < expected:
            have = len(raw) // (width * channels)
            raise SourceError("wav", f"{p.name}: truncated: the header says {frames} frames, the file holds {have}")
        if frames == 0:
            raise SourceError("wav", f"{p.name}: holds no audio")
        if width == 1:
            x = (np.frombuffer(raw, np.uint8).astype(np.float32) - 128) / 128
        elif width == 2:
            x = np.frombuffer(raw, "<i2").astype(np.float32) / 32768
        elif width == 3:
            b = np.frombuffer(raw, np.uint8).reshape(-1, 3).astype(np.int32)
            v = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
            x = (np.where(v >= 1 << 23, v - (1 << 24), v)).astype(np.float32) / (1 << 23)
        elif width == 4:
            x = np.frombuffer(raw, "<i4").astype(np.float32) / 2**31
        else:
            raise SourceError("wav", f"{p.name}: {8 * width}-bit samples; valid: 8, 16, 24 or 32-bit PCM")
        return x.reshape(-1, channels).mean(axis=1), rate

    def duration_s(self) -> float:
        x, rate = self.load()
        return x.size / rate

    def render(self, chunks: int, chunk_samples: int, rate_hz: int, marker: bool = True) -> np.ndarray:
        _check_rate(rate_hz)
        x, rate = self.load()
        if rate != rate_hz:  # only as much as the stream plays: a slow file resampled up stays bounded
            t_out = np.arange(min(int(x.size * rate_hz / rate), chunks * chunk_samples)) / rate_hz
            x = np.interp(t_out, np.arange(x.size) / rate, x)
        peak = float(np.abs(x).max()) or 1.0
        x = x * (self.level / peak) * (1 - 0.1 * marker)
        return _chunked(np.asarray(x, dtype=np.float32), chunks, chunk_samples, rate_hz, marker)


def make_source(kind: str, wav_path: str = "") -> VoiceSource | ToneSource | WavSource:
    if kind == "voice":
        return VoiceSource()
    if kind == "tone":
        return ToneSource(440.0, 440.0)
    if kind == "chirp":
        return ToneSource(200.0, 2_000.0)
    if kind == "wav":
        if not wav_path:
            raise SourceError("wav", "no file chosen; valid: a PCM WAV file")
        return WavSource(wav_path)
    raise SourceError("source", f"got {kind!r}; valid: voice, tone, chirp, wav")


SOURCE_KINDS = ("voice", "tone", "chirp", "wav")
