"""Play / pause / seek / speed over a simulated time axis: the ▶ of the book's figures.

One QTimer ticks at about 60 Hz; each tick advances the position by wall time × speed and
emits position_changed. Panels redraw from precomputed arrays on that signal.
"""
from __future__ import annotations

import time

from PySide6 import QtCore, QtGui, QtWidgets

from widgets.kit.theme import BASE_POINTS

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 10.0, 30.0, 100.0)
SLIDER_STEPS = 1000


class TimelinePlayer(QtWidgets.QWidget):
    position_changed = QtCore.Signal(float)
    playing_changed = QtCore.Signal(bool)
    finished = QtCore.Signal()

    def __init__(self, duration: float = 1.0, speed: float = 1.0, unit: str = "s", parent=None):
        super().__init__(parent)
        self._duration = max(float(duration), 1e-9)
        self._position = 0.0
        self._speed = speed
        self._unit = unit
        self._last_tick = 0.0
        self.last_used = 0.0  # perf_counter of the last play/pause/seek: Space goes to the latest
        self._timer = QtCore.QTimer(self)
        self._timer.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
        self._timer.setInterval(16)
        self._timer.timeout.connect(self._on_tick)
        self._build_ui()
        self._connect()
        self._sync_widgets()

    def _build_ui(self) -> None:
        layout = QtWidgets.QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.play_button = QtWidgets.QToolButton()
        self.play_button.setText("▶")
        self.play_button.setToolTip("Play / pause (Space)")
        self.play_button.setMinimumWidth(34)
        self.slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.slider.setRange(0, SLIDER_STEPS)
        self.speed_box = QtWidgets.QComboBox()
        for s in SPEEDS:
            self.speed_box.addItem(f"{s:g}×", s)
        self.speed_box.setToolTip("Playback speed: simulated seconds per wall-clock second")
        self.time_label = QtWidgets.QLabel()
        self.time_label.setMinimumWidth(120)
        self._time_text = ""  # the widest time the label must hold (fit_time_label)
        layout.addWidget(self.play_button)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.time_label)
        layout.addWidget(self.speed_box)

    def _connect(self) -> None:
        self.play_button.clicked.connect(self.toggle)
        self.slider.sliderMoved.connect(lambda v: self.seek(v / SLIDER_STEPS * self._duration))
        self.speed_box.currentIndexChanged.connect(lambda i: self.set_speed(self.speed_box.itemData(i)))

    @property
    def position(self) -> float:
        return self._position

    @property
    def duration(self) -> float:
        return self._duration

    @property
    def speed(self) -> float:
        return self._speed

    def is_playing(self) -> bool:
        return self._timer.isActive()

    def set_duration(self, duration: float) -> None:
        self._duration = max(float(duration), 1e-9)
        self._position = min(self._position, self._duration)
        self._sync_widgets()

    def set_speed(self, speed: float) -> None:
        self._speed = float(speed)
        self._sync_widgets()

    def play(self) -> None:
        self.last_used = time.perf_counter()
        if self._position >= self._duration:
            self._position = 0.0
        self._last_tick = time.perf_counter()
        self._timer.start()
        self.play_button.setText("❚❚")  # U+23F8 is missing from common fonts
        self.playing_changed.emit(True)

    def pause(self) -> None:
        self.last_used = time.perf_counter()
        if self._timer.isActive():
            self._timer.stop()
            self.play_button.setText("▶")
            self.playing_changed.emit(False)

    def toggle(self) -> None:
        self.pause() if self.is_playing() else self.play()

    def seek(self, position: float) -> None:
        self._position = min(max(float(position), 0.0), self._duration)
        self._sync_widgets()
        self.position_changed.emit(self._position)

    def _on_tick(self) -> None:
        now = time.perf_counter()
        elapsed, self._last_tick = now - self._last_tick, now
        self._position = min(self._position + elapsed * self._speed, self._duration)
        self._sync_widgets()
        self.position_changed.emit(self._position)
        if self._position >= self._duration:
            self.pause()
            self.finished.emit()

    def _sync_widgets(self) -> None:
        blocker = QtCore.QSignalBlocker(self.slider)
        self.slider.setValue(round(self._position / self._duration * SLIDER_STEPS))
        del blocker
        index = self.speed_box.findData(self._speed)
        if index >= 0 and index != self.speed_box.currentIndex():
            blocker = QtCore.QSignalBlocker(self.speed_box)
            self.speed_box.setCurrentIndex(index)
            del blocker
        self.time_label.setText(f"{self._position:,.2f} / {self._duration:,.2f} {self._unit}")

    def fit_time_label(self, widest: str) -> None:
        """Size the time label once for its widest text, so a running time never asks the
        page for a new layout; it is sized again when the font (the zoom) changes."""
        self._time_text = widest
        self._fit_to_font()

    def _fit_to_font(self) -> None:
        scale = QtGui.QFontInfo(self.font()).pointSizeF() / BASE_POINTS
        self.play_button.setMinimumWidth(round(34 * scale))
        label = self.time_label
        if self._time_text:
            width = max(round(120 * scale), label.fontMetrics().horizontalAdvance(self._time_text) + 12)
            label.setFixedSize(width, label.sizeHint().height())
        else:
            label.setMinimumWidth(round(120 * scale))

    def changeEvent(self, event):
        super().changeEvent(event)
        if event.type() == QtCore.QEvent.Type.FontChange:  # the zoom changed: keep its proportions
            self._fit_to_font()

    def closeEvent(self, event):
        self._timer.stop()
        super().closeEvent(event)
