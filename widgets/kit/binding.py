"""Binding a panel's figures to its state model: 'cards.<slot>', 'view.<name>' or
'player.<name>' changes call the draw function registered for that path, and a card's
figure is drawn only when the card has a result not drawn yet (a refused edit, or the
same result again, draws nothing)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import shiboken6


class FigureBinding:
    """Mixin for a QWidget panel with a `state` (a core PanelModel)."""

    def bind_figures(self, handlers: dict[str, Callable[[], None]]) -> None:
        """handlers: state path ('cards.edit', 'view.step_speed') -> draw function."""
        self._figure_handlers = dict(handlers)
        self._drawn: dict[str, Any] = {}  # card slot -> the result last drawn
        self.state.changed.connect(self._on_state_changed)

    def unbind_figures(self) -> None:
        self.state.changed.disconnect(self._on_state_changed)

    def refresh(self) -> None:
        """Draw everything from the model (construction, or after the model was replaced)."""
        self._drawn.clear()
        for handler in self._figure_handlers.values():
            handler()

    def _on_state_changed(self, path: str, _value=None) -> None:
        if shiboken6.isValid(self) and path in self._figure_handlers:
            self._figure_handlers[path]()

    def _fresh(self, slot: str):
        """The card's (inputs, result) when that result is not drawn yet, else None."""
        card = self.state.card(slot)
        if card.result is None or self._drawn.get(slot) is card.result:
            return None
        self._drawn[slot] = card.result
        return card.result_inputs, card.result
