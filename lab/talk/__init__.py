"""Window feature: talks. A talk file (core.talk) is stepped through scene by scene in the
main window: each scene loads its panel's state (the same load_json a session uses), shows
the panel, scrolls to the scene's card, starts its ▶ if asked, and puts the book's caption
large under the figure with a strip of the scenes.

Keys while a talk is open (the ones presentation clickers send): PageDown / → / Space at
the end of a ▶ next, PageUp / ← previous, Home / End first / last, B or '.' blank, F5 from
scene 1 in presentation mode, Esc leaves presentation mode, Ctrl+R resets the scene as the
file describes it, N shows the notes. They are read before the panel's own shortcuts (a
filter on the focused widget and the talk's windows, lab/talk/keys.py), except that arrows,
Home/End, Space and letters stay with a field being edited.
"""
from __future__ import annotations

import os

from PySide6 import QtCore, QtGui, QtWidgets

from core.registry import ParamError
from core.talk import Scene, Talk, load_talk
from lab.talk.keys import FocusKeys
from lab.talk.presenter import BlankScreen, PresenterView, TalkBar
from widgets.kit import zoom as ui_zoom

Key = QtCore.Qt.Key
_CTRL = QtCore.Qt.KeyboardModifier.ControlModifier
_MODIFIERS = (QtCore.Qt.KeyboardModifier.ControlModifier | QtCore.Qt.KeyboardModifier.AltModifier
              | QtCore.Qt.KeyboardModifier.ShiftModifier | QtCore.Qt.KeyboardModifier.MetaModifier)
# (key, with Ctrl) -> command
KEYS = {
    (Key.Key_PageDown, False): "next", (Key.Key_Right, False): "next",
    (Key.Key_PageUp, False): "previous", (Key.Key_Left, False): "previous",
    (Key.Key_Home, False): "first", (Key.Key_End, False): "last", (Key.Key_Space, False): "space",
    (Key.Key_B, False): "blank", (Key.Key_Period, False): "blank", (Key.Key_F5, False): "start",
    (Key.Key_Escape, False): "escape", (Key.Key_N, False): "notes", (Key.Key_R, True): "reset",
}
# Keys a widget being edited or moved keeps (a caret, a slider, a list, typing).
_EDIT_KEYS = {Key.Key_Right, Key.Key_Left, Key.Key_Home, Key.Key_End, Key.Key_Space,
              Key.Key_B, Key.Key_Period, Key.Key_N}
_EDITORS = (QtWidgets.QLineEdit, QtWidgets.QAbstractSpinBox, QtWidgets.QTextEdit, QtWidgets.QPlainTextEdit,
            QtWidgets.QAbstractSlider, QtWidgets.QComboBox, QtWidgets.QAbstractItemView)
READY_POLL_MS = 5
PREFETCH_DELAY_MS = 400  # after a scene is on screen: its first paint and figures go first


def install(window) -> None:
    """File → Open talk…; window.talk is the open talk's controller (None when none is)."""
    window.talk = None
    action = QtGui.QAction("Open talk…", window)
    action.setToolTip("Step through a talk file's scenes (TOML, see README 'Talks')")
    action.triggered.connect(lambda: _choose_talk(window))
    window.menus["file"].addAction(action)
    window.open_talk_action = action
    close = QtGui.QAction("Close talk", window)
    close.setToolTip("Leave the talk: the keys are the panels' again, the strip goes")
    close.setEnabled(False)
    close.triggered.connect(lambda: window.talk.close() if window.talk is not None else None)
    window.menus["file"].addAction(close)
    window.close_talk_action = close


def probe_image(path: str) -> tuple[int, int, int]:
    """(height, width, file bytes) of an image file, for core.talk (ParamError if unreadable)."""
    from vision.loading import load_image  # lazy: numpy and Pillow, which the window shows without

    image = load_image(path, display_max_side=64)
    return image.height, image.width, image.file_bytes


def read_talk(path: str | os.PathLike) -> Talk:
    return load_talk(path, probe_image)


def apply_scene(window, scene: Scene) -> None:
    """Give the scene's panel the scene's state and show it (a panel not built yet takes
    the state when it is built). The talk's own parts (focus, ▶, zoom) are the controller's."""
    window.load_panel_state(scene.panel, scene.state)
    window.show_panel(scene.panel)


def open_talk(window, talk: Talk, presentation: bool = True, index: int | None = None,
              autoplay: bool = True) -> TalkController:
    """Open talk in window at scene index (default: its first good scene); presentation
    mode if asked. Bad scenes are named in one message box (not modal: the talk goes on).
    autoplay=False leaves every ▶ stopped (a snapshot shows the scene as it opens)."""
    if window.talk is not None:
        window.talk.close()
    controller = window.talk = TalkController(window, talk)
    window.close_talk_action.setEnabled(True)
    controller.autoplay = autoplay
    if presentation:
        window.presentation_action.setChecked(True)
    controller.go(talk.first_good if index is None else index)
    if talk.errors and presentation:
        box = QtWidgets.QMessageBox(QtWidgets.QMessageBox.Icon.Warning, "Talk: scenes skipped",
                                    "\n".join(talk.errors), parent=window)
        box.setObjectName("talk_errors")
        box.open()
    return controller


def _choose_talk(window) -> None:
    path, _ = QtWidgets.QFileDialog.getOpenFileName(window, "Open talk", "", "Talk files (*.toml)")
    if not path:
        return
    try:
        talk = read_talk(path)
    except ParamError as err:
        QtWidgets.QMessageBox.warning(window, "Talk refused", str(err))
        return
    open_talk(window, talk)


class TalkController(QtCore.QObject):
    """Steps window through talk's scenes; `scene_ready(index)` once a scene's panel is on
    screen and ready, scrolled to its card, its ▶ started."""

    scene_ready = QtCore.Signal(int)

    def __init__(self, window, talk: Talk):
        super().__init__(window)
        self.window, self.talk = window, talk
        self.index = -1
        self.autoplay = True  # start a scene's ▶ on entry if it asks
        self._ready_index = -1
        self._audio_started = False
        # Lazy: the panels' card and plot classes (pyqtgraph), loaded with the first talk.
        from lab.talk.scene_page import ScenePage

        self.page = ScenePage(self)  # where the scene sits on its panel's page, its ▶
        self.bar = TalkBar()
        self.bar.strip.set_talk(talk)
        self.bar.strip.chosen.connect(self.go)
        self.toolbar = QtWidgets.QToolBar("Talk")
        self.toolbar.setObjectName("talk_toolbar")
        self.toolbar.setMovable(False)
        self.toolbar.setFloatable(False)
        self.toolbar.addWidget(self.bar)
        window.addToolBar(QtCore.Qt.ToolBarArea.BottomToolBarArea, self.toolbar)
        self.blank = BlankScreen(window)
        self.presenter: PresenterView | None = None
        screens = QtGui.QGuiApplication.screens()
        if len(screens) >= 2:  # the speaker's screen: one the window is not on
            other = next((s for s in screens if s is not window.screen()), screens[1])
            self.presenter = PresenterView()
            self.presenter.setGeometry(other.availableGeometry())
            self.presenter.show()
        self.prefetch = True  # build the next scene's panel once a scene is on screen
        self._prefetch_timer = QtCore.QTimer(self)
        self._prefetch_timer.setSingleShot(True)
        self._prefetch_timer.setInterval(PREFETCH_DELAY_MS)
        self._prefetch_timer.timeout.connect(self._prefetch_next)
        self._poll = QtCore.QTimer(self)
        self._poll.setInterval(READY_POLL_MS)
        self._poll.timeout.connect(self._check_ready)
        self.base_zoom = ui_zoom.zoom()
        window.presentation_action.toggled.connect(self._on_presentation)
        ui_zoom.zoom_notifier().zoom_changed.connect(self._restyle)
        self.keys = FocusKeys(self, lambda: (self.window, self.presenter))  # lab/talk/keys.py

    # ---- stepping -----------------------------------------------------------------
    @property
    def scene(self) -> Scene:
        return self.talk.scenes[self.index]

    def go(self, index: int) -> None:
        """Show scene index (a bad scene is not shown)."""
        if not (0 <= index < len(self.talk.scenes)) or not self.talk.scenes[index].ok:
            return
        panel = self._panel() if self.index >= 0 else None
        if panel is not None:
            self.page.pause_players(panel)
        self.page.release()
        self.page.restore()
        self.blank.set_blank(False)
        self.index = index
        self._prefetch_timer.stop()
        self._ready_index = -1
        self._audio_started = False
        scene = self.scene
        self._apply_zoom(scene)
        apply_scene(self.window, scene)
        self.bar.show_scene(scene)
        self.bar.strip.set_current(index)
        if self.presenter is not None:
            self.presenter.show_scene(self.talk, index)
        self._poll.start()
        self._check_ready()

    def step(self, direction: int) -> None:
        """The next (1) or previous (-1) good scene; nothing past either end."""
        i = self.index + direction
        while 0 <= i < len(self.talk.scenes) and not self.talk.scenes[i].ok:
            i += direction
        self.go(i)

    def first(self) -> None:
        self.go(self.talk.first_good)

    def last(self) -> None:
        self.go(max(i for i, s in enumerate(self.talk.scenes) if s.ok))

    def start(self) -> None:
        """F5: presentation mode from the first scene, the presenter's clock from zero."""
        self.window.presentation_action.setChecked(True)
        if self.presenter is not None:
            self.presenter.restart_clock()
        self.first()

    def reset_scene(self) -> None:
        """Ctrl+R: the scene exactly as the file describes it (state, view, ▶, zoom, image)."""
        self.go(self.index)

    def is_ready(self) -> bool:
        return self._ready_index == self.index

    # ---- blank, notes, space ------------------------------------------------------
    def toggle_blank(self) -> None:
        self.blank.set_blank(not self.blank.isVisible())

    def toggle_notes(self) -> None:
        self.bar.set_notes_shown(not self.bar.notes_shown())

    def space(self) -> None:
        """Play / pause the scene's ▶; at its end (or with none) the next scene."""
        panel = self._panel()
        player = self.page.player(panel, self.scene.autoplay) if panel is not None else None
        if player is not None:
            if player.is_playing() or player.position < player.duration - 1e-9:
                player.toggle()
                return
        elif panel is not None and hasattr(panel, "play") and hasattr(panel, "playing"):
            # Audio plays on its own engine, not a TimelinePlayer: once, then the next scene.
            if panel.playing:
                panel.stop()
                return
            if not self._audio_started:
                self._audio_started = bool(panel.play())
                return
        self.step(1)

    # ---- readiness, focus, autoplay -------------------------------------------------
    def _panel(self):
        key = self.scene.panel if self.index >= 0 else ""
        return self.window.panel(key) if key and self.window.is_built(key) else None

    def _check_ready(self) -> None:
        scene = self.scene
        if self.window.current_key() != scene.panel or not self.window.is_ready(scene.panel):
            return
        panel = self._panel()
        if self.window.stack.currentWidget() is not panel:
            return
        self._poll.stop()
        self.page.show(panel, scene.figure, scene.focus)
        self.page.set_speeds(panel, scene.speeds)
        for text in self.page.set_ranges(panel, scene.ranges):
            self.window.statusBar().showMessage(f"{scene.label}: ranges: no figure titled {text!r} here", 8000)
        if scene.autoplay and self.autoplay:
            self._autoplay(panel, scene.autoplay)
        self._ready_index = self.index
        self.scene_ready.emit(self.index)
        if self.prefetch:
            self._prefetch_timer.start()

    def _prefetch_next(self) -> None:
        """Build the next scene's panel while this one is talked about, so stepping to it
        is a warm switch (panels build a section per event-loop turn)."""
        upcoming = next((s for s in self.talk.scenes[self.index + 1:] if s.ok), None)
        if upcoming is not None and self.is_ready() and not self.window.is_built(upcoming.panel):
            self.window.load_panel_state(upcoming.panel, upcoming.state)
            self.window.panel(upcoming.panel)

    def _autoplay(self, panel, name: str) -> None:
        player = self.page.player(panel, name)
        if player is not None:
            player.play()
        elif hasattr(panel, "play"):
            self._audio_started = bool(panel.play())

    # ---- zoom -----------------------------------------------------------------------
    def _apply_zoom(self, scene: Scene) -> None:
        target = scene.zoom if scene.zoom is not None else self.base_zoom
        if abs(ui_zoom.zoom() - target) > 1e-6:
            ui_zoom.set_zoom(target)

    def _on_presentation(self, _on: bool) -> None:
        """Presentation mode fits the zoom to the screen: scenes without a zoom of their
        own keep that one."""
        self.base_zoom = ui_zoom.zoom()

    def _restyle(self, *_args) -> None:
        self.bar.restyle()

    # ---- keys -----------------------------------------------------------------------
    def command_for(self, event: QtGui.QKeyEvent, target) -> str | None:
        modifiers = event.modifiers() & _MODIFIERS
        if modifiers not in (QtCore.Qt.KeyboardModifier.NoModifier, _CTRL):
            return None
        command = KEYS.get((event.key(), modifiers == _CTRL))
        if command is None:
            return None
        if event.key() in _EDIT_KEYS and isinstance(target, _EDITORS):
            return None
        if command == "escape" and not self.window.presentation_action.isChecked():
            return None  # Esc is the panels' (Audio's stop) outside presentation mode
        return command

    def eventFilter(self, watched, event):
        return self.read_key(watched, event)

    def read_key(self, watched, event) -> bool:
        """True when event (on a widget FocusKeys watches) was a talk's key, now run."""
        kind = event.type()
        if kind not in (QtCore.QEvent.Type.ShortcutOverride, QtCore.QEvent.Type.KeyPress):
            return False
        if not isinstance(watched, QtWidgets.QWidget) or watched.window() not in (self.window, self.presenter):
            return False
        command = self.command_for(event, watched)
        if command is None:
            return False
        event.accept()
        if kind == QtCore.QEvent.Type.KeyPress and not event.isAutoRepeat():
            self.run(command)
        return True

    def run(self, command: str) -> None:
        {"next": lambda: self.step(1), "previous": lambda: self.step(-1), "first": self.first,
         "last": self.last, "space": self.space, "blank": self.toggle_blank, "start": self.start,
         "escape": lambda: self.window.presentation_action.setChecked(False), "notes": self.toggle_notes,
         "reset": self.reset_scene}[command]()

    def close(self) -> None:
        """Leave the talk: keys back to the panels, the bar and presenter gone."""
        self.keys.close()
        self._poll.stop()
        self._prefetch_timer.stop()
        self.page.release()
        self.page.restore()
        self.window.presentation_action.toggled.disconnect(self._on_presentation)
        ui_zoom.zoom_notifier().zoom_changed.disconnect(self._restyle)
        self.window.removeToolBar(self.toolbar)
        self.toolbar.deleteLater()
        self.blank.deleteLater()
        if self.presenter is not None:
            self.presenter.close()
        self.window.talk = None
        self.window.close_talk_action.setEnabled(False)


# ---- `lab snapshot --talk FILE --scene N`: the option's check (lab/app.py renders it) -------

def snapshot_scene(talk_path: str | None, scene: str | None, panel: str | None) -> int:
    """Check `lab snapshot --talk FILE --scene N` (ParamError naming the option); the
    scene's number."""
    if panel is not None:
        raise ParamError("PANEL", f"got {panel!r} with --talk; valid: no PANEL (the scene names it)")
    if not talk_path:
        raise ParamError("--talk", "required with --scene; valid: a talk file (.toml)")
    try:
        talk = read_talk(talk_path)
    except ParamError as err:
        raise ParamError("--talk", err.message) from None
    valid = f"1..{len(talk.scenes)}"
    try:
        number = int(scene) if scene is not None else None
    except ValueError:
        number = None
    if number is None:
        raise ParamError("--scene", f"got {scene!r}; valid: a scene number {valid}")
    chosen = talk.scene(number)  # out of range: names --scene and the valid range
    if not chosen.ok:
        raise ParamError("--scene", f"{chosen.error}; valid: a good scene of {valid}")
    return number
