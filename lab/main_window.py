"""The main window: navigation by chapter section on the left, one panel at a time on the
right, a status bar, keyboard shortcuts and an About box.

The window shows first: a panel not built yet is shown as a "loading §x …" page, and the
panel (with its module, pyqtgraph and numpy on the first visit) is built once that page has
been painted, so the window and a click answer at once. The window itself needs neither
pyqtgraph nor numpy nor any panel's module.
The status bar shows the jobs that run, with cancel.
"""
from __future__ import annotations

import importlib
import platform
import time

import PySide6
from PySide6 import QtCore, QtGui, QtWidgets

from lab import __version__
from lab.settings import Settings
from widgets.kit.field_wheel import install_field_wheel_filter
from widgets.kit.jobs import BusyBadge, jobs
from widgets.kit.lifetime import owned
from widgets.kit.panels import LazyFactory, PanelInfo, discover_panels
from widgets.kit.theme import setup_pyqtgraph
from widgets.kit.timeline_player import TimelinePlayer

# Window features, each a module with install(window) that adds its actions and keys:
# zoom and presentation, sessions/undo/reset, talks, export, language.
FEATURES = ("lab.talk.presentation", "lab.session", "lab.talk", "lab.export", "lab.language")


class LoadingPage(QtWidgets.QWidget):
    """Stands in for a panel until it is built; `painted` tells the window it is on screen."""

    painted = QtCore.Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("page")
        layout = QtWidgets.QVBoxLayout(self)
        self.label = QtWidgets.QLabel()
        self.label.setProperty("role", "caption")
        self.label.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.label)

    def set_text(self, text: str) -> None:
        self.label.setText(text)

    def paintEvent(self, event):
        super().paintEvent(event)
        self.painted.emit()


class MainWindow(QtWidgets.QMainWindow):
    panel_shown = QtCore.Signal(str)  # a panel is on screen (built)
    panel_built = QtCore.Signal(str)  # a panel's widgets exist (features style/translate it)

    BUILD_FALLBACK_MS = 1000  # build even if the loading page is never painted (hidden window)
    WARM_POLL_MS = 50
    WARM_WAIT_S = 5.0  # the warm-up starts after this even if the first panel is not ready yet

    def __init__(self, settings: Settings | None = None, parent=None):
        super().__init__(parent)
        install_field_wheel_filter()  # the wheel over a field scrolls the page, keeps its value
        self._warmed = False
        self.setWindowTitle("Load Lab · 推理与训练负载")
        self.settings = settings or Settings()
        self._infos: list[PanelInfo] = discover_panels()
        self._panels: dict[str, QtWidgets.QWidget] = {}
        self._pending: str | None = None  # the key shown as "loading …", built next
        self._waiting_states: dict[str, dict] = {}  # state JSON for panels not built yet
        self._closed = False
        self._build_ui()
        self._build_actions()
        start = self.settings.get("last_panel", self._infos[0].key if self._infos else "")
        self.show_panel(start if start in self.panel_keys() else self._infos[0].key)

    # ---- construction -------------------------------------------------------
    def _build_ui(self) -> None:
        self.nav = QtWidgets.QListWidget()
        self.nav.setObjectName("navigation")
        self.nav.setFixedWidth(250)
        self.nav.setWordWrap(True)
        self.nav.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        for i, info in enumerate(self._infos):
            chinese, _, english = info.title.partition(" · ")
            prefix = _section(info)
            item = QtWidgets.QListWidgetItem(f"{prefix}  {chinese}\n{english}" if english else f"{prefix}\n{chinese}")
            item.setData(QtCore.Qt.ItemDataRole.UserRole, info.key)
            item.setToolTip(_panel_shortcut(i))
            self.nav.addItem(item)
        self.stack = QtWidgets.QStackedWidget()
        self.loading = LoadingPage()
        self.stack.addWidget(self.loading)
        splitter = QtWidgets.QSplitter()
        splitter.addWidget(self.nav)
        splitter.addWidget(self.stack)
        splitter.setStretchFactor(1, 1)
        splitter.setChildrenCollapsible(False)
        self.setCentralWidget(splitter)
        self.status = QtWidgets.QStatusBar()
        self.setStatusBar(self.status)
        self.job_status = BusyBadge(owner=self)  # every running job, named, with cancel
        self.status.addPermanentWidget(self.job_status)
        self._build_timer = QtCore.QTimer(self)
        self._build_timer.setSingleShot(True)
        self._build_timer.setInterval(self.BUILD_FALLBACK_MS)
        self._build_timer.timeout.connect(self._build_pending)
        self._warm_timer = QtCore.QTimer(self)  # polls for the first panel's figures, then warms up
        self._warm_timer.setInterval(self.WARM_POLL_MS)
        self._warm_timer.timeout.connect(self._warm_up_when_ready)
        self._warm_since = None
        self.loading.painted.connect(self._on_loading_painted)
        self.nav.currentRowChanged.connect(self._on_nav_row_changed)
        self.nav.installEventFilter(self)

    def _build_actions(self) -> None:
        menu = self.menuBar()
        # Features add their actions to these menus in their own modules (install(window)).
        self.menus = {"file": menu.addMenu("&File"), "edit": menu.addMenu("&Edit")}
        view = self.menus["view"] = menu.addMenu("&View")
        for i, info in enumerate(self._infos):
            action = QtGui.QAction(f"{_section(info)} {info.title}", self)
            action.setShortcut(QtGui.QKeySequence(_panel_shortcut(i)))
            action.triggered.connect(lambda _=False, key=info.key: self.show_panel(key))
            view.addAction(action)
            self.addAction(action)  # the shortcut works with the menu bar hidden (F11)
        view.addSeparator()
        quit_action = QtGui.QAction("Quit", self)
        quit_action.setShortcut(QtGui.QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        view.addAction(quit_action)
        self.addAction(quit_action)
        help_menu = self.menus["help"] = menu.addMenu("&Help")
        about = QtGui.QAction("About Load Lab", self)
        about.setShortcut(QtGui.QKeySequence("F1"))
        about.triggered.connect(self.show_about)
        help_menu.addAction(about)
        self.addAction(about)
        for feature in FEATURES:
            importlib.import_module(feature).install(self)

    # ---- behaviour -----------------------------------------------------------
    def panel_keys(self) -> list[str]:
        return [info.key for info in self._infos]

    def info(self, key: str) -> PanelInfo:
        return self._infos[self.panel_keys().index(key)]

    def is_built(self, key: str) -> bool:
        return key in self._panels

    def is_ready(self, key: str) -> bool:
        """key's panel is built, and says it is ready if it can (its sections and first
        figures are in): what a snapshot, a test or a benchmark waits for."""
        return key in self._panels and getattr(self._panels[key], "is_ready", lambda: True)()

    def current_key(self) -> str:
        """The panel the user chose (shown, or loading)."""
        row = self.nav.currentRow()
        return self._infos[row].key if 0 <= row < len(self._infos) else ""

    def panel(self, key: str) -> QtWidgets.QWidget:
        """The panel for key, built now if it was not yet (the one loading goes on screen)."""
        if key not in self._panels:
            setup_pyqtgraph()  # the first panel loads the plot library, not the window
            widget = self.info(key).factory()
            waiting = self._waiting_states.pop(key, None)
            if waiting is not None and getattr(widget, "state", None) is not None:
                widget.state.load_json(waiting)
            self._panels[key] = widget
            self.panel_built.emit(key)
            self.stack.addWidget(widget)
            owned(widget)  # deleted with the window, not by its close
            if key == self._pending:
                self._pending = None
                self._build_timer.stop()
                self._present(key)
        return self._panels[key]

    def panel_state(self, key: str):
        """key's state model if its panel is built, else None."""
        widget = self._panels.get(key)
        return getattr(widget, "state", None)

    def panel_state_json(self, key: str) -> dict | None:
        """key's state as JSON: the built panel's, or the state waiting for its build."""
        state = self.panel_state(key)
        return state.to_json() if state is not None else self._waiting_states.get(key)

    def load_panel_state(self, key: str, data: dict) -> None:
        """Give key's panel this state (PanelModel JSON). A panel not built yet takes it
        when it is built; a built one now (load_json checks all before changing anything)."""
        state = self.panel_state(key)
        if state is not None:
            state.load_json(data)
        else:
            self._waiting_states[key] = data

    def show_panel(self, key: str) -> None:
        """Show key's panel; one not built yet shows a loading page first and is built as
        soon as that page is on screen."""
        row = self.panel_keys().index(key)
        if self.nav.currentRow() != row:
            blocker = QtCore.QSignalBlocker(self.nav)
            self.nav.setCurrentRow(row)
            del blocker
        info = self._infos[row]
        self.status.showMessage(f"{_section(info)} {info.title} · {self.switch_keys_text()} switch panels · "
                                "F11 presentation · Ctrl+= / Ctrl+- zoom")
        self.settings.set("last_panel", key)
        if key in self._panels:
            self._pending = None
            self._build_timer.stop()
            self._present(key)
            return
        self._pending = key
        self.loading.set_text(f"loading {_section(info)} {info.title} …")
        self.stack.setCurrentWidget(self.loading)
        self.loading.update()
        self._build_timer.start()

    def _present(self, key: str) -> None:
        self.stack.setCurrentWidget(self._panels[key])
        self.panel_shown.emit(key)
        if not self._warmed:
            # While the user reads the first panel, the other panels' modules load off the
            # GUI thread, so a first visit pays only for building its widgets. Once that
            # panel has its first figures: importing beside it, the job held the GIL against
            # its build and took a core from its figures (a talk's first scene waited).
            self._warmed = True
            self._warm_timer.start()

    def _warm_up_when_ready(self) -> None:
        now = time.monotonic()
        self._warm_since = self._warm_since or now
        if self._closed:
            self._warm_timer.stop()
            return
        if not self.is_ready(self.current_key()) and now - self._warm_since < self.WARM_WAIT_S:
            return
        self._warm_timer.stop()
        jobs().submit("warm-up", import_panel_modules, [info.factory for info in self._infos])

    def _on_loading_painted(self) -> None:
        if self._pending is not None:
            QtCore.QTimer.singleShot(0, self, self._build_pending)  # after the frame is out

    def _build_pending(self) -> None:
        key = self._pending
        self._build_timer.stop()
        if key is None or self._closed or key in self._panels:
            return
        self.panel(key)  # puts the pending panel on screen

    def _on_nav_row_changed(self, row: int) -> None:
        if 0 <= row < len(self._infos):
            self.show_panel(self._infos[row].key)

    def eventFilter(self, watched, event):
        # The list would take Space for selection; here Space means play/pause.
        if (watched is self.nav and event.type() == QtCore.QEvent.Type.ShortcutOverride
                and event.key() == QtCore.Qt.Key.Key_Space):
            event.ignore()
            return True
        return super().eventFilter(watched, event)

    def switch_keys_text(self) -> str:
        """The keys that switch panels, as the status bar says them: Ctrl+1…8 for 8 panels."""
        count = len(self._infos)
        if count <= 9:
            return f"Ctrl+1…{count}" if count > 1 else "Ctrl+1"
        return f"Ctrl+1…9, Alt+1…{count - 9}" if count > 10 else "Ctrl+1…9, Alt+1"  # not "Alt+1…1"

    def toggle_playback(self) -> None:
        """Space: play or pause the figure on screen (the player used last, else the first)."""
        players = [p for p in self.stack.currentWidget().findChildren(TimelinePlayer) if p.isVisible()]
        if players:
            max(players, key=lambda p: p.last_used).toggle()

    def about_text(self) -> str:
        # Lazy: the About box alone names these versions; numpy, Pillow and pyqtgraph are slow
        # to load, and the sound device probe opens PortAudio.
        import numpy
        import PIL
        import pyqtgraph

        from audio.sinks import import_sounddevice

        sounddevice, reason = import_sounddevice()
        audio = (f"sounddevice {sounddevice.__version__}, PortAudio {sounddevice.get_portaudio_version()[1]}"
                 if sounddevice is not None else f"sounddevice unavailable ({reason})")
        return (f"<h3>Load Lab {__version__}</h3>"
                "<p>The load that AI serving and training put on machines: AI Infra chapter 3 "
                "(推理与训练负载) as live instruments. Every default comes from the book; values "
                "marked 示意 are illustrative.</p>"
                f"<p>Python {platform.python_version()} · PySide6 {PySide6.__version__} (Qt {QtCore.qVersion()}) · "
                f"pyqtgraph {pyqtgraph.__version__} · numpy {numpy.__version__} · Pillow {PIL.__version__} · {audio}</p>")

    def show_about(self) -> None:
        QtWidgets.QMessageBox.about(self, "About Load Lab", self.about_text())

    def closeEvent(self, event):
        """Cancel every job (their results are dropped), then close the panels; a job that
        does not stop is waited for briefly, never for good."""
        self._closed = True
        self._pending = None
        self.settings.set("window/geometry", self.saveGeometry())  # lab.app.place_window restores it
        self._build_timer.stop()
        self._warm_timer.stop()
        self.job_status.detach()
        jobs().shutdown()
        for widget in self._panels.values():
            widget.close()
        super().closeEvent(event)


def import_panel_modules(factories: list) -> None:
    """Import every panel's module (a job: the imports hold nothing the GUI waits on), and
    run its warm_up() where it has one (work a first visit would do on the GUI thread)."""
    for factory in factories:
        if isinstance(factory, LazyFactory):
            factory.load()
            warm_up = getattr(importlib.import_module(factory.module), "warm_up", None)
            if callable(warm_up):
                warm_up()


def _panel_shortcut(index: int) -> str:
    """Ctrl+1…9 for the first nine panels, Alt+1… after (Ctrl+0 is the zoom's reset)."""
    return f"Ctrl+{index + 1}" if index < 9 else f"Alt+{index - 8}"


def _section(info: PanelInfo) -> str:
    return f"§{info.section}" if info.section[:1].isdigit() else info.section
