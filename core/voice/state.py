"""The Voice panel's state: the background load, how many turns, the seed, which turn is shown.

Pure (no Qt): a core PanelModel, so sessions, talks, reset and undo treat it like the others.
The model's own parameters are core.voice.VoiceParams; `voice_raw()` is what the panel asks
core.voice for, in the CLI's key names (`lab simulate voice rate=... turns=... seed=...`).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.registry import ParamError
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

    def voice_raw(self, view: Mapping[str, Any] | None = None) -> dict[str, str]:
        view = self._view if view is None else view
        return {"rate": f"{view['rate_per_s']:g}", "turns": str(view["turns"]), "seed": str(view["seed"])}

    def check_view(self, view: Mapping[str, Any]) -> None:
        """What a run of this view resolves (core.voice.VoiceParams, as the panel's run
        does), and a shown turn of SHOWN."""
        from core.voice.params import VoiceParams  # the engine's config behind it: only when checked

        if view["shown"] not in SHOWN:
            raise ParamError("view.shown", f"got {view['shown']!r}; valid: {', '.join(SHOWN)}")
        names = {"rate": "rate_per_s", "turns": "turns", "seed": "seed"}
        try:
            VoiceParams.from_raw(self.voice_raw(view))
        except ParamError as err:
            raise ParamError(f"view.{names.get(err.param, err.param)}", err.message) from None

    @staticmethod
    def percentile_of(shown: str) -> float:
        return float(shown.lstrip("p"))
