"""The Voice panel's controls: load, turns and seed, and which turn is drawn (three groups
that wrap on a narrow page), with the line that names a refused edit."""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from core.voice.state import RATE_MAX_PER_S, RATE_STEP_PER_S, SHOWN
from widgets.kit.page import Reflow, column, follow_font
from widgets.voice.boxes import row


class Controls(QtWidgets.QWidget):
    """The fields, set from state's view; the panel connects them."""

    def __init__(self, state, parent=None):
        super().__init__(parent)
        self.load_slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.load_slider.setRange(0, int(round(RATE_MAX_PER_S / RATE_STEP_PER_S)))
        self.load_slider.setMinimumWidth(160)
        self.load_slider.setToolTip("Background requests per second (Poisson, the book's 1:1 mix); 0 = no background")
        self.load_slider.setValue(int(round(state.view("rate_per_s") / RATE_STEP_PER_S)))
        self.load_label = QtWidgets.QLabel()
        # A fixed size: its text changes at every step of a drag, and a label whose size may
        # change has the whole page laid out again each time.
        follow_font(self.load_label, lambda w: w.setFixedSize(
            max(70, w.fontMetrics().horizontalAdvance("0.00 req/s") + 6), w.fontMetrics().height() + 4))
        self.turns_spin = QtWidgets.QSpinBox()
        self.turns_spin.setRange(0, 5000)  # 0 reaches the model, which refuses it with the valid range
        self.turns_spin.setValue(state.view("turns"))
        self.seed_spin = QtWidgets.QSpinBox()
        self.seed_spin.setRange(0, 10_000)
        self.seed_spin.setValue(state.view("seed"))
        self.shown_buttons: dict[str, QtWidgets.QPushButton] = {}
        group = QtWidgets.QButtonGroup(self)
        shown = []
        for name in SHOWN:
            b = QtWidgets.QPushButton(name)
            b.setCheckable(True)
            b.setChecked(name == state.view("shown"))
            b.setToolTip(f"Draw the turn at the {name} silence")
            b.setMaximumWidth(64)
            group.addButton(b)
            shown.append(b)
            self.shown_buttons[name] = b
        groups = [row(QtWidgets.QLabel("背景负载 · load"), self.load_slider, self.load_label, stretch=1),
                  row(QtWidgets.QLabel("轮次 turns"), self.turns_spin, QtWidgets.QLabel("种子 seed"), self.seed_spin),
                  row(QtWidgets.QLabel("显示 show"), *shown)]
        box = QtWidgets.QFrame()
        box.setProperty("role", "card")
        inner = QtWidgets.QVBoxLayout(box)
        inner.setContentsMargins(10, 6, 10, 6)
        inner.addWidget(Reflow(*groups, columns=3, natural=True, grow=0, spacing=16))
        self.error_label = QtWidgets.QLabel()
        self.error_label.setProperty("role", "error")
        self.error_label.setObjectName("voice_error")
        self.error_label.setWordWrap(True)
        self.error_label.setVisible(False)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(column(box, self.error_label, stretch_last=False))
