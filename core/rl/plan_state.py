"""The Plan panel's whole state: core.sweep's (the serving sweep as written, the results
folder) and the RL split card's inputs (core/rl/split_card.py), so sessions, talks, undo
and ↺ reset carry both. It lives here, not in core.sweep, because core.rl builds on
core.sweep (an RL sweep is one of its kinds) and never the other way round."""
from __future__ import annotations

from core.rl.split_card import RL_SPLIT
from core.sweep.plan_state import PlanState as SweepPlanState


class PlanState(SweepPlanState):
    CARDS = (("rl_split", RL_SPLIT, True),)  # deferred: the card's sweep runs on the panel's job runner
