"""Sources and markers: every chunk is identifiable in the signal; bad WAV files are refused."""
import struct
import wave

import numpy as np
import pytest

from audio.events import EventRing, WaveRing
from audio.markers import MARKER_SLOTS, marker_runs, silent_gaps
from audio.sources import SourceError, ToneSource, VoiceSource, WavSource, make_source

RATE = 24_000
CHUNK = 480  # 20 ms


@pytest.mark.parametrize("source", [VoiceSource(), ToneSource(), ToneSource(200, 2000)])
def test_each_chunk_carries_its_marker_in_order(source):
    pcm = source.render(30, CHUNK, RATE)
    assert pcm.shape == (30, CHUNK) and pcm.dtype == np.float32
    assert np.abs(pcm).max() < 1.0
    runs = marker_runs(pcm.reshape(-1), RATE)
    assert [r.slot for r in runs] == [i % MARKER_SLOTS for i in range(30)]
    assert np.allclose([r.duration_s for r in runs[1:-1]], 0.020, atol=0.003)


def test_a_removed_chunk_and_a_gap_show_in_the_markers():
    pcm = VoiceSource().render(12, CHUNK, RATE)
    played = np.concatenate([pcm[:5].reshape(-1), np.zeros(int(0.045 * RATE), np.float32), pcm[6:].reshape(-1)])
    runs = marker_runs(played, RATE)
    assert [r.slot for r in runs] == [0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11]
    (start, end), = silent_gaps(played, RATE)
    assert start == pytest.approx(0.100, abs=0.003) and end == pytest.approx(0.145, abs=0.003)


def test_voice_is_never_silent_inside_a_syllable_dip():
    # Silence in a recording must mean "the player stopped", never a quiet vowel.
    pcm = VoiceSource().render(100, CHUNK, RATE).reshape(-1)
    assert silent_gaps(pcm, RATE) == []


def _write_wav(path, data: bytes, width=2, channels=1, rate=16_000, frames=None):
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(data)
    if frames is not None:  # rewrite the header's frame count to claim more than is there
        raw = bytearray(path.read_bytes())
        raw[40:44] = struct.pack("<I", frames * width * channels)
        path.write_bytes(bytes(raw))


def test_wav_is_loaded_resampled_and_marked(tmp_path):
    t = np.arange(16_000) / 16_000
    x = (0.5 * np.sin(2 * np.pi * 300 * t) * 32767).astype("<i2")
    stereo = np.repeat(x[:, None], 2, axis=1)
    path = tmp_path / "speech.wav"
    _write_wav(path, stereo.tobytes(), channels=2)
    src = WavSource(str(path))
    assert src.duration_s() == pytest.approx(1.0)
    pcm = src.render(50, CHUNK, RATE)
    assert [r.slot for r in marker_runs(pcm.reshape(-1), RATE)] == [i % MARKER_SLOTS for i in range(50)]
    spectrum = np.abs(np.fft.rfft(pcm.reshape(-1)))
    assert abs(np.argmax(spectrum) * RATE / (2 * (spectrum.size - 1)) - 300) < 5  # the file's tone survives


def test_24_bit_wav(tmp_path):
    x = (np.sin(np.linspace(0, 200, 8000)) * (2**23 - 1)).astype(np.int32)
    data = b"".join(int(v).to_bytes(3, "little", signed=True) for v in x)
    path = tmp_path / "a24.wav"
    _write_wav(path, data, width=3, rate=8000)
    y, rate = WavSource(str(path)).load()
    assert rate == 8000 and np.allclose(y, x / 2**23, atol=1e-6)


def test_truncated_wav_is_refused_with_a_clear_message(tmp_path):
    path = tmp_path / "cut.wav"
    _write_wav(path, np.zeros(1000, "<i2").tobytes(), frames=5000)
    with pytest.raises(SourceError) as err:
        WavSource(str(path)).load()
    assert err.value.field == "wav" and "truncated" in err.value.message and "5000" in err.value.message


def test_non_pcm_wav_is_refused(tmp_path):
    # A 32-bit float WAV (format tag 3): not PCM.
    data = np.zeros(100, "<f4").tobytes()
    header = b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " + struct.pack(
        "<IHHIIHH", 16, 3, 1, 16_000, 64_000, 4, 32) + b"data" + struct.pack("<I", len(data))
    path = tmp_path / "float.wav"
    path.write_bytes(header + data)
    with pytest.raises(SourceError) as err:
        WavSource(str(path)).load()
    assert "PCM" in err.value.message


def test_not_a_wav_at_all(tmp_path):
    path = tmp_path / "x.wav"
    path.write_bytes(b"hello, I am text")
    with pytest.raises(SourceError, match="PCM"):
        WavSource(str(path)).load()
    with pytest.raises(SourceError, match="does not exist"):
        WavSource(str(tmp_path / "missing.wav")).load()


def test_bad_source_inputs():
    with pytest.raises(SourceError) as err:
        VoiceSource().render(2, 160, 8_000)  # markers cannot fit below Nyquist
    assert err.value.field == "sample_rate_hz"
    with pytest.raises(SourceError) as err:
        ToneSource(6000, 6000).render(2, CHUNK, RATE)
    assert err.value.field == "start_hz"
    with pytest.raises(SourceError):
        make_source("wav")
    with pytest.raises(SourceError):
        make_source("noise")


def test_event_ring_wraps_and_reports_lost_events():
    ring = EventRing(8)
    for i in range(5):
        ring.push(1, i, i * 0.1)
    got, cursor = ring.read(0)
    assert list(got.chunk) == [0, 1, 2, 3, 4] and cursor == 5
    for i in range(5, 20):
        ring.push(2, i, i * 0.1)
    got, cursor = ring.read(cursor)
    assert got.lost == 7 and list(got.chunk) == list(range(12, 20)) and cursor == 20


def test_wave_ring_keeps_the_newest_samples():
    ring = WaveRing(10)
    ring.write(np.arange(6, dtype=np.float32))
    ring.write(np.arange(6, 13, dtype=np.float32))
    assert list(ring.latest(4)) == [9, 10, 11, 12]
    assert list(ring.latest(100)) == list(range(3, 13))
