"""The Voice panel's state: the background load, how many turns, the seed, which turn is shown.

Pure (no Qt): a core PanelModel, so sessions, talks, reset and undo treat it like the others.
The model's own parameters are core.voice.VoiceParams; `voice_raw()` is what the panel asks
core.voice for, in the CLI's key names (`lab simulate voice rate=... turns=... seed=...`).
"""
from __future__ import annotations

from core.state_model import PanelModel

RATE_MAX_PER_S = 2.0  # the slider's top: past where the book's pool saturates (about 1.3-1.5 req/s)
RATE_STEP_PER_S = 0.05
SHOWN = ("p50", "p95", "p99")  # the turn drawn in the swimlane: the one at that silence percentile


class VoiceState(PanelModel):
    key = "voice"
    VIEW = {
        "rate_per_s": 1.0,  # background requests/s (Poisson, the book's 1:1 mix); 0 = none
        "turns": 200,  # voice turns injected across the replay
        "seed": 0,
        "shown": "p95",
    }

    def voice_raw(self) -> dict[str, str]:
        return {"rate": f"{self.view('rate_per_s'):g}", "turns": str(self.view("turns")),
                "seed": str(self.view("seed"))}

    @staticmethod
    def percentile_of(shown: str) -> float:
        return float(shown.lstrip("p"))
