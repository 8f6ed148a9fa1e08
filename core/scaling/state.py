"""The Scaling & Budgets panel's state (§3.6): the fit, training against serving, the
tokens-per-parameter table and the small budget cards. Pure Python; the panel binds to it."""
from __future__ import annotations

from core.state_model import PanelModel


class ScalingState(PanelModel):
    key = "scaling"
    CARDS = (
        ("fit", "scaling.fit"),  # 例题 3-5
        ("serve", "scaling.train_vs_serve"),  # 图 3-28
        ("tokens", "scaling.tokens_per_param"),
        ("lifetime", "scaling.lifetime"),  # 练习 3-10
        ("calendar", "scaling.calendar"),
        ("optimal", "scaling.optimal"),
        ("moe", "scaling.moe_experts"),
        ("a100", "scaling.a100_equivalent"),
    )
