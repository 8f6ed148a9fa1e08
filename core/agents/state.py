"""The Multi-turn & Agents panel's state (§3.2): the measured code-agent runs, the same run
replayed through the engine's prefix cache (a deferred card: the panel computes it on the
job runner), 图 3-14's CED, goodput, where the edit lands, the tool critical path,
Amdahl's cap and the shared-prefix branches. Pure Python; the panel binds to it."""
from __future__ import annotations

from core.state_model import PanelModel


class AgentsState(PanelModel):
    key = "agents"
    CARDS = (
        ("trajectory", "agent.trajectory"),  # §3.2.1 / §3.2.3: the measured runs
        ("replay", "agent.replay", True),  # the run through the engine: cached tokens, ITL, goodput
        ("ced", "agent.ced"),  # 图 3-14
        ("goodput", "agent.goodput"),  # qualified tasks per second
        ("edit", "multiturn.edit"),  # the draggable edit position lives in this card
        ("path", "agent.critical_path"),  # 图 3-11 / 3-12
        ("amdahl", "agent.amdahl"),  # 例题 3-2
        ("branches", "agent.branch_state"),  # 图 3-13
    )
