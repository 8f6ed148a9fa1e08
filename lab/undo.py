"""Undo / redo across the app: one QUndoStack over every built panel's state model.

How edits become commands: the recorder listens to each panel's `state.changed` and, once
the event loop turns (one edit can change several paths: a preset fills a card, a card
names its preset), diffs the panel's state JSON against the copy it took after the last
step. The difference, a fragment of (group, name) -> before/after values at the grain of
whole cards, view options and players, is one command. Undo and redo load the fragment
over the panel's current state through the model's own load_json, with recording paused,
so they never push commands of their own.

A panel's own set-up is not a step: until a panel has been ready once (MainWindow.is_ready:
its sections built, its first figures in), its changes only move the copy.

A slider drag is one step: changes made while a slider of the panel is held down merge into
the command of that drag (QUndoCommand.mergeWith), until the slider is released. Repeats of
one edit in quick succession (a pan or wheel zoom of a picture, an arrow key held on a spin
box) merge too, when less than MERGE_WINDOW_S apart; an undo or redo ends any merging.

Players: a position moves 60 times a second while a figure plays, and panels also move it
themselves (a new figure starts at its end). Only a seek the user drags on a player's slider
is recorded; every other position change is taken into the copy silently, so it never
fills the stack and undoing an edit leaves the playback where it is.
"""
from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from widgets.kit.timeline_player import TimelinePlayer

PLAYER_LOOKUP_S = 0.5  # how long a panel's list of players is trusted (panels build in stages)
SETTLE_POLL_MS = 50  # how often panels still setting up are asked whether they are ready
SETTLE_GIVE_UP_S = 20.0  # a panel that never says ready is taken as ready after this
UNDO_LIMIT = 500  # steps kept (each a few values; a long talk stays well under a MB)
MERGE_WINDOW_S = 0.6  # repeats of one edit closer than this are one step
MERGE_ID = 0x5E55  # commands of one slider drag merge (any id >= 0 would do; one kind)
Key = tuple[str, str]  # (group, name): ("cards", "area"), ("view", "tab"), ("players", "step")


def flatten(state: dict[str, Any]) -> dict[Key, Any]:
    """A panel's state JSON as (group, name) -> value, at the grain undo works at."""
    flat: dict[Key, Any] = {}
    for group, value in state.items():
        if group in ("cards", "view", "players") and isinstance(value, dict):
            flat.update({(group, name): v for name, v in value.items()})
        elif group not in ("schema", "panel"):
            flat[(group, "")] = value  # a panel's own field, e.g. Vision's "images"
    return flat


def overlay(state: dict[str, Any], values: dict[Key, Any]) -> dict[str, Any]:
    """state with values put in place (a copy)."""
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in state.items()}
    for (group, name), value in values.items():
        if name == "":
            out[group] = value
        else:
            out.setdefault(group, {})[name] = value
    return out


class EditCommand(QtGui.QUndoCommand):
    """One step on one panel: the values before and after, of what changed."""

    def __init__(self, recorder: UndoRecorder, key: str, before: dict[Key, Any], after: dict[Key, Any],
                 group: tuple | None):
        super().__init__(describe(key, after))
        self.recorder, self.key, self.before, self.after, self.group = recorder, key, before, after, group
        self.stamp = time.monotonic()  # of the latest change in this step
        self._done = True  # pushed after the edit happened: the first redo has nothing to do

    def id(self) -> int:
        return MERGE_ID if self.group is not None else -1

    def mergeWith(self, other: QtGui.QUndoCommand) -> bool:
        if not (isinstance(other, EditCommand) and other.key == self.key and other.group == self.group):
            return False
        if self.group[0] != "drag" and other.stamp - self.stamp > MERGE_WINDOW_S:
            return False
        self.stamp = other.stamp
        self.before = {**other.before, **self.before}
        self.after = {**self.after, **other.after}
        self.setText(describe(self.key, self.after))
        self.setObsolete(self.before == self.after)  # dragged back where it started
        return True

    def undo(self) -> None:
        self.recorder.apply(self.key, self.before)

    def redo(self) -> None:
        if self._done:
            self._done = False
            return
        self.recorder.apply(self.key, self.after)


def describe(key: str, values: dict[Key, Any]) -> str:
    names = sorted({f"{g}.{n}" if n else g for g, n in values})
    return f"{key}: {', '.join(names[:3])}{' …' if len(names) > 3 else ''}"


class UndoRecorder(QtCore.QObject):
    """Turns the panels' state changes into commands on `stack`."""

    recorded = QtCore.Signal(str)  # a step was pushed (or a drag's step grew) on this panel
    pending = QtCore.Signal(bool)  # an edit waits for the loop to turn to be recorded (Undo can run)

    def __init__(self, window: QtWidgets.QMainWindow):
        super().__init__(window)
        self.window = window
        self.stack = QtGui.QUndoStack(self)
        self.stack.setUndoLimit(UNDO_LIMIT)
        self._copies: dict[str, dict[str, Any]] = {}  # key -> state JSON after the last step
        self._players: dict[str, tuple[float, list[TimelinePlayer]]] = {}  # key -> (when looked, players)
        self._dirty: set[str] = set()
        self._settled: set[str] = set()  # panels that have been ready once: their changes are edits
        self._setting_up: set[str] = set()  # panels whose pending changes are their own set-up
        self._paused = 0
        self._whole_action = False  # inside a user action on a whole panel (reset): players count
        self._drag = 0  # serial of the current (or next) slider drag
        self._barrier = 0  # moves on each undo/redo: no step merges across one
        self._drag_slider: QtWidgets.QAbstractSlider | None = None
        self._flush_timer = QtCore.QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(0)
        self._flush_timer.timeout.connect(self.flush)
        self._built_at: dict[str, float] = {}
        self._settle_timer = QtCore.QTimer(self)
        self._settle_timer.setInterval(SETTLE_POLL_MS)
        self._settle_timer.timeout.connect(self._check_settled)
        self._edit_keys = _EditKeys(self)
        self._slots: dict[str, Any] = {}  # key -> the slot on its state's `changed`
        window.panel_built.connect(self.watch)
        window.installEventFilter(self)
        for key in window.panel_keys():
            if window.panel_state(key) is not None:
                self.watch(key)

    # ---- recording ----------------------------------------------------------------------
    def watch(self, key: str) -> None:
        state = self.window.panel_state(key)
        if state is None or key in self._copies:
            return
        self._copies[key] = state.to_json()
        self._built_at[key] = time.monotonic()
        self._settle_timer.start()
        self._slots[key] = state.changed.connect(lambda path, value, key=key: self._on_changed(key, path, value))

    def detach(self) -> None:
        """Stop listening (the window closes: its models may outlive it)."""
        for key, slot in self._slots.items():
            state = self.window.panel_state(key)
            if state is not None:
                state.changed.disconnect(slot)
        self._slots.clear()
        self._flush_timer.stop()
        self._settle_timer.stop()

    def eventFilter(self, watched, event):
        if watched is self.window and event.type() == QtCore.QEvent.Type.Close:
            self.detach()
        return False

    def is_settled(self, key: str) -> bool:
        """key's panel has been ready once: its changes are the user's from now on."""
        return key in self._settled

    def _check_settled(self) -> None:
        now = time.monotonic()
        for key, built in self._built_at.items():
            if key not in self._settled and (self.window.is_ready(key) or now - built > SETTLE_GIVE_UP_S):
                self.flush()  # what came before was set-up
                self._settled.add(key)
                self._edit_keys.watch(self.window.panel(key))
        if self._settled >= set(self._built_at):
            self._settle_timer.stop()

    def _on_changed(self, key: str, path: str, value: Any) -> None:
        if self._paused:
            return
        if key not in self._settled:
            # A panel finishing its set-up (a first result that fills a card) is not the
            # user: until it has been ready once, its changes only move the copy.
            self._setting_up.add(key)
        if path.startswith("player.") and not self._whole_action and not self._seeking(key):
            # Playback (or the panel placing its player): into the copy, never a step.
            self._copies[key].setdefault("players", {})[path.partition(".")[2]] = value
            return
        self._dirty.add(key)
        self._flush_timer.start()
        if key not in self._setting_up:
            self.pending.emit(True)

    def flush(self) -> None:
        """Record what changed since the last step (the timer calls it once the loop turns)."""
        self._flush_timer.stop()
        dirty, self._dirty = self._dirty, set()
        setting_up, self._setting_up = self._setting_up, set()
        if dirty - setting_up:
            self.pending.emit(False)
        for key in sorted(dirty):
            if key in setting_up:
                self._copies[key] = self.window.panel_state(key).to_json()
            else:
                self._record(key)

    def _record(self, key: str) -> None:
        state = self.window.panel_state(key)
        old, new = self._copies[key], state.to_json()
        self._copies[key] = new
        before, after = flatten(old), flatten(new)
        changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
        panel = self.window.panel(key)
        if not self._whole_action and not self._seeking(key, fresh=True):
            changed = {k for k in changed if k[0] != "players"}  # playback, not the user
        if not changed:
            return
        self.stack.push(EditCommand(self, key, {k: before.get(k) for k in changed},
                                    {k: after.get(k) for k in changed}, self._group(panel, changed)))
        self.recorded.emit(key)

    def _seeking(self, key: str, fresh: bool = False) -> bool:
        """The user drags the seek slider of one of key's players. The list of players is
        looked up at most every PLAYER_LOOKUP_S while a figure plays (60 changes a second)."""
        now = time.monotonic()
        looked, players = self._players.get(key, (-PLAYER_LOOKUP_S, []))
        if fresh or now - looked >= PLAYER_LOOKUP_S:
            players = self.window.panel(key).findChildren(TimelinePlayer)
            self._players[key] = (now, players)
        return any(shiboken6.isValid(p) and p.slider.isSliderDown() for p in players)

    def _group(self, panel: QtWidgets.QWidget, changed: set[Key]) -> tuple | None:
        """What a step may merge with (None: nothing): the rest of its slider drag; else
        the step before if it changed the same things less than MERGE_WINDOW_S earlier
        (a pan or a wheel zoom of a picture, a spin box's arrow held down)."""
        if self._whole_action:
            return None
        drag = self._drag_serial(panel)
        if drag is not None:
            return ("drag", drag)
        return ("repeat", self._barrier, frozenset(changed))

    def _drag_serial(self, panel: QtWidgets.QWidget) -> int | None:
        """The serial of the slider drag under way in panel, or None (not a drag)."""
        held = next((s for s in panel.findChildren(QtWidgets.QAbstractSlider) if s.isSliderDown()), None)
        if held is None:
            return None
        if held is not self._drag_slider:
            self._drag += 1
            self._drag_slider = held
            if not held.property("undo_watched"):
                held.setProperty("undo_watched", True)
                held.sliderReleased.connect(self._on_slider_released)
        return self._drag

    def _on_slider_released(self) -> None:
        self.flush()  # the drag's last move belongs to the drag
        self._drag_slider = None
        self._drag += 1

    def whole_panel_action(self) -> _WholeAction:
        """A context for a user action on a whole panel (Reset panel): one step, with the
        players' positions in it (undo puts ▶ back where it was)."""
        return _WholeAction(self)

    # ---- replaying ----------------------------------------------------------------------
    def apply(self, key: str, values: dict[Key, Any]) -> None:
        """Put values into key's panel through its model (undo/redo), recording nothing."""
        self._barrier += 1  # the next edit is a step of its own, whatever it changes
        state = self.window.panel_state(key)
        if state is None:
            return
        with self.paused([key]):
            state.load_json(overlay(state.to_json(), {k: v for k, v in values.items() if v is not None}))
        if self.window.current_key() != key:
            self.window.show_panel(key)

    def paused(self, keys: Iterable[str] | None = None) -> _Pause:
        """A context in which state changes are not recorded; the copies of keys' panels
        (default: all) are retaken after."""
        return _Pause(self, keys)

    def undo(self) -> None:
        """Edit → Undo: an edit of this very turn of the loop is recorded first, then undone."""
        self.flush()
        self.stack.undo()

    def redo(self) -> None:
        self.flush()
        self.stack.redo()

    def retake(self, keys: Iterable[str] | None = None) -> None:
        """Take the copies again (after changes that are not steps: undo, a session)."""
        keys = list(self._copies) if keys is None else list(keys)
        self._dirty.difference_update(keys)
        self._setting_up.difference_update(keys)
        for key in keys:
            state = self.window.panel_state(key)
            if state is not None and key in self._copies:
                self._copies[key] = state.to_json()


class _EditKeys(QtCore.QObject):
    """Ctrl+Z / Ctrl+Shift+Z in a field: while the user types, the field's own undo of its
    text; once the value is entered (Enter or leaving the field), the app's undo of the
    edit. QLineEdit's `modified` flag tells the two apart: typing sets it, entering the
    value clears it here."""

    def watch(self, panel: QtWidgets.QWidget) -> None:
        for edit in panel.findChildren(QtWidgets.QLineEdit):
            if not edit.property("undo_keys"):
                edit.setProperty("undo_keys", True)
                edit.installEventFilter(self)
                edit.editingFinished.connect(lambda edit=edit: edit.setModified(False))

    def eventFilter(self, watched, event):
        if (event.type() == QtCore.QEvent.Type.ShortcutOverride and isinstance(watched, QtWidgets.QLineEdit)
                and not watched.isModified()
                and (event.matches(QtGui.QKeySequence.StandardKey.Undo)
                     or event.matches(QtGui.QKeySequence.StandardKey.Redo))):
            return True  # not taken by the field: the window's Undo / Redo shortcut runs
        return False


class _WholeAction:
    def __init__(self, recorder: UndoRecorder):
        self.recorder = recorder

    def __enter__(self) -> UndoRecorder:
        self.recorder.flush()  # what came before is a step of its own
        self.recorder._whole_action = True
        return self.recorder

    def __exit__(self, *exc) -> None:
        try:
            self.recorder.flush()
        finally:
            self.recorder._whole_action = False


class _Pause:
    def __init__(self, recorder: UndoRecorder, keys: Iterable[str] | None):
        self.recorder, self.keys = recorder, keys

    def __enter__(self) -> UndoRecorder:
        self.recorder._paused += 1
        return self.recorder

    def __exit__(self, *exc) -> None:
        self.recorder._paused -= 1
        if not self.recorder._paused:
            self.recorder.retake(self.keys)
