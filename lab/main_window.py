"""The main window: navigation by chapter section on the left, one panel at a time on the
right (built on first visit), a status bar, keyboard shortcuts and an About box."""
from __future__ import annotations

import platform

from PySide6 import QtCore, QtGui, QtWidgets

from lab.settings import Settings
from widgets.panels import PanelInfo, discover_panels
from widgets.timeline_player import TimelinePlayer


class MainWindow(QtWidgets.QMainWindow):
    panel_shown = QtCore.Signal(str)

    def __init__(self, settings: Settings | None = None, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Load Lab · 推理与训练负载")
        self.settings = settings or Settings()
        self._infos: list[PanelInfo] = discover_panels()
        self._panels: dict[str, QtWidgets.QWidget] = {}
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
        self.nav.setStyleSheet(
            "QListWidget { background: #262b33; color: #e8eaed; border: none; font-size: 14px; }"
            "QListWidget::item { padding: 10px 12px; }"
            "QListWidget::item:selected { background: #3b7dd8; color: white; }")
        for i, info in enumerate(self._infos):
            prefix = f"§{info.section}" if info.section[:1].isdigit() else info.section
            chinese, _, english = info.title.partition(" · ")
            item = QtWidgets.QListWidgetItem(f"{prefix}  {chinese}\n{english}" if english else f"{prefix}\n{chinese}")
            item.setData(QtCore.Qt.ItemDataRole.UserRole, info.key)
            item.setToolTip(f"Ctrl+{i + 1}" if i < 9 else "")
            self.nav.addItem(item)
        self.stack = QtWidgets.QStackedWidget()
        splitter = QtWidgets.QSplitter()
        splitter.addWidget(self.nav)
        splitter.addWidget(self.stack)
        splitter.setStretchFactor(1, 1)
        splitter.setChildrenCollapsible(False)
        self.setCentralWidget(splitter)
        self.status = QtWidgets.QStatusBar()
        self.setStatusBar(self.status)
        self.nav.currentRowChanged.connect(self._on_nav_row_changed)
        self.nav.installEventFilter(self)

    def _build_actions(self) -> None:
        menu = self.menuBar()
        view = menu.addMenu("&View")
        for i, info in enumerate(self._infos[:9]):
            action = QtGui.QAction(f"§{info.section} {info.title}", self)
            action.setShortcut(QtGui.QKeySequence(f"Ctrl+{i + 1}"))
            action.triggered.connect(lambda _=False, key=info.key: self.show_panel(key))
            view.addAction(action)
        view.addSeparator()
        self.presentation_action = QtGui.QAction("Presentation mode", self, checkable=True)
        self.presentation_action.setShortcut(QtGui.QKeySequence("F11"))
        self.presentation_action.toggled.connect(self.set_presentation)
        view.addAction(self.presentation_action)
        quit_action = QtGui.QAction("Quit", self)
        quit_action.setShortcut(QtGui.QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        view.addAction(quit_action)
        play = QtGui.QAction("Play / pause", self)
        play.setShortcut(QtGui.QKeySequence(QtCore.Qt.Key.Key_Space))
        play.triggered.connect(self.toggle_playback)
        view.addAction(play)
        help_menu = menu.addMenu("&Help")
        about = QtGui.QAction("About Load Lab", self)
        about.setShortcut(QtGui.QKeySequence("F1"))
        about.triggered.connect(self.show_about)
        help_menu.addAction(about)

    # ---- behaviour -----------------------------------------------------------
    def panel_keys(self) -> list[str]:
        return [info.key for info in self._infos]

    def panel(self, key: str) -> QtWidgets.QWidget:
        """The panel for key, built on first use (start-up stays fast)."""
        if key not in self._panels:
            info = next(i for i in self._infos if i.key == key)
            widget = info.factory()
            self._panels[key] = widget
            self.stack.addWidget(widget)
        return self._panels[key]

    def show_panel(self, key: str) -> None:
        widget = self.panel(key)
        self.stack.setCurrentWidget(widget)
        row = self.panel_keys().index(key)
        if self.nav.currentRow() != row:
            blocker = QtCore.QSignalBlocker(self.nav)
            self.nav.setCurrentRow(row)
            del blocker
        info = self._infos[row]
        self.status.showMessage(f"§{info.section} {info.title} · Ctrl+1…9 switch panels · F11 presentation · F1 about")
        self.settings.set("last_panel", key)
        self.panel_shown.emit(key)

    def _on_nav_row_changed(self, row: int) -> None:
        if 0 <= row < len(self._infos):
            self.show_panel(self._infos[row].key)

    def eventFilter(self, watched, event):  # noqa: N802
        # The list would take Space for selection; here Space means play/pause.
        if (watched is self.nav and event.type() == QtCore.QEvent.Type.ShortcutOverride
                and event.key() == QtCore.Qt.Key.Key_Space):
            event.ignore()
            return True
        return super().eventFilter(watched, event)

    def toggle_playback(self) -> None:
        """Space: play or pause the figure on screen (the player used last, else the first)."""
        players = [p for p in self.stack.currentWidget().findChildren(TimelinePlayer) if p.isVisible()]
        if players:
            max(players, key=lambda p: p.last_used).toggle()

    def set_presentation(self, on: bool) -> None:
        """Bigger type and no navigation: for a speaker driving the lab on a projector."""
        self.nav.setVisible(not on)
        font = self.font()
        font.setPointSizeF(14 if on else QtWidgets.QApplication.font().pointSizeF())
        self.setFont(font)
        if on:
            self.showFullScreen()
        else:
            self.showNormal()

    def about_text(self) -> str:
        import numpy
        import PIL
        import pyqtgraph
        import PySide6

        try:
            import sounddevice

            audio = f"sounddevice {sounddevice.__version__}, PortAudio {sounddevice.get_portaudio_version()[1]}"
        except (ImportError, OSError) as err:
            audio = f"sounddevice unavailable ({err})"
        from lab import __version__

        return (f"<h3>Load Lab {__version__}</h3>"
                "<p>The load that AI serving and training put on machines: AI Infra chapter 3 "
                "(推理与训练负载) as live instruments. Every default comes from the book; values "
                "marked 示意 are illustrative.</p>"
                f"<p>Python {platform.python_version()} · PySide6 {PySide6.__version__} (Qt {QtCore.qVersion()}) · "
                f"pyqtgraph {pyqtgraph.__version__} · numpy {numpy.__version__} · Pillow {PIL.__version__} · {audio}</p>")

    def show_about(self) -> None:
        QtWidgets.QMessageBox.about(self, "About Load Lab", self.about_text())

    def closeEvent(self, event):  # noqa: N802
        for widget in self._panels.values():
            widget.close()
        super().closeEvent(event)
