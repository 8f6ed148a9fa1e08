"""Window feature: sessions, undo and reset (install(window)).

File → Save session / Open session / Recent sessions: every panel's state (built or not),
the panel on screen, the window's geometry, zoom, theme and language, in a `.lab.json`
file (schema, checks and atomic writing in core/session.py). Opening checks the whole file,
each panel's state in a fresh model included, before anything changes; a refused file
leaves the lab as it was and says why.

Autosave every 30 s and the offer to restore it after a crash: lab/autosave.py
(window.session.autosave).

Edit → Undo / Redo (lab/undo.py) and Reset panel (Ctrl+Shift+R: Ctrl+R is the talk's
"reset scene"), one undo step.
"""
from __future__ import annotations

import json
import os

from PySide6 import QtCore, QtGui, QtWidgets

from core import session as core_session
from core.registry import ParamError
from core.session import SUFFIX, SessionError
from lab import language
from lab.autosave import Autosave
from lab.talk import presentation
from lab.undo import UndoRecorder
from widgets.kit import theme, zoom
from widgets.kit.jobs import jobs

RECENT_KEY = "recent_sessions"
RECENT_MAX = 8
OPEN_JOB = "session.open"


# ---- a session from the window, and back ---------------------------------------------------
def session_data(window) -> dict:
    """The window's session now: every panel with a state to save, and the look."""
    panels = {key: state for key in window.panel_keys() if (state := window.panel_state_json(key)) is not None}
    rect = window.normalGeometry() if window.isMaximized() or window.isFullScreen() else window.geometry()
    geometry = {"x": rect.x(), "y": rect.y(), "width": max(1, rect.width()), "height": max(1, rect.height()),
                "maximized": window.isMaximized()}
    return core_session.make_session(window.current_key(), geometry, _zoom(),
                                     _theme(), _language(), panels)


def save_session(window, path: str) -> None:
    """Write the window's session to path atomically; SessionError (nothing written) if not."""
    core_session.write_session(path, session_data(window))
    _remember(window, path)


def open_session(window, path: str) -> None:
    """Read, check and apply the session in path, all on this thread (File → Open checks
    on the job runner: SessionController.open_path). SessionError, and nothing changed, if
    the file is not a session this lab can open whole."""
    apply_checked(window, read_and_check(path, panel_models(window)))
    _remember(window, path)


def panel_models(window) -> dict[str, type]:
    """Each panel's state model class: the built panel's own, else core's for its key."""
    classes = core_session.panel_model_classes()
    models = {}
    for key in window.panel_keys():
        state = window.panel_state(key)
        cls = type(state) if state is not None else classes.get(key)
        if cls is not None:
            models[key] = cls
    return models


def read_and_check(path: str, models: dict[str, type]) -> dict:
    """The session in path with every panel's full state, checked in fresh models (pure:
    runs on the job runner). SessionError saying what is wrong."""
    data = core_session.read_session(path)
    data["panels"] = core_session.check_panels(data["panels"], models)
    return data


def apply_checked(window, data: dict) -> None:
    """Apply a session read_and_check returned; its look is checked first (SessionError,
    nothing changed), then nothing can fail."""
    themes = getattr(_theme_module(), "THEMES", None)
    if themes is not None and data["theme"] not in themes:
        raise SessionError(f"theme: got {data['theme']!r}; valid: {', '.join(themes)}")
    recorder = getattr(window, "undo_recorder", None)
    with recorder.paused() if recorder is not None else _nothing():
        _load_all(window, data["panels"])
    _apply_look(window, data)
    _apply_geometry(window, data["window"])
    if data["current_panel"] in window.panel_keys():
        window.show_panel(data["current_panel"])
    if recorder is not None:
        recorder.stack.clear()  # like opening a document: the steps were of another state


def _load_all(window, panels: dict) -> None:
    """Load every panel's checked state. Built panels first: should one still refuse it
    (the dry run said it would not), those loaded before it go back to what they were and
    nothing else changes. Panels not built yet only keep their state for later."""
    built = [key for key in panels if window.is_built(key)]
    done: dict[str, dict] = {}
    try:
        for key in built:
            previous = window.panel_state_json(key)
            window.load_panel_state(key, panels[key])  # a refusal leaves this panel as it was
            done[key] = previous
    except (ParamError, KeyError, TypeError, ValueError) as err:
        for loaded, previous in done.items():
            window.load_panel_state(loaded, previous)
        raise SessionError(f"panels.{key}: {err}") from None
    for key in panels:
        if key not in done:
            window.load_panel_state(key, panels[key])


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return None


def _theme_module():
    return theme


def _theme() -> str:
    current = getattr(_theme_module(), "current_theme", None)
    return current() if current is not None else "light"


def _language() -> str:
    current = getattr(language, "language", None)
    return current() if current is not None else "both"


def _zoom() -> float:
    return zoom.zoom()


def _apply_look(window, data: dict) -> None:
    """Zoom, theme and language through their owners' functions (the user's choice now,
    as if made in the View menu, where the owner offers that)."""
    # Each restyles or retranslates the whole window: only when it changes.
    if abs(zoom.zoom() - data["zoom"]) > 1e-6:
        zoom.set_zoom(data["zoom"])
    if data["theme"] != _theme():
        choose_theme = getattr(presentation, "choose_theme", None)
        if choose_theme is not None:
            choose_theme(window, data["theme"])
        elif hasattr(theme, "set_theme"):
            theme.set_theme(data["theme"])
    choose_language = getattr(language, "choose_language", None)
    if choose_language is not None and data["language"] != _language():
        choose_language(window, data["language"])


def _apply_geometry(window, geometry: dict) -> None:
    """Geometry as saved, moved onto a screen if its own is gone (the size stays: the
    window system fits it to the screen); not in presentation mode."""
    if window.isFullScreen():
        return
    rect = QtCore.QRect(geometry["x"], geometry["y"], geometry["width"], geometry["height"])
    if QtGui.QGuiApplication.screenAt(rect.topLeft() + QtCore.QPoint(40, 20)) is None and window.screen() is not None:
        rect.moveTopLeft(window.screen().availableGeometry().topLeft())
    if geometry.get("maximized"):
        window.showMaximized()
    else:
        if window.isMaximized():
            window.showNormal()
        window.setGeometry(rect)


def _remember(window, path: str) -> None:
    paths = [os.path.abspath(path)] + [p for p in recent_sessions(window) if p != os.path.abspath(path)]
    window.settings.set(RECENT_KEY, json.dumps(paths[:RECENT_MAX]))


def recent_sessions(window) -> list[str]:
    """The sessions saved or opened last, newest first (settings hold them as JSON)."""
    try:
        paths = json.loads(window.settings.get(RECENT_KEY, "[]") or "[]")
    except (TypeError, ValueError):
        return []
    return [p for p in paths if isinstance(p, str)] if isinstance(paths, list) else []


def reset_panel(window) -> None:
    """The panel on screen back to how a new one opens (every card, view and player)."""
    key = window.current_key()
    state = window.panel_state(key)
    if state is not None:
        recorder = getattr(window, "undo_recorder", None)
        with recorder.whole_panel_action() if recorder is not None else _nothing():
            state.reset()
        return
    cls = core_session.panel_model_classes().get(key)
    if cls is not None:
        window.load_panel_state(key, cls().to_json())


# ---- the feature -------------------------------------------------------------------------
def _checked_or_error(path: str, models: dict[str, type]):
    """read_and_check's session, or its SessionError (returned: its message is the point)."""
    try:
        return read_and_check(path, models)
    except SessionError as err:
        return err


class SessionController(QtCore.QObject):
    """Menus, and autosave with crash restore (lab/autosave.py), of one window."""

    opened = QtCore.Signal(str, bool)  # path, whether it was opened (else refused, nothing changed)

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.recorder = window.undo_recorder = UndoRecorder(window)
        window.undo_stack = self.recorder.stack
        self.message_box: QtWidgets.QMessageBox | None = None
        self._build_menus()
        self.autosave = Autosave(window, lambda: session_data(window), self.open_path)

    def _build_menus(self) -> None:
        window, file_menu, edit = self.window, self.window.menus["file"], self.window.menus["edit"]
        self.save_action = _action(window, "Save session…", QtGui.QKeySequence.StandardKey.Save, self.save_dialog)
        # Ctrl+O opens images on Vision (its button): sessions take Ctrl+Shift+O, no ambiguity.
        self.open_action = _action(window, "Open session…", "Ctrl+Shift+O", self.open_dialog)
        file_menu.addAction(self.open_action)
        file_menu.addAction(self.save_action)
        self.recent_menu = file_menu.addMenu("Recent sessions")
        self.recent_menu.aboutToShow.connect(self.fill_recent_menu)
        self.fill_recent_menu()
        stack = self.recorder.stack
        self.undo_action = _action(window, "Undo", "Ctrl+Z", self.recorder.undo)
        self.redo_action = _action(window, "Redo", "Ctrl+Shift+Z", self.recorder.redo)
        for action, word, can, text in ((self.undo_action, "Undo", stack.canUndoChanged, stack.undoTextChanged),
                                        (self.redo_action, "Redo", stack.canRedoChanged, stack.redoTextChanged)):
            action.setEnabled(False)
            can.connect(action.setEnabled)
            text.connect(lambda step, action=action, word=word: action.setText(f"{word} {step}" if step else word))
        # An edit not yet recorded (this turn of the loop) can be undone already.
        self.recorder.pending.connect(lambda waiting: self.undo_action.setEnabled(waiting or stack.canUndo()))
        self.reset_action = _action(window, "Reset panel", "Ctrl+Shift+R", lambda: reset_panel(window))
        self.reset_action.setToolTip("Every card, view option and player of this panel back to the book")
        for action in (self.undo_action, self.redo_action):
            window.addAction(action)  # shortcuts work with the menu bar hidden (F11)
            edit.addAction(action)
        edit.addSeparator()
        edit.addAction(self.reset_action)

    def fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        paths = recent_sessions(self.window)
        for path in paths:
            action = self.recent_menu.addAction(os.path.basename(path))
            action.setToolTip(path)
            action.setData(path)
            action.triggered.connect(lambda _=False, p=path: self.open_path(p))
        if not paths:
            self.recent_menu.addAction("(none yet)").setEnabled(False)

    # ---- user actions ---------------------------------------------------------------------
    def save_dialog(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self.window, "Save session", "session" + SUFFIX,
                                                        f"Load Lab session (*{SUFFIX})")
        if path:
            self.save_path(path if path.endswith(SUFFIX) else path + SUFFIX)

    def open_dialog(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self.window, "Open session", "",
                                                        f"Load Lab session (*{SUFFIX});;JSON (*.json)")
        if path:
            self.open_path(path)

    def save_path(self, path: str) -> bool:
        try:
            save_session(self.window, path)
        except SessionError as err:
            self.report(f"The session was not saved.\n\n{err}")
            return False
        self.window.status.showMessage(f"session saved: {path}", 5000)
        return True

    def open_path(self, path: str) -> None:
        """Open the session in path: read and checked on the job runner (a dry run of every
        panel takes tens of ms), applied here; `opened(path, ok)` follows."""
        models = panel_models(self.window)
        self.window.status.showMessage(f"opening session {path} …")
        jobs().submit(OPEN_JOB, _checked_or_error, path, models, context=self,
                      done=lambda result: self._on_checked(path, result),
                      failed=lambda text: text and self._on_checked(path, SessionError(text.strip().splitlines()[-1])))

    def _on_checked(self, path: str, result) -> None:
        if not isinstance(result, SessionError):
            try:
                apply_checked(self.window, result)
            except SessionError as err:
                result = err
        if isinstance(result, SessionError):
            self.report(f"The session was not opened; nothing changed.\n\n{result}")
            self.opened.emit(path, False)
            return
        _remember(self.window, path)
        self.window.status.showMessage(f"session opened: {path}", 5000)
        self.opened.emit(path, True)

    def report(self, text: str) -> None:
        """Say what went wrong without blocking (a test or a talk keeps running)."""
        self.window.status.showMessage(text.splitlines()[-1], 10_000)
        box = self.message_box = QtWidgets.QMessageBox(QtWidgets.QMessageBox.Icon.Warning, "Session", text,
                                                       QtWidgets.QMessageBox.StandardButton.Ok, self.window)
        box.setWindowModality(QtCore.Qt.WindowModality.NonModal)
        box.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        box.show()


def _action(window, text: str, shortcut, slot) -> QtGui.QAction:
    action = QtGui.QAction(text, window)
    action.setShortcut(QtGui.QKeySequence(shortcut))
    action.triggered.connect(slot)
    return action


def install(window) -> None:
    """Add sessions, undo/redo and reset panel to window's menus; start autosave."""
    window.session = SessionController(window)
