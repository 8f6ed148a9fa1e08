"""What a talk shows besides the panel: the bar under the figure (the scene's annotation,
large; the notes when toggled; the scene strip), the blank screen, and the presenter view
for a second screen (current scene, next scene, notes, a clock).

These are views: lab.talk's controller tells them which scene is on; they hold no state of
the talk and step nothing themselves (a click on the strip asks through `chosen`).
"""
from __future__ import annotations

import time

from PySide6 import QtCore, QtGui, QtWidgets

from core.talk import Scene, Talk
from widgets.kit.theme import COLORS
from widgets.kit.zoom import zoom

ANNOTATION_PT = 20  # the caption a room reads, at zoom 1
NOTES_PT = 13
STRIP_PT = 10


def _zoom() -> float:
    return zoom()


def _label(name: str) -> QtWidgets.QLabel:
    """A word-wrapped label with an object name (tests and style sheets find it by it)."""
    label = QtWidgets.QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    return label


def _ink(kind: str, fallback: str) -> str:
    return COLORS.get(kind, fallback)


class SceneStrip(QtWidgets.QWidget):
    """The scenes as a row of numbered dots (just dots when the row is narrow): the current
    one filled, bad ones red and struck (their message in the tooltip), then "3 / 31 · title".
    Painted, so it never asks the window for width; a click asks for a scene (`chosen`)."""

    chosen = QtCore.Signal(int)  # scene index

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("scene_strip")
        self.setMouseTracking(True)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed)
        self._talk: Talk | None = None
        self._current = -1

    def set_talk(self, talk: Talk) -> None:
        self._talk = talk
        self.restyle()

    def set_current(self, index: int) -> None:
        self._current = index
        self.update()

    def label_text(self) -> str:
        if self._talk is None or not 0 <= self._current < len(self._talk.scenes):
            return ""
        scene = self._talk.scenes[self._current]
        return f"{scene.number} / {len(self._talk.scenes)} · {scene.title or scene.panel}"

    def restyle(self) -> None:
        font = self.font()
        font.setPointSizeF(STRIP_PT * _zoom())
        self.setFont(font)
        self.setFixedHeight(int(QtGui.QFontMetricsF(font).height() * 1.9))
        self.update()

    def _geometry(self) -> tuple[float, float, float]:
        """(left of the dots, step between dot centres, dot diameter)."""
        count = len(self._talk.scenes) if self._talk else 0
        label_w = QtGui.QFontMetricsF(self.font()).horizontalAdvance(self.label_text()) + 24
        room = max(self.width() - label_w, 1.0)
        step = min(self.height() * 1.15, room / max(count, 1))
        return 0.0, step, min(self.height() * 0.9, step * 0.85)

    def index_at(self, x: float) -> int:
        left, step, _ = self._geometry()
        index = int((x - left) // step)
        return index if self._talk and 0 <= index < len(self._talk.scenes) else -1

    def paintEvent(self, event):
        if self._talk is None:
            return
        painter = QtGui.QPainter(self)
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        left, step, diameter = self._geometry()
        metrics = QtGui.QFontMetricsF(self.font())
        numbers = diameter >= metrics.horizontalAdvance("88") + 2
        mid = self.height() / 2
        accent, ink, muted, bad = (QtGui.QColor(_ink(k, f)) for k, f in (
            ("nav_selected", "#3b7dd8"), ("ink", "#222831"), ("muted", "#5f6873"), ("error", "#c62828")))
        for i, scene in enumerate(self._talk.scenes):
            centre = QtCore.QPointF(left + step * (i + 0.5), mid)
            box = QtCore.QRectF(centre.x() - diameter / 2, mid - diameter / 2, diameter, diameter)
            size = diameter if numbers else diameter * 0.45
            dot = QtCore.QRectF(centre.x() - size / 2, mid - size / 2, size, size)
            colour = accent if i == self._current else bad if not scene.ok else muted
            painter.setPen(QtGui.QPen(colour, 1.2))
            painter.setBrush(colour if i == self._current or not numbers else QtCore.Qt.BrushStyle.NoBrush)
            painter.drawEllipse(dot)
            if numbers:
                painter.setPen(QtGui.QColor("white") if i == self._current else colour)
                painter.drawText(box, QtCore.Qt.AlignmentFlag.AlignCenter, str(scene.number))
            if not scene.ok:
                painter.setPen(QtGui.QPen(bad, 1.5))
                painter.drawLine(dot.bottomLeft(), dot.topRight())
        painter.setPen(ink)
        text_left = left + step * len(self._talk.scenes) + 12
        painter.drawText(QtCore.QRectF(text_left, 0, self.width() - text_left, self.height()),
                         QtCore.Qt.AlignmentFlag.AlignVCenter | QtCore.Qt.AlignmentFlag.AlignLeft, self.label_text())

    def mousePressEvent(self, event):
        index = self.index_at(event.position().x())
        if index >= 0 and self._talk.scenes[index].ok:
            self.chosen.emit(index)

    def event(self, event):
        if event.type() == QtCore.QEvent.Type.ToolTip and self._talk is not None:
            index = self.index_at(event.position().x() if hasattr(event, "position") else event.pos().x())
            if index >= 0:
                scene = self._talk.scenes[index]
                text = scene.error or f"{scene.number} · {scene.title or scene.panel}"
                QtWidgets.QToolTip.showText(event.globalPos(), text, self)
            else:
                QtWidgets.QToolTip.hideText()
            return True
        return super().event(event)


class TalkBar(QtWidgets.QWidget):
    """Under the figure: the annotation (large), the notes (when shown), the strip."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("talk_bar")
        # The toolbar would give the bar its hint's width: it takes the window's instead.
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Preferred)
        col = QtWidgets.QVBoxLayout(self)
        col.setContentsMargins(16, 6, 16, 6)
        col.setSpacing(4)
        self.annotation = _label("talk_annotation")
        self.notes = _label("talk_notes")
        self.notes.setVisible(False)
        self.strip = SceneStrip()
        for w in (self.annotation, self.notes, self.strip):
            col.addWidget(w)
        self.restyle()

    def show_scene(self, scene: Scene) -> None:
        self.annotation.setText(scene.annotation)
        self.annotation.setVisible(bool(scene.annotation))
        self.notes.setText(scene.notes.strip() or "(no notes for this scene)")

    def notes_shown(self) -> bool:
        return not self.notes.isHidden()

    def set_notes_shown(self, shown: bool) -> None:
        self.notes.setVisible(shown)

    def restyle(self) -> None:
        z = _zoom()
        self.annotation.setStyleSheet(f"font-size: {ANNOTATION_PT * z:.1f}pt; font-weight: 600; "
                                      f"color: {_ink('ink', '#222831')};")
        self.notes.setStyleSheet(f"font-size: {NOTES_PT * z:.1f}pt; color: {_ink('muted', '#5f6873')}; "
                                 f"border-left: 3px solid {_ink('nav_selected', '#3b7dd8')}; padding-left: 8px;")
        self.strip.restyle()


class BlankScreen(QtWidgets.QWidget):
    """Black over the whole window (B or '.'), as a projector's mute does."""

    def __init__(self, window: QtWidgets.QWidget):
        super().__init__(window)
        self.setObjectName("talk_blank")
        self.setAutoFillBackground(True)
        palette = self.palette()
        palette.setColor(QtGui.QPalette.ColorRole.Window, QtGui.QColor("black"))
        self.setPalette(palette)
        self.hide()
        window.installEventFilter(self)

    def set_blank(self, on: bool) -> None:
        if on:
            self.setGeometry(self.parentWidget().rect())
            self.raise_()
        self.setVisible(on)

    def eventFilter(self, watched, event):
        if event.type() == QtCore.QEvent.Type.Resize and self.isVisible():
            self.setGeometry(watched.rect())
        return False


class PresenterView(QtWidgets.QWidget):
    """The speaker's screen: the current scene (number, title, annotation), the next scene's
    title, the notes and a clock with the time since the talk started."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("presenter_view")
        self.setWindowTitle("Load Lab · presenter")
        grid = QtWidgets.QGridLayout(self)
        grid.setContentsMargins(24, 18, 24, 18)
        self.current = _label("presenter_current")
        self.next = _label("presenter_next")
        self.notes = QtWidgets.QTextBrowser()
        self.notes.setObjectName("presenter_notes")
        self.clock = QtWidgets.QLabel()
        self.clock.setObjectName("presenter_clock")
        self.clock.setAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignTop)
        grid.addWidget(self.current, 0, 0)
        grid.addWidget(self.clock, 0, 1)
        grid.addWidget(self.notes, 1, 0, 1, 2)
        grid.addWidget(self.next, 2, 0, 1, 2)
        grid.setRowStretch(1, 1)
        grid.setColumnStretch(0, 1)
        self.setStyleSheet("#presenter_view { background: #15181c; } QLabel { color: #e6e9ed; } "
                           "#presenter_current { font-size: 20pt; font-weight: 600; } "
                           "#presenter_next { font-size: 14pt; color: #a4adb8; } "
                           "#presenter_clock { font-size: 24pt; font-family: monospace; } "
                           "QTextBrowser { font-size: 18pt; background: #1b1f24; color: #e6e9ed; border: none; }")
        self._started = time.monotonic()
        self._timer = QtCore.QTimer(self)
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self.tick)
        self._timer.start()
        self.tick()

    def restart_clock(self) -> None:
        self._started = time.monotonic()
        self.tick()

    def elapsed_text(self) -> str:
        seconds = int(time.monotonic() - self._started)
        return f"{seconds // 60:02d}:{seconds % 60:02d}"

    def tick(self) -> None:
        self.clock.setText(f"{time.strftime('%H:%M')}\n{self.elapsed_text()}")

    def show_scene(self, talk: Talk, index: int) -> None:
        scene = talk.scenes[index]
        title = scene.title or scene.panel
        self.current.setText(f"{scene.number} / {len(talk.scenes)} · {title}"
                             + (f"\n{scene.annotation}" if scene.annotation and scene.annotation != title else ""))
        self.notes.setPlainText(scene.notes.strip() or "(no notes for this scene)")
        upcoming = next((s for s in talk.scenes[index + 1:] if s.ok), None)
        self.next.setText(f"next → {upcoming.number} · {upcoming.title or upcoming.panel}" if upcoming
                          else "next → (end of the talk)")

    def closeEvent(self, event):
        self._timer.stop()
        super().closeEvent(event)
