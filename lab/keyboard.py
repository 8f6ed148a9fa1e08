"""The keyboard model: a panel's keys work as soon as it is shown, without a click into it,
and the mouse wheel scrolls the page (a plot zooms only with Ctrl held).

A panel names its keys in key_actions() -> [(key sequence, what it does, slot), ...], e.g.
Audio's ("Space", "play / stop", ...), ("P", "play", ...). The window holds one shortcut per
key sequence any panel uses; each is enabled only while the panel on screen has that key,
so it never takes a key from another panel. Space with no panel key plays or pauses the
figure's player (MainWindow.toggle_playback). Text fields keep their typing: Qt gives a
focused editor printable keys before any shortcut.
"""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

SPACE = "Space"


def install(window) -> None:
    window.keys = PanelKeys(window)
    window.wheel_guard = WheelGuard(window)


def panel_key_actions(panel) -> dict[str, tuple[str, object]]:
    """panel's keys as {portable key text: (what it does, slot)}."""
    actions = getattr(panel, "key_actions", None)
    out = {}
    for sequence, text, slot in (actions() if actions is not None else ()):
        out[QtGui.QKeySequence(sequence).toString()] = (text, slot)
    return out


class PanelKeys(QtCore.QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self._shortcuts: dict[str, QtGui.QShortcut] = {}
        self._keys: dict[str, dict[str, tuple[str, object]]] = {}  # panel key -> its keys
        self._ensure(SPACE)
        window.panel_built.connect(self._on_panel_built)
        window.panel_shown.connect(self._on_panel_shown)
        window.presentation_action.toggled.connect(lambda _on: self._enable(window.current_key()))

    def _on_panel_built(self, key: str) -> None:
        self._keys[key] = panel_key_actions(self.window.panel(key))
        for sequence in self._keys[key]:
            self._ensure(sequence)

    def _on_panel_shown(self, key: str) -> None:
        self._enable(key)

    def _ensure(self, sequence: str) -> None:
        if sequence not in self._shortcuts:
            shortcut = QtGui.QShortcut(QtGui.QKeySequence(sequence), self.window)
            shortcut.setContext(QtCore.Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(lambda s=sequence: self.press(s))
            self._shortcuts[sequence] = shortcut

    def keys(self, key: str | None = None) -> dict[str, tuple[str, object]]:
        """The keys of panel key (default: the one on screen)."""
        return self._keys.get(key if key is not None else self.window.current_key(), {})

    def _enable(self, key: str) -> None:
        keys = self._keys.get(key, {})
        # In presentation mode Esc leaves it (lab.talk.presentation); the panel's Esc waits.
        taken = {"Esc"} if self.window.presentation_action.isChecked() else set()
        for sequence, shortcut in self._shortcuts.items():
            shortcut.setEnabled(sequence not in taken and (sequence in keys or sequence == SPACE))

    def press(self, sequence: str) -> None:
        """Run the panel's action for sequence (what the shortcut does; tests call it too)."""
        entry = self.keys().get(sequence)
        if entry is not None:
            entry[1]()
        elif sequence == SPACE:
            self.window.toggle_playback()

    def help_text(self) -> str:
        keys = self.keys()
        return " · ".join(f"{sequence} {text}" for sequence, (text, _slot) in keys.items())


class WheelGuard(QtCore.QObject):
    """A wheel turned over a plot scrolls the page it is on; with Ctrl held the plot gets
    it (and zooms). Watches the plot views of each panel (watch(panel), called when a panel
    is built, shown or ready): an application-wide filter would see every event there is."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window

    def watch(self, panel: QtWidgets.QWidget) -> None:
        import pyqtgraph as pg  # lazy: loaded with the first plot, not with the window

        for view in panel.findChildren(pg.GraphicsView):
            viewport = view.viewport()
            if viewport.property("wheel_guarded") is None:
                viewport.setProperty("wheel_guarded", True)
                viewport.installEventFilter(self)

    def eventFilter(self, watched, event):
        if event.type() != QtCore.QEvent.Type.Wheel:
            return False
        if event.modifiers() & QtCore.Qt.KeyboardModifier.ControlModifier:
            return False
        area = _ancestor(watched.parentWidget(), QtWidgets.QAbstractScrollArea)
        if area is None:
            return True  # no page to scroll: the plot does not zoom without Ctrl either
        bar = area.verticalScrollBar()
        if event.angleDelta().y() == 0 and event.angleDelta().x() != 0:
            bar = area.horizontalScrollBar()
        QtWidgets.QApplication.sendEvent(bar, event)
        return True


def _ancestor(widget, kind):
    """The nearest widget above widget (not widget itself) of kind, or None."""
    widget = widget.parentWidget() if widget is not None else None
    while widget is not None:
        if isinstance(widget, kind):
            return widget
        widget = widget.parentWidget()
    return None
