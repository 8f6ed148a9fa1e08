"""The Audio panel's presets (§3.3.3), beside serving's in core/serving/backlog.py.

Each preset is a stream for audio.timeline: a label and the parameters it sets. Choosing a
preset sets every parameter in PRESET_KEYS (those a preset names, the rest back to the
book's), so choosing "book" after "adaptive" really is the book again; the other
parameters (chunk size, buffer, interrupt delays) keep what the user gave them.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.audio.timing import TIMELINE
from core.registry import Inputs, ParamError

# key: (label, overrides of audio.timeline's parameters). Values not named keep the book's.
PRESETS: dict[str, tuple[str, dict[str, Any]]] = {
    "book": ("书 · 网络 5 ms", {}),
    "spike": ("尖峰 5,5,50,5", {"network_ms": "5,5,50,5"}),
    "long_spike": ("长流 + 80 ms 尖峰", {"chunks": 150, "network_ms": "5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,85,5",
                                         "interrupt_at_ms": 2500}),
    "jitter": ("抖动 + 尖峰 (示意)", {"chunks": 250, "jitter_ms": 4, "spike_prob": 0.04, "spike_ms": 70,
                                    "interrupt_at_ms": 4000}),
    "adaptive": ("自适应缓冲", {"chunks": 250, "jitter_ms": 4, "spike_prob": 0.04, "spike_ms": 70, "adaptive": True,
                           "interrupt_at_ms": 4000}),
}
# The parameters a preset decides (named ones take the preset's value, the rest the book's).
PRESET_KEYS = ("chunks", "network_ms", "jitter_ms", "spike_prob", "spike_ms", "adaptive", "interrupt_at_ms")


def preset_label(key: str) -> str:
    return PRESETS[_known(key)][0]


def preset_values(key: str) -> Inputs:
    """The preset's values of PRESET_KEYS, parsed and checked once (an Inputs of
    audio.timeline over the book's defaults; only PRESET_KEYS matter)."""
    _, overrides = PRESETS[_known(key)]
    defaults = TIMELINE.defaults()
    return TIMELINE.resolve({**{k: defaults[k] for k in PRESET_KEYS}, **overrides})


def preset_params(key: str) -> dict[str, Any]:
    """The parameter values a preset sets, ready for CardModel.update (already parsed)."""
    values = preset_values(key)
    return {k: values[k] for k in PRESET_KEYS}


def preset_tooltip(key: str) -> str:
    _, overrides = PRESETS[_known(key)]
    return ", ".join(f"{k}={v}" for k, v in overrides.items()) or "the book's defaults"


def matching_preset(values: Mapping[str, Any]) -> str:
    """The key of the preset whose PRESET_KEYS these audio.timeline values have, or "" (custom)."""
    for key in PRESETS:
        wanted = preset_params(key)
        if all(values[k] == v for k, v in wanted.items()):
            return key
    return ""


def _known(key: str) -> str:
    if key not in PRESETS:
        raise ParamError("preset", f"got {key!r}; valid: one of {', '.join(PRESETS)}")
    return key
