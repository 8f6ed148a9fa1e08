"""The Serving panel's state (§3.1.3), pure Python: every value the panel lets a user change.

Cards: the request mix, the bandwidth-bound decode rate, the backlog, and the two replays
side by side. Replay B is A with its own shares of long-input requests per window: every
other value of B follows A (the state copies them on each change of A), so B is "the same
run, another mix". The replays are deferred cards: whoever owns the job runner computes
them off the GUI thread (core.serving.figures.replay_side) and hands the result back with
`set_result`.

View options: the backlog preset shown in the picker ("" = custom; choosing one fills the
backlog card, editing the card picks the preset it matches) and the band over seeds (on:
recomputed for each edit of the replays). Players: the banner's ▶ and the replays' ▶, in
simulated seconds.
"""
from __future__ import annotations

from typing import Any

from core.serving import backlog as bl
from core.serving.replay import SCENARIOS
from core.state_model import CardModel, PanelModel

REPLAY_SIDES = ("A", "B")
B_SHARES = SCENARIOS["shift"]["params"]["shares_long_input"]  # B opens on the book's 9:1 then 1:9
BAND_SEEDS = 5


class FollowerCard(CardModel):
    """A replay card that takes every value of its leader but its own (B's shares): each
    update, the form's or the state's, applies over the leader's current values, so fixing
    B's shares after A changed its windows works."""

    def __init__(self, leader: CardModel, own: tuple[str, ...] = ("shares_long_input",)):
        super().__init__(leader.calculator, deferred=True)
        self.leader, self.own = leader, own

    def update(self, raw) -> bool:
        values = {k: v for k, v in self.leader.inputs.items() if k not in self.own}
        return super().update({**values, **raw})


class ServingState(PanelModel):
    key = "serving"
    CARDS = (
        ("mix", "serving.mix"),
        ("rate", "serving.decode_rate"),
        ("backlog", "serving.backlog"),
        ("replay_a", "serving.replay", True),
        ("replay_b", "serving.replay", True),
    )
    VIEW = {"backlog_preset": "shift", "band": False}
    PLAYERS = ("banner", "replay")

    def __init__(self) -> None:
        super().__init__()
        b = FollowerCard(self.card("replay_a"))
        b.changed.connect(lambda c: self.changed.emit("cards.replay_b", c))
        self.cards["replay_b"] = b
        b.update({"shares_long_input": B_SHARES})
        self._a_inputs = self.card("replay_a").inputs
        self.card("replay_a").changed.connect(self._follow_a)
        self.changed.connect(self._on_changed)
        self.set_view("backlog_preset", bl.matching_preset(self.card("backlog").inputs))

    def replay(self, side: str) -> CardModel:
        """The card of replay side 'A' or 'B'."""
        return self.cards[f"replay_{side.lower()}"]

    def reset(self) -> None:
        super().reset()
        self.card("replay_b").update({"shares_long_input": B_SHARES})

    def set_view(self, name: str, value: Any) -> None:
        if name == "backlog_preset" and value not in ("", *bl.PRESETS):
            from core.registry import ParamError

            raise ParamError("view.backlog_preset", f"got {value!r}; valid: one of {', '.join(bl.PRESETS)} or '' (custom)")
        super().set_view(name, value)

    def _follow_a(self, a: CardModel) -> None:
        """B takes every value of A but its shares (an invalid pair shows on B's shares).
        Only on a change of A's inputs: A's result arriving leaves B (and its errors) be."""
        if a.inputs != self._a_inputs:
            self._a_inputs = a.inputs
            self.card("replay_b").update({})

    def _on_changed(self, path: str, value: Any) -> None:
        if path == "view.backlog_preset" and value:
            self.card("backlog").update(bl.preset_params(value))
        elif path == "cards.backlog":
            self.set_view("backlog_preset", bl.matching_preset(value.inputs))
