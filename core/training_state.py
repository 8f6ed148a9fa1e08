"""The Training panel's state (§3.4-3.5): its eleven calculator cards, the RL tab's live
loop (core.rl.loop_card: the form and the mode switch), its view options and the
positions of its three ▶ players. Pure Python; the panel binds to it and holds nothing.

Sliders in the panel are views of card fields (micro-batches and cards of `step`, the split
of `packing`, the rewards of `advantage`), so they need no state of their own.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.registry import ParamError
from core.rl.loop_card import RL_LOOP
from core.state_model import PanelModel

TABS = ("step", "flops", "rl")
STEP_VIEWS = ("model", "illustrative")


class TrainingState(PanelModel):
    key = "training"
    CARDS = (
        ("step", "train.step"),
        ("state", "train.state"),
        ("linear", "train.linear"),
        ("flops", "train.flops"),
        ("packing", "train.packing"),
        ("update", "train.update"),
        ("pipeline", "rl.pipeline"),
        ("cycle", "rl.cycle"),
        ("marginal", "rl.marginal"),
        ("advantage", "rl.advantage"),
        ("loss", "rl.loss_mean"),
        ("rl_loop", RL_LOOP),  # `lab simulate rl`'s keys the RL tab sets (its split sweep sweeps this loop)
    )
    VIEW = {
        "tab": "step",  # one of TABS
        "step_view": "model",  # one of STEP_VIEWS: the model on the card, or 图 3-20's 4 layers
    }
    PLAYERS = ("step", "pipeline", "rl_loop")  # seconds into the step / the RL pipeline / the live loop

    CHOICES = {"tab": TABS, "step_view": STEP_VIEWS}

    def set_view(self, name: str, value: Any) -> None:
        _check_choice(name, value)
        super().set_view(name, value)

    def load_json(self, data: Mapping[str, Any], checked: Mapping[str, Any] | None = None) -> None:
        for name, value in (data.get("view", {}) or {}).items():
            _check_choice(name, value)  # before anything changes
        super().load_json(data, checked)


def _check_choice(name: str, value: Any) -> None:
    choices = TrainingState.CHOICES.get(name)
    if choices is not None and value not in choices:
        raise ParamError(f"view.{name}", f"got {value!r}; valid: {', '.join(choices)}")
