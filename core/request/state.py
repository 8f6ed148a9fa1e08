"""The Request & Metrics panel's state (§3.1.1-3.1.2): its seven cards, the 图 3-1 player's
step and speed. Pure Python; the panel binds to it and holds nothing of its own."""
from __future__ import annotations

from core.state_model import PanelModel


class RequestState(PanelModel):
    key = "request"
    CARDS = (
        ("anatomy", "request.anatomy"),  # 图 3-1
        ("split", "request.split"),  # 练习 3-1
        ("timeline", "metrics.timeline"),  # 图 3-2
        ("percentile", "metrics.percentile"),  # p95
        ("area", "state.area"),  # 图 3-3
        ("success", "cost.success"),  # 图 3-9
        ("compare", "cost.compare"),  # 练习 3-3
    )
    # step_speed: decode steps per wall-clock second while 图 3-1 plays.
    VIEW = {"step_speed": 100.0}
    # steps: the 图 3-1 cursor, in decode steps from the first (j).
    PLAYERS = ("steps",)
