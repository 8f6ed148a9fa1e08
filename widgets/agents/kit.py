"""What the Agents panel's figures share: a plot card whose axes are labelled once and
whose view the data sets (no pan or zoom by mouse; numbers as written, no SI prefix)."""
from __future__ import annotations

from widgets.kit.plot_card import PlotCard


def still_plot(title: str, subtitle: str, bottom: str = "", left: str = "") -> PlotCard:
    card = PlotCard(title, subtitle)
    p = card.plot
    for side, text in (("bottom", bottom), ("left", left)):
        if text:
            p.setLabel(side, text)
        p.getAxis(side).enableAutoSIPrefix(False)
    p.setMouseEnabled(x=False, y=False)
    return card
