"""The Request & Metrics panel's state (§3.1.1-3.1.2): its seven cards, the 图 3-1 player's
step and speed. Pure Python; the panel binds to it and holds nothing of its own."""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from core.registry import ParamError
from core.state_model import PanelModel

STEP_SPEED_RANGE = (1e-3, 1e4)  # steps per wall-clock second: from a crawl to past the ▶'s fastest


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

    def check_view(self, view: Mapping[str, Any]) -> None:
        speed, (low, high) = view["step_speed"], STEP_SPEED_RANGE
        if not (math.isfinite(speed) and low <= speed <= high):
            raise ParamError("view.step_speed", f"got {speed!r}; valid: {low:g}..{high:g} steps per second")
