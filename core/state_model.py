"""Panel state as data: each panel's cards, view options and player positions, in core.

Widgets bind to these models and hold no state of their own; talks, sessions, reset and
undo are a model saved, restored and diffed as JSON.

Why not psygnal's EventedModel (what napari uses): it needs pydantic for the model and a
compiled wheel for speed, and all we need is "call these functions after a real change".
`Signal` below is that, in twenty lines, with psygnal's connect/disconnect/emit names so
that a later switch is mechanical.
"""
from __future__ import annotations

import math
import traceback
from collections.abc import Callable, Mapping
from typing import Any

from core.registry import Calculator, Inputs, ParamError, get

SCHEMA_VERSION = 1


class Signal:
    """A list of callbacks, called in order on emit. Not thread-safe: emit on one thread."""

    def __init__(self) -> None:
        self._slots: list[Callable[..., Any]] = []

    def connect(self, slot: Callable[..., Any]) -> Callable[..., Any]:
        if slot not in self._slots:
            self._slots.append(slot)
        return slot

    def disconnect(self, slot: Callable[..., Any] | None = None) -> None:
        """Remove one callback (missing ones are ignored), or all of them."""
        if slot is None:
            self._slots.clear()
        elif slot in self._slots:
            self._slots.remove(slot)

    def emit(self, *args: Any) -> None:
        for slot in list(self._slots):
            slot(*args)

    def __len__(self) -> int:
        return len(self._slots)


class CardModel:
    """One calculator card: its checked inputs, the result computed from them, and why the
    latest edit was refused (errors) or why the latest computation failed (failure).

    A deferred card (a replay that takes seconds) does not compute on update: whoever owns
    the job runner computes `inputs` off the GUI thread and hands the result back with
    `set_result`, which drops results of inputs that are no longer current.
    """

    def __init__(self, calculator: Calculator | str, deferred: bool = False):
        self.calculator = get(calculator) if isinstance(calculator, str) else calculator
        self.deferred = deferred
        self.changed = Signal()  # (card): inputs, result, errors or failure changed
        self.inputs: Inputs = self.calculator.default_inputs
        self.errors: dict[str, str] = {}  # field -> message of the refused edit
        self.failure: str | None = None  # traceback text when compute raised
        self.result: dict[str, Any] | None = None
        self.result_inputs: Inputs | None = None
        if not deferred:
            self._compute(self.inputs)

    @property
    def name(self) -> str:
        return self.calculator.name

    @property
    def stale(self) -> bool:
        """The result shown is not of the current inputs (a job runs, or compute failed)."""
        return self.result_inputs != self.inputs or self.failure is not None or bool(self.errors)

    def update(self, raw: Mapping[str, Any]) -> bool:
        """Parse raw values (text or numbers) over the current inputs. On a real change the
        card takes them and, unless deferred, computes; emits changed either way the state
        moved. Returns True when the values were valid."""
        inputs, errors = self.calculator.resolve_all(raw, base=self._base())
        if inputs is None:
            new_errors = {e.param: e.message for e in errors}
            if new_errors != self.errors:
                self.errors = new_errors
                self.changed.emit(self)
            return False
        had_errors = bool(self.errors)
        self.errors = {}
        if inputs == self.inputs and not had_errors:
            return True
        if not self.deferred:
            refused = self._compute(inputs)
            if refused is not None:  # more work than the lab does quickly: keep the last inputs
                self.errors = {refused.param: refused.message}
                self.changed.emit(self)
                return False
        self.inputs = inputs
        self.changed.emit(self)
        return True

    def _base(self) -> Mapping[str, Any]:
        """The checked values an update applies over (only its own raw values are parsed)."""
        return self.inputs

    def reset(self) -> None:
        """Back to the book's defaults."""
        self.update(self.calculator.defaults())

    def set_result(self, inputs: Inputs, result: dict[str, Any] | None, failure: str | None = None) -> bool:
        """Take a result computed elsewhere (a job); False, and dropped, if stale."""
        if inputs != self.inputs:
            return False
        self.result, self.result_inputs, self.failure = result, inputs, failure
        self.changed.emit(self)
        return True

    def _compute(self, inputs: Inputs) -> ParamError | None:
        """Compute inputs' result; a ParamError (the work the inputs imply is over the
        lab's bound) is returned for the caller to refuse the edit."""
        try:
            result = self.calculator.run(inputs)
        except ParamError as err:
            return err
        except Exception:  # noqa: BLE001 - a bug: keep the last good result, marked stale
            self.failure = traceback.format_exc()
            return None
        self.result, self.result_inputs, self.failure = result, inputs, None
        return None

    def to_json(self) -> dict[str, Any]:
        """Values that differ from the book's defaults (a session stays readable)."""
        defaults = self.calculator.default_inputs
        return {k: _jsonable(v) for k, v in self.inputs.items() if defaults[k] != v}

    def load_json(self, data: Mapping[str, Any] | Inputs) -> None:
        """Replace the inputs with the defaults overridden by data (or with Inputs checked
        already); ParamError if invalid, before anything changes."""
        self.update(self.calculator.resolve(data))


class PanelModel:
    """A panel's whole state. Subclasses declare CARDS, VIEW and PLAYERS.

    CARDS: (slot, calculator name) pairs, or (slot, name, True) for a deferred card.
    VIEW: view options with their defaults (tabs, toggles, plot ranges); a value keeps the
    type of its default. PLAYERS: names of ▶ players, each with a position in its own unit.
    `changed` emits (path, value) once per real change: 'cards.<slot>', 'view.<name>',
    'player.<name>'.
    """

    key = ""
    CARDS: tuple[tuple, ...] = ()
    VIEW: Mapping[str, Any] = {}
    PLAYERS: tuple[str, ...] = ()

    def __init__(self) -> None:
        self.changed = Signal()
        self.cards: dict[str, CardModel] = {}
        for slot, name, *deferred in self.CARDS:
            card = CardModel(name, deferred=bool(deferred and deferred[0]))
            card.changed.connect(lambda c, slot=slot: self.changed.emit(f"cards.{slot}", c))
            self.cards[slot] = card
        self._view: dict[str, Any] = dict(self.VIEW)
        self._players: dict[str, float] = {name: 0.0 for name in self.PLAYERS}

    def card(self, slot: str) -> CardModel:
        return self.cards[slot]

    def view(self, name: str) -> Any:
        return self._view[name]

    def set_view(self, name: str, value: Any) -> None:
        if name not in self.VIEW:
            raise KeyError(f"{self.key}: no view option {name!r}; valid: {', '.join(self.VIEW)}")
        value = _like(self.VIEW[name], value, f"view.{name}")
        if value != self._view[name]:
            self._view[name] = value
            self.changed.emit(f"view.{name}", value)

    def check_view(self, view: Mapping[str, Any]) -> None:
        """Refuse (ParamError naming view.<name>) a whole view a saved state or a talk
        brings that this panel's own computation would refuse; by default every value
        of the right type is fine. A panel with ranges checks them here, with the same
        resolve an edit's run goes through."""

    def player(self, name: str) -> float:
        return self._players[name]

    def set_player(self, name: str, position: float) -> None:
        position = float(position)
        if name not in self._players:
            raise KeyError(f"{self.key}: no player {name!r}; valid: {', '.join(self._players)}")
        if not math.isfinite(position) or position < 0:
            raise ParamError(f"player.{name}", f"got {position!r}; valid: a finite position >= 0")
        if position != self._players[name]:
            self._players[name] = position
            self.changed.emit(f"player.{name}", position)

    def reset(self) -> None:
        """The whole panel back to the book: every card, view option and player."""
        for card in self.cards.values():
            card.reset()
        for name, value in self.VIEW.items():
            self.set_view(name, value)
        for name in self._players:
            self.set_player(name, 0.0)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA_VERSION,
            "panel": self.key,
            "cards": {slot: card.to_json() for slot, card in self.cards.items()},
            "view": {k: _jsonable(v) for k, v in self._view.items()},
            "players": dict(self._players),
        }

    def check_card(self, slot: str, values: Mapping[str, Any]) -> Inputs:
        """A saved card's values checked against its calculator (ParamError naming the
        card if there is no such card, else the calculator's, naming the value)."""
        if slot not in self.cards:
            raise ParamError(f"cards.{slot}", f"unknown card; valid: {', '.join(self.cards)}")
        return self.cards[slot].calculator.resolve(values)

    def load_json(self, data: Mapping[str, Any], checked: Mapping[str, Inputs] | None = None) -> None:
        """Restore a saved state. Checks everything before changing anything, so a bad
        file leaves the panel as it was; raises ParamError naming the field.
        checked: the cards' values as the caller checked them already (check_card), so
        each is parsed once; cards it lacks are checked here."""
        if data.get("panel", self.key) != self.key:
            raise ParamError("panel", f"this state is for {data.get('panel')!r}; valid: {self.key!r}")
        cards = data.get("cards", {}) or {}
        inputs = dict(checked or {})
        for slot, values in cards.items():
            if slot not in inputs:
                inputs[slot] = self.check_card(slot, values)
        view = {k: _like(self.VIEW[k], v, f"view.{k}") if k in self.VIEW else _unknown("view", k, self.VIEW)
                for k, v in (data.get("view", {}) or {}).items()}
        self.check_view({**self._view, **view})
        players = data.get("players", {}) or {}
        for name in players:
            if name not in self._players:
                _unknown("players", name, self._players)
        for slot, card in self.cards.items():
            card.load_json(inputs.get(slot) or card.calculator.default_inputs)
        for name, value in {**self.VIEW, **view}.items():
            self.set_view(name, value)
        for name in self._players:
            self.set_player(name, players.get(name, 0.0))


def _unknown(group: str, name: str, valid: Mapping) -> Any:
    raise ParamError(f"{group}.{name}", f"unknown; valid: {', '.join(valid) or 'none'}")


def _like(default: Any, value: Any, field: str) -> Any:
    """value converted to the type of default, or ParamError naming the field."""
    try:
        if isinstance(default, bool):
            if isinstance(value, bool):
                return value
            raise TypeError
        if isinstance(default, int):
            if isinstance(value, bool) or float(value) != int(value):
                raise TypeError
            return int(value)
        if isinstance(default, float):
            value = float(value)
            if not math.isfinite(value):
                raise TypeError
            return value
        if isinstance(default, str):
            if not isinstance(value, str):
                raise TypeError
            return value
        if isinstance(default, (tuple, list)):
            return tuple(float(v) for v in value)
    except (TypeError, ValueError, OverflowError):
        raise ParamError(field, f"got {value!r}; valid: a {type(default).__name__} like {default!r}") from None
    return value


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value
