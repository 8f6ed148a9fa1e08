"""loadlab.simulate_voice: `lab simulate voice` from Python: voice-agent turns on one clock
through the loaded serving engine and the jitter buffer (core.voice)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from loadlab import _keys
from loadlab.tables import table


@dataclass
class VoiceRun:
    """summary: the dict `lab simulate voice --json` prints (silence_p50/p95/p99_ms, the
    mean of each stage of the silence gap, underruns, the book's anchors); turns: a table
    of turns.csv's columns (every span's start and end, seconds on the replay's clock)."""

    summary: dict
    run: Any = field(repr=False)

    @cached_property
    def turns(self):
        import numpy as np

        from lab.cli.simulate_voice import turn_rows

        header, rows = turn_rows(self.run)
        cols = {}
        for i, name in enumerate(header):
            values = [row[i] for row in rows]
            cols[name] = np.array([np.nan if v == "" else v for v in values], dtype=float)
        return table(cols)


def simulate_voice(*, config: str | os.PathLike | None = None, **params: Any) -> VoiceRun:
    """Voice-agent turns through the loaded serving engine: `lab simulate voice` with
    keywords (its defaults, checks and ParamError). One background of trace=, scenario= or
    rate= (requests per second; 0: none); turns=, seed= and the stage keys (vad_silence_ms=,
    asr_final_ms=, tts_ttfb_ms=, first_clause_tokens=, barge_in_ms=, ...).

    Example, 200 turns over a light and a heavy background::

        >>> import loadlab
        >>> light = loadlab.simulate_voice(rate=0.5, turns=200)
        >>> heavy = loadlab.simulate_voice(rate=3, turns=200)
        >>> heavy.summary["silence_p95_ms"] > light.summary["silence_p95_ms"]
        True
        >>> light.summary["turns"]
        200
    """
    from core.voice import VoiceParams
    from core.voice import simulate_voice as run_voice
    from lab.cli.args import json_ready
    from lab.cli.simulate_voice import json_view

    raw = _keys.with_config(config, _keys.as_text(params))
    run = run_voice(VoiceParams.from_raw(raw))
    return VoiceRun(json_ready(json_view(dict(run.summary))), run)
