"""Window feature: zoom, presentation mode and themes (install(window) adds their actions).

- One zoom for the whole UI (widgets.kit.zoom): Ctrl+= / Ctrl+- / Ctrl+0 at any time, the
  status bar says the zoom, the zoom is saved in the settings. Plots follow it: the panel
  on screen at once, the others when they are next shown (a zoom step stays quick however
  many panels were built).
- Presentation mode (F11): the zoom fits the screen with no text smaller than
  widgets.kit.zoom.PRESENTATION_MIN_PX (a projector's 1280x720 too), menu bar, status
  bar and navigation go, the figure owns the screen; Esc or F11 leave it and put the zoom
  and the bars back.
- Themes (View -> Theme): light, dark, high contrast (widgets.kit.theme), saved in the settings;
  plots already drawn take the new colours the same way they take a zoom.
- The keyboard model (lab.keyboard): panel keys without a click, the wheel scrolls pages.
"""
from __future__ import annotations

import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from core.registry import ParamError
from lab import keyboard
from widgets.kit import theme, zoom
from widgets.kit.turns import InTurns

ZOOM_SETTING = "zoom"
THEME_SETTING = "theme"
THEME_NAMES = {"light": "Light", "dark": "Dark", "high-contrast": "High contrast"}
NAV_WIDTH = 250  # the navigation's width at zoom 1 (px)
RESTYLE_CHUNK = 200  # widgets whose fonts one turn of the event loop sets (see _restyle_in_turns)
READY_POLL_MS = 100  # how often a panel still building is checked, to zoom its late plots
_forced: dict = {}  # theme / zoom given to `lab snapshot`: windows made then use them, unsaved


def install(window) -> None:
    window.presentation = Presentation(window)
    keyboard.install(window)


class Presentation(QtCore.QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self._normal_zoom: float | None = None  # the zoom to return to when F11 ends
        self._was_maximized = False
        self._styled: dict[str, tuple[float, str]] = {}  # panel key -> (zoom, theme) its plots have
        self._waiting: set[str] = set()  # shown panels still building (late plots to zoom)
        self._complete: set[str] = set()  # panels walked since they were ready (all built)
        self._in_turns: dict[str, InTurns] = {}  # ready panels being walked a part per turn
        self._poll = QtCore.QTimer(self)
        self._poll.setInterval(READY_POLL_MS)
        self._poll.timeout.connect(self._restyle_ready)
        self._build_actions()
        window.nav.setProperty("role", "nav")  # its text size (widgets.kit.theme.ROLE_POINTS)
        theme.style_root(window)
        self.zoom_label = QtWidgets.QLabel()
        self.zoom_label.setToolTip("Zoom: Ctrl+= larger, Ctrl+- smaller, Ctrl+0 actual size; F11 presentation mode")
        window.status.addPermanentWidget(self.zoom_label)
        saved_theme = _forced.get("theme") or str(window.settings.get(THEME_SETTING, "light"))
        theme.set_theme(saved_theme if saved_theme in theme.THEMES else "light")
        self.theme_actions[theme.current_theme()].setChecked(True)
        zoom.set_zoom(_forced.get("zoom") or _saved_zoom(window.settings.get(ZOOM_SETTING, 1.0)))
        self._on_zoom_changed(zoom.zoom(), save=False)
        zoom.zoom_notifier().zoom_changed.connect(self._on_zoom_changed)
        zoom.zoom_notifier().theme_changed.connect(self._on_theme_changed)
        window.panel_built.connect(self._on_panel_built)
        window.panel_shown.connect(self._on_panel_shown)

    # ---- actions ----------------------------------------------------------------------
    def _build_actions(self) -> None:
        w, view = self.window, self.window.menus["view"]
        view.addSeparator()
        w.presentation_action = self._action("Presentation mode", "F11", checkable=True)
        w.presentation_action.toggled.connect(self.set_presentation)
        self.leave_action = self._action("Leave presentation mode", "Esc", self.leave)
        self.leave_action.setEnabled(False)  # Esc is the panels' (Audio: stop) outside F11
        self.zoom_in_action = self._action("Zoom in", QtGui.QKeySequence.StandardKey.ZoomIn, lambda: zoom.step_zoom(1))
        self.zoom_in_action.setShortcuts([QtGui.QKeySequence("Ctrl+="), QtGui.QKeySequence("Ctrl++")])
        self.zoom_out_action = self._action("Zoom out", "Ctrl+-", lambda: zoom.step_zoom(-1))
        self.zoom_reset_action = self._action("Actual size", "Ctrl+0", lambda: zoom.set_zoom(1.0))
        for action in (w.presentation_action, self.zoom_in_action, self.zoom_out_action, self.zoom_reset_action):
            view.addAction(action)
        menu = view.addMenu("Theme")
        group = QtGui.QActionGroup(w)
        self.theme_actions = {}
        for name, text in THEME_NAMES.items():
            action = QtGui.QAction(text, w, checkable=True)
            action.triggered.connect(lambda _=False, name=name: self.choose_theme(name))
            group.addAction(action)
            menu.addAction(action)
            self.theme_actions[name] = action

    def _action(self, text: str, shortcut, slot=None, checkable: bool = False) -> QtGui.QAction:
        action = QtGui.QAction(text, self.window, checkable=checkable)
        action.setShortcut(QtGui.QKeySequence(shortcut))
        if slot is not None:
            action.triggered.connect(slot)
        self.window.addAction(action)  # the shortcut works with the menu bar hidden
        return action

    # ---- zoom ------------------------------------------------------------------------
    def _on_zoom_changed(self, factor: float, save: bool = True) -> None:
        w = self.window
        w.nav.setFixedWidth(round(NAV_WIDTH * min(factor, 1.3)))
        if save and not self.presenting() and not _forced:
            w.settings.set(ZOOM_SETTING, factor)
        self.zoom_label.setText(f"zoom {factor * 100:.0f} %")
        self._restyle_current(fonts=False)  # set_zoom has set every font already

    def _on_panel_built(self, key: str) -> None:
        self._styled[key] = (None, theme.current_theme())  # built in today's colours
        self._restyle_panel(key)

    def _on_panel_shown(self, key: str) -> None:
        if key in self._complete:
            self._restyle_panel(key)
        else:
            self._waiting.add(key)  # its sections may still come: walked again once ready
            self._restyle_ready()
            if self._waiting:
                self._poll.start()

    def _restyle_ready(self) -> None:
        for key in list(self._waiting):
            walk = self._in_turns.get(key)
            if walk is not None and shiboken6.isValid(walk) and not walk.stopped:
                continue  # being walked (a walk freed with its panel starts again on the new one)
            if self.window.is_ready(key):
                self._styled[key] = (None, self._styled.get(key, (None, theme.current_theme()))[1])
                self._restyle_in_turns(key)
            else:
                self._restyle_panel(key)
        if not self._waiting:
            self._poll.stop()

    def _restyle_in_turns(self, key: str) -> None:
        """The whole panel once it is ready (its late sections too), RESTYLE_CHUNK widgets
        and then one plot per turn of the event loop: in one go, Serving's page held the
        window for a third of a second at the end of a first visit. The panel stays in
        _waiting until the last piece."""
        from widgets.kit.plot_zoom import recolor_plots, scale_plots, views  # lazy: pyqtgraph

        panel = self.window.panel(key)
        want = (zoom.zoom(), theme.current_theme())
        have = self._styled[key]
        steps = []
        if have[1] != want[1]:
            steps.append(lambda: recolor_plots(panel, have[1], want[1]))
        widgets = [panel, *panel.findChildren(QtWidgets.QWidget)]
        steps += [lambda part=widgets[i:i + RESTYLE_CHUNK]: theme.set_fonts(part)
                  for i in range(0, len(widgets), RESTYLE_CHUNK)]
        steps += [lambda view=view: shiboken6.isValid(view) and scale_plots(view, want[0]) for view in views(panel)]

        def done() -> None:
            self._in_turns.pop(key, None)
            self._waiting.discard(key)
            self._complete.add(key)
            self._styled[key] = want
            self._restyle_panel(key)  # a zoom or theme that changed meanwhile: the rest in one go

        self._in_turns[key] = InTurns(panel, steps, then=done)

    def _restyle_current(self, fonts: bool = True) -> None:
        key = self.window.current_key()
        if self.window.is_built(key):
            self._restyle_panel(key, fonts)

    def _restyle_panel(self, key: str, fonts: bool = True) -> None:
        """Bring key's plots to the current zoom and theme (nothing to do if they are)."""
        if self.window.is_built(key):
            self.window.wheel_guard.watch(self.window.panel(key))
        want = (zoom.zoom(), theme.current_theme())
        have = self._styled.get(key, (None, want[1]))
        if have == want or not self.window.is_built(key):
            return
        from widgets.kit.plot_zoom import recolor_plots  # lazy: pyqtgraph, loaded with the first plot

        panel = self.window.panel(key)
        if have[1] != want[1]:
            recolor_plots(panel, have[1], want[1])
        if fonts:
            theme.apply_fonts(panel)  # labels made since the last zoom: their role's size
        zoom.apply_plot_zoom(panel)
        self._styled[key] = want

    # ---- presentation mode ------------------------------------------------------------
    def presenting(self) -> bool:
        return self.window.presentation_action.isChecked()

    def set_presentation(self, on: bool) -> None:
        """F11: the figure owns the screen at a zoom that fits it; off: as it was before."""
        w = self.window
        for bar in (w.menuBar(), w.statusBar(), w.nav):
            bar.setVisible(not on)
        self.leave_action.setEnabled(on)
        if on:
            self._normal_zoom = zoom.zoom()
            self._was_maximized = w.isMaximized()
            zoom.set_zoom(zoom.screen_presentation_zoom(w))  # fills the screen, text legible
            w.showFullScreen()
        else:
            if self._normal_zoom is not None:
                zoom.set_zoom(self._normal_zoom)
            self._normal_zoom = None
            if self._was_maximized:
                w.showMaximized()
            else:
                w.showNormal()

    def leave(self) -> None:
        self.window.presentation_action.setChecked(False)

    # ---- themes -----------------------------------------------------------------------
    def choose_theme(self, name: str) -> None:
        """The user's choice: every colour now (plots on other panels when shown), saved."""
        theme.set_theme(name)
        self.window.settings.set(THEME_SETTING, name)

    def _on_theme_changed(self, name: str) -> None:
        """Any set_theme (the menu, a session, a talk): the menu and the plots follow."""
        self.theme_actions[name].setChecked(True)
        self._restyle_current()


def snapshot_zoom(text: str | None) -> float | None:
    """`lab snapshot --zoom Z`: Z as a number in 0.5..3, else ParamError naming --zoom."""
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        raise ParamError("--zoom", f"must be a number from {zoom.MIN_ZOOM:g} to {zoom.MAX_ZOOM:g}, not {text!r}") from None
    if not zoom.MIN_ZOOM <= value <= zoom.MAX_ZOOM:
        raise ParamError("--zoom", f"must be from {zoom.MIN_ZOOM:g} to {zoom.MAX_ZOOM:g} (1 = actual size), not {text}")
    return value


def apply_look(theme_name: str | None, factor: float | None) -> None:
    """Theme and zoom for what is built next (`lab snapshot`): colours, style sheet, fonts;
    a window made after this keeps them (not the user's saved ones, which stay as they are)."""
    _forced.update({key: value for key, value in (("theme", theme_name), ("zoom", factor)) if value is not None})
    if theme_name is not None:
        theme.set_theme(theme_name)
    if factor is not None:
        zoom.set_zoom(factor)


def forget_look() -> None:
    """After a snapshot: windows made next take the user's saved theme and zoom again."""
    _forced.clear()


def _saved_zoom(value) -> float:
    try:
        return zoom.clamp_zoom(float(value))
    except (TypeError, ValueError):
        return 1.0
