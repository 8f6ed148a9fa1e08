"""The Audio panel's state (§3.3.3), pure Python: every value the panel lets a user change.

Cards: the stream and its interrupt (audio.timeline), 练习 3-5's two buffers (audio.
buffer_compare: it opens on the exercise's spike; from the first edit of the stream on, its
stream follows the timeline card and only the buffers are its own), the drain (audio.drain) and the speech frame loop (audio.frames). The timeline
and the comparison can take a second for a long adaptive stream: they are deferred cards,
computed off the GUI thread by whoever owns the job runner.

View options: the preset (choosing one sets the stream; editing the stream picks the
preset it matches, "" when none), the source of the samples (and the WAV file for
"wav"), the output device ("" = the system's default, "virtual" = the virtual clock sink,
else a device name) and whether the timeline follows "now" while a long stream plays.
Player: "stream", the live run's position in engine seconds since chunk 0 began.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.audio.presets import PRESETS, matching_preset, preset_params
from core.registry import ParamError, get
from core.state_model import CardModel, PanelModel

SOURCES = ("voice", "tone", "chirp", "wav")  # audio.sources.SOURCE_KINDS (core cannot import audio/)
DEFAULT_DEVICE = ""
VIRTUAL_DEVICE = "virtual"


class AudioState(PanelModel):
    key = "audio"
    CARDS = (
        ("timeline", "audio.timeline", True),
        ("compare", "audio.buffer_compare", True),
        ("drain", "audio.drain"),
        ("frames", "audio.frames"),
    )
    VIEW = {
        "preset": "book",  # a key of core.audio.presets.PRESETS, or "" (custom)
        "source": "voice",  # one of SOURCES
        "wav_path": "",  # the WAV file the "wav" source plays
        "device": DEFAULT_DEVICE,  # "", "virtual" or a device name
        "follow": True,  # a long stream's timeline turns pages to follow "now"
    }
    PLAYERS = ("stream",)

    def __init__(self) -> None:
        self._loading = False
        super().__init__()
        self._timeline_inputs = self.timeline.inputs  # what the comparison last followed
        self.changed.connect(self._on_changed)

    # ---- reading --------------------------------------------------------------------
    @property
    def timeline(self) -> CardModel:
        return self.cards["timeline"]

    @property
    def stream_inputs(self):
        """The checked inputs ▶ streams (the Inputs of the timeline card, as they are)."""
        return self.timeline.inputs

    @property
    def virtual(self) -> bool:
        return self.view("device") == VIRTUAL_DEVICE

    # ---- changing ---------------------------------------------------------------------
    def set_view(self, name: str, value: Any) -> None:
        _check_view(name, value)
        if name == "preset" and value and not self._loading:
            # Choosing a preset sets the stream; the card's change then names the preset.
            self.timeline.update(preset_params(value))
            return
        super().set_view(name, value)

    def apply_preset(self, key: str) -> bool:
        """Set the stream to a preset; False when the card refused it (the card says why)."""
        _check_view("preset", key)
        return self.timeline.update(preset_params(key))

    def load_json(self, data: Mapping[str, Any], checked: Mapping[str, Any] | None = None) -> None:
        for name, value in (data.get("view", {}) or {}).items():
            _check_view(name, value)  # before anything changes
        self._loading = True
        try:
            super().load_json(data, checked)
        finally:
            self._loading = False
        # The preset is what the loaded stream is, whatever the file says.
        super().set_view("preset", matching_preset(self.timeline.inputs))

    def _on_changed(self, path: str, value: Any) -> None:
        if path == "cards.timeline":
            self._follow_timeline(value)

    def _follow_timeline(self, card: CardModel) -> None:
        """The comparison plays the same stream; the preset names it. Only on a change of
        the stream's inputs: the timeline's result arriving leaves the comparison be."""
        if card.errors or card.inputs == self._timeline_inputs:
            return
        self._timeline_inputs = card.inputs
        compare = self.cards["compare"]
        shared = {k: v for k, v in card.inputs.items() if k in _COMPARE_STREAM_KEYS}
        if any(compare.inputs[k] != v for k, v in shared.items()) or compare.errors:
            compare.update(shared)
        if not self._loading:
            super().set_view("preset", matching_preset(card.inputs))


def _stream_keys() -> frozenset[str]:
    compare = {p.name for p in get("audio.buffer_compare").params}
    return frozenset(p.name for p in get("audio.timeline").params if p.name in compare)


_COMPARE_STREAM_KEYS = _stream_keys()


def _check_view(name: str, value: Any) -> None:
    if name == "preset" and value not in ("", *PRESETS):
        raise ParamError("view.preset", f"got {value!r}; valid: one of {', '.join(PRESETS)} or '' (custom)")
    if name == "source" and value not in SOURCES:
        raise ParamError("view.source", f"got {value!r}; valid: one of {', '.join(SOURCES)}")
