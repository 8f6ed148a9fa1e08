"""The Multi-turn & Agents panel's state (§3.2): where the edit lands, the tool critical
path, Amdahl's cap and the shared-prefix branches. Pure Python; the panel binds to it."""
from __future__ import annotations

from core.state_model import PanelModel


class AgentsState(PanelModel):
    key = "agents"
    CARDS = (
        ("edit", "multiturn.edit"),  # the draggable edit position lives in this card
        ("path", "agent.critical_path"),  # 图 3-11 / 3-12
        ("amdahl", "agent.amdahl"),  # 例题 3-2
        ("branches", "agent.branch_state"),  # 图 3-13
    )
