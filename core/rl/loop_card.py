"""The RL tab's live loop as state (issue 16): the card of the `lab simulate rl` keys the
window's form and mode switch set, at the window's starting values. It is a card of
core.training_state.TrainingState, so sessions, talks, ↺ reset and undo carry the loop (and
the split sweep, which sweeps the loop on screen); a saved or scened loop is refused by the
same check as an edit in the form (the window's bounds, then RLParams.check).

The window plays a few steps on a few replicas: the card refuses more (MAX_STEPS,
MAX_REPLICAS), `lab simulate rl` takes them all. Every other key of the loop stays at
RLParams' default.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from core.registry import BookRef, Calculator, ParamError
from core.rl.params import PARAM_BY_NAME, RLParams

MAX_STEPS = 12
MAX_REPLICAS = 8
# The loop's keys the window sets, with the window's starting values (a short loop that
# draws in a moment, the long tail visible). The mode is the switch; the rest the form.
WINDOW_VALUES: tuple[tuple[str, Any], ...] = (
    ("mode", "synchronous"),
    ("steps", 4),
    ("prompts", 4),
    ("group", 8),
    ("lengths", "lognormal"),
    ("output_tokens", 256),
    ("sigma", 1.0),
    ("max_tokens", 4096),
    ("rollout_replicas", 2),
    ("trainer_cards", 4),
    ("staleness", 1),
    ("partial_tokens", 512),
)
FORM_NAMES = tuple(name for name, _ in WINDOW_VALUES if name != "mode")


def check_window(values: dict) -> None:
    """The window's bounds, then the loop's own check; ParamError naming the field."""
    if values["steps"] > MAX_STEPS:
        raise ParamError("steps", f"got {values['steps']}; valid: <= {MAX_STEPS} in the window "
                         "(lab simulate rl takes more)")
    if values["rollout_replicas"] > MAX_REPLICAS:
        raise ParamError("rollout_replicas", f"got {values['rollout_replicas']}; valid: <= {MAX_REPLICAS} "
                         "lanes in the window (lab simulate rl takes more)")
    RLParams(**values).check()


def loop_params(values) -> RLParams:
    """The loop the window runs: the card's checked values, every other key RLParams'."""
    return RLParams(**dict(values))


def _calculator() -> Calculator:
    """Not a registered calculator: the RL tab's own form (the label says the unit)."""
    params = tuple(replace(PARAM_BY_NAME[name], default=value, unit="") for name, value in WINDOW_VALUES)
    return Calculator(name="training.rl_loop", title="强化学习循环 · RL loop", ref=BookRef("3.5"),
                      params=params, outputs=(), compute=lambda **_: {}, check=check_window)


RL_LOOP = _calculator()
