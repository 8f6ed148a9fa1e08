"""Window feature: talks. A talk file (core.talk) is stepped through scene by scene in the
main window: each scene loads its panel's state (the same load_json a session uses), shows
the panel, scrolls to the scene's card, starts its ▶ if asked, and puts the book's caption
large under the figure with a strip of the scenes.

Keys while a talk is open (the ones presentation clickers send): PageDown / → / Space at
the end of a ▶ next, PageUp / ← previous, Home / End first / last, B or '.' blank, F5 from
scene 1 in presentation mode, Esc leaves presentation mode, Ctrl+R resets the scene as the
file describes it, N shows the notes. They are read before the panel's own shortcuts (an
application event filter), except that arrows, Home/End, Space and letters stay with a
field being edited.
"""
from __future__ import annotations

import os

import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from core.registry import ParamError
from core.talk import Scene, Talk, load_talk
from lab.presenter import BlankScreen, PresenterView, TalkBar
from widgets.timeline_player import TimelinePlayer

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


def install(window) -> None:
    """File → Open talk…; window.talk is the open talk's controller (None when none is)."""
    window.talk = None
    action = QtGui.QAction("Open talk…", window)
    action.setToolTip("Step through a talk file's scenes (TOML, see README 'Talks')")
    action.triggered.connect(lambda: _choose_talk(window))
    window.menus["file"].addAction(action)
    window.open_talk_action = action


def probe_image(path: str) -> tuple[int, int, int]:
    """(height, width, file bytes) of an image file, for core.talk (ParamError if unreadable)."""
    from vision.loading import load_image

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
              autoplay: bool = True) -> "TalkController":
    """Open talk in window at scene index (default: its first good scene); presentation
    mode if asked. Bad scenes are named in one message box (not modal: the talk goes on).
    autoplay=False leaves every ▶ stopped (a snapshot shows the scene as it opens)."""
    if window.talk is not None:
        window.talk.close()
    controller = window.talk = TalkController(window, talk)
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
        self._focused = None  # (scroll area, section) kept at the top while the page settles
        self._focus_value: int | None = None
        self._found: dict[tuple, list] = {}  # (panel, widget kind) -> the panel's widgets of that kind
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
        self._poll = QtCore.QTimer(self)
        self._poll.setInterval(READY_POLL_MS)
        self._poll.timeout.connect(self._check_ready)
        self.base_zoom = _zoom()
        window.presentation_action.toggled.connect(self._on_presentation)
        notifier = _zoom_notifier()
        if notifier is not None:
            notifier.zoom_changed.connect(self._restyle)
        QtWidgets.QApplication.instance().installEventFilter(self)

    # ---- stepping -----------------------------------------------------------------
    @property
    def scene(self) -> Scene:
        return self.talk.scenes[self.index]

    def go(self, index: int) -> None:
        """Show scene index (a bad scene is not shown)."""
        if not (0 <= index < len(self.talk.scenes)) or not self.talk.scenes[index].ok:
            return
        self._pause_players()
        self._unfocus()
        self.blank.set_blank(False)
        self.index = index
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
        player = self._player(panel) if panel is not None else None
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
        if not (scene.figure and self._focus_figure(panel, scene.figure)):
            self._focus(panel, scene.focus)
        if scene.autoplay and self.autoplay:
            self._autoplay(panel, scene.autoplay)
        self._ready_index = self.index
        self.scene_ready.emit(self.index)

    def _focus_figure(self, panel, text: str) -> bool:
        """Scroll the figure whose title holds text to the top; False if none is on view."""
        from widgets.plot_card import PlotCard

        for fresh in (False, True):
            for plot in self._children(panel, PlotCard, fresh):
                if text in plot.title_label.text() and plot.isVisibleTo(panel):
                    return self._scroll_to(plot, plot)
        return False

    def _focus(self, panel, slot: str) -> None:
        """Scroll the page so the section of the scene's card starts at the top."""
        from widgets.calculator_card import CalculatorCard

        model = panel.state.cards.get(slot) if slot else None
        card = None
        for fresh in (False, True) if model is not None else ():
            card = next((c for c in self._children(panel, CalculatorCard, fresh) if c.model is model), None)
            if card is not None:
                break
        if card is None:
            for area in self._children(panel, QtWidgets.QScrollArea):
                if area.isVisibleTo(panel):
                    area.verticalScrollBar().setValue(0)
            return
        area = _ancestor(card, QtWidgets.QScrollArea)
        if area is not None:  # the card with its figure (their column), or the card alone
            self._scroll_to(card, card.parentWidget() if card.parentWidget() is not area.widget() else card)

    def _scroll_to(self, widget, section) -> bool:
        """Keep section at the top of the page widget scrolls in (while the page settles)."""
        area = _ancestor(widget, QtWidgets.QScrollArea)
        if area is None:
            return False
        # The page and its scroll range as they will be drawn (layouts wait for the loop).
        QtWidgets.QApplication.sendPostedEvents(None, QtCore.QEvent.Type.LayoutRequest)
        area.widget().layout().activate()
        self._focused = (area, section)
        area.verticalScrollBar().rangeChanged.connect(self._refocus)  # a page that reflows later
        self._refocus()
        return True

    def _refocus(self, *_range) -> None:
        """Put the focused section at the top again, unless the speaker scrolled away."""
        if self._focused is None:
            return
        area, section = self._focused
        bar = area.verticalScrollBar()
        if self._focus_value is not None and bar.value() != self._focus_value:
            self._unfocus()  # scrolled by hand: leave the page where it is
            return
        top = section.mapTo(area.widget(), QtCore.QPoint(0, 0)).y()
        bar.setValue(max(0, top - 8))
        self._focus_value = bar.value()

    def _unfocus(self) -> None:
        if self._focused is not None and shiboken6.isValid(self._focused[0]):
            self._focused[0].verticalScrollBar().rangeChanged.disconnect(self._refocus)
        self._focused, self._focus_value = None, None

    def _autoplay(self, panel, name: str) -> None:
        player = self._player(panel, name)
        if player is not None:
            player.play()
        elif hasattr(panel, "play"):
            self._audio_started = bool(panel.play())

    def _player(self, panel, name: str = "") -> TimelinePlayer | None:
        """The ▶ of player name (by object or attribute name), else the one used last."""
        players = [p for p in self._children(panel, TimelinePlayer) if p.isVisibleTo(panel)]
        name = name or self.scene.autoplay
        if name:
            for candidate in (f"{name}_player", f"{name.rstrip('s')}_player"):
                found = panel.findChild(TimelinePlayer, candidate) or getattr(panel, candidate, None)
                if isinstance(found, TimelinePlayer):
                    return found
        return max(players, key=lambda p: p.last_used) if players else None

    def _children(self, panel, kind, fresh: bool = False) -> list:
        """panel's widgets of kind, looked up once per built panel (a walk of a whole panel
        costs milliseconds a switch); again when asked fresh (a card not found)."""
        key = (id(panel), kind)
        found = self._found.get(key)
        if fresh or found is None or not all(shiboken6.isValid(w) for w in found):
            found = panel.findChildren(kind)
            if getattr(panel, "is_ready", lambda: True)():  # built whole: nothing more will come
                self._found[key] = found
        return found

    def _pause_players(self) -> None:
        panel = self._panel() if self.index >= 0 else None
        if panel is not None:
            for player in self._children(panel, TimelinePlayer):
                player.pause()

    # ---- zoom -----------------------------------------------------------------------
    def _apply_zoom(self, scene: Scene) -> None:
        target = scene.zoom if scene.zoom is not None else self.base_zoom
        if abs(_zoom() - target) > 1e-6:
            _set_zoom(target)

    def _on_presentation(self, _on: bool) -> None:
        """Presentation mode fits the zoom to the screen: scenes without a zoom of their
        own keep that one."""
        self.base_zoom = _zoom()

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

    def eventFilter(self, watched, event):  # noqa: N802
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
        QtWidgets.QApplication.instance().removeEventFilter(self)
        self._poll.stop()
        self._unfocus()
        self.window.presentation_action.toggled.disconnect(self._on_presentation)
        notifier = _zoom_notifier()
        if notifier is not None:
            notifier.zoom_changed.disconnect(self._restyle)
        self.window.removeToolBar(self.toolbar)
        self.toolbar.deleteLater()
        self.blank.deleteLater()
        if self.presenter is not None:
            self.presenter.close()
        self.window.talk = None


def _ancestor(widget, kind):
    while widget is not None and not isinstance(widget, kind):
        widget = widget.parentWidget()
    return widget


def _zoom() -> float:
    try:
        from widgets.zoom import zoom
    except ImportError:
        return 1.0
    return zoom()


def _set_zoom(factor: float) -> None:
    try:
        from widgets.zoom import set_zoom
    except ImportError:
        return
    set_zoom(factor)


def _zoom_notifier():
    try:
        from widgets.zoom import zoom_notifier
    except ImportError:
        return None
    return zoom_notifier()


# ---- entry points: `lab talk FILE` and `lab snapshot --talk FILE --scene N` ---------------

def run_talk(path: str) -> int:
    """The window in presentation mode at the talk's first good scene (ParamError, before
    any window, if the file is refused)."""
    from lab import excepthook
    from lab.app import start_window

    talk = read_talk(path)
    app, window = start_window()
    excepthook.install(parent=window)
    open_talk(window, talk)
    try:
        return app.exec()
    finally:
        excepthook.uninstall()


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


def scene_window(talk_path: str, number: int):
    """A main window showing scene number of the talk as presentation mode shows it (no
    navigation, menu or status bar; the bar under the figure), at the window's own size.
    Returns (window, controller); controller.is_ready() once the scene is on screen."""
    from lab.main_window import MainWindow

    talk = read_talk(talk_path)
    window = MainWindow()
    for chrome in (window.nav, window.menuBar(), window.statusBar()):
        chrome.hide()
    return window, open_talk(window, talk, presentation=False, index=number - 1, autoplay=False)
