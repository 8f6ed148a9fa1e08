"""Hostile WAV sources: headers that lie (frames, sizes), zero channels or sample width,
absurd rates (a 1 Hz file resampled to the stream rate once took gigabytes), a FIFO, a
sparse giant. Each is refused by audio.sources.WavSource with SourceError('wav', ...)
saying what is wrong, within the corpus's bound (in-process: tests/hostile/bounds.py);
plain oddities (a slow rate, many frames) play."""
from __future__ import annotations

import os
import struct

import numpy as np
import pytest

from audio.sources import SourceError, WavSource
from tests.hostile.bounds import bounded

STREAM_HZ, CHUNK, CHUNKS = 48_000, 960, 400  # 8 s of 20 ms chunks


def riff(data: bytes = b"\0\0" * 1000, tag: int = 1, channels: int = 1, rate: int = 16_000, width: int = 2,
         data_size: int | None = None, riff_size: int | None = None, fmt: bool = True, data_chunk: bool = True) -> bytes:
    """A WAV file's bytes with every header field settable (the wave module writes only true ones)."""
    block = channels * width
    body = b"WAVE"
    if fmt:
        body += b"fmt " + struct.pack("<IHHIIHH", 16, tag, channels, rate, (rate * block) & 0xFFFFFFFF,
                                      block & 0xFFFF, 8 * width)
    if data_chunk:
        body += b"data" + struct.pack("<I", len(data) if data_size is None else data_size) + data
    return b"RIFF" + struct.pack("<I", len(body) if riff_size is None else riff_size) + body


def _bytes(content: bytes):
    return lambda path: path.write_bytes(content)


def _sparse(path):
    with open(path, "wb") as f:
        f.truncate(2**30)


# name -> (how to make the file, a phrase of the refusal, or None: it plays)
CASES = {
    "frames claimed past the end": (_bytes(riff(data_size=10_000)), "truncated"),
    "a data size of 4 GB": (_bytes(riff(data_size=0xFFFF_FFFF, riff_size=0xFFFF_FFFF)), "truncated"),
    "zero channels": (_bytes(riff(channels=0)), "WAV"),
    "zero sample width": (_bytes(riff(width=0)), "WAV"),
    "65,535 channels": (_bytes(riff(b"\0" * 131_070, channels=65_535)), "channels"),
    "a rate of 0 Hz": (_bytes(riff(rate=0)), "Hz"),
    "a rate of 1 Hz": (_bytes(riff(b"\0\0" * 20_000, rate=1)), "Hz"),
    "a rate of 4 GHz": (_bytes(riff(rate=4_000_000_000)), "Hz"),
    "40-bit samples": (_bytes(riff(b"\0" * 5000, width=5)), "bit"),
    "float samples": (_bytes(riff(b"\0" * 4000, tag=3, width=4)), "PCM"),
    "no fmt chunk": (_bytes(riff(fmt=False)), "WAV"),
    "no data chunk": (_bytes(riff(data_chunk=False)), "WAV"),
    "a header cut short": (_bytes(riff()[:30]), "WAV"),
    "a sparse 1 GB file": (_sparse, "at most"),
    "a fifo": (os.mkfifo, "not a file"),
    "a slow 1 kHz file of a minute": (_bytes(riff(np.zeros(60_000, "<i2").tobytes(), rate=1_000)), None),
}


@pytest.mark.parametrize("name", CASES)
def test_a_hostile_wav(tmp_path, name):
    make, phrase = CASES[name]
    path = tmp_path / "clip.wav"
    make(path)
    with bounded():
        if phrase is None:
            pcm = WavSource(str(path)).render(CHUNKS, CHUNK, STREAM_HZ)
            assert pcm.shape == (CHUNKS, CHUNK)
            return
        with pytest.raises(SourceError) as err:
            WavSource(str(path)).render(CHUNKS, CHUNK, STREAM_HZ)
    assert err.value.field == "wav"
    assert phrase in err.value.message, err.value.message
