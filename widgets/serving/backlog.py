"""例题 3-1 · 练习 3-2: the backlog curves of the book's presets and of the card, and the
backlog card with its preset picker (the picker is the state's view option; choosing a
preset fills the card, editing the card picks the preset it matches). Draws
core.serving.figures.backlog_figure."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from core.serving import backlog as bl
from core.serving import figures as F
from core.serving.state import ServingState
from widgets.kit.calculator_card import CalculatorCard
from widgets.kit.page import plot_text
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import color, pen
from widgets.serving.replay_plots import narrow_header

# The presets ①-④ are an ordered series, not phases: the theme's ramp (prefill/decode keep their meaning).
PRESET_COLORS = {"uniform": "series1", "shift": "series3", "burst_2cards": "series5", "burst_3cards": "series6"}


class BacklogPlot(PlotCard):
    def __init__(self, parent=None):
        super().__init__("例题 3-1 · 练习 3-2 · 积压曲线", "Q_{k+1} = max(0, Q_k + A_k − μΔt)", parent=parent)
        self.plot_widget.setMinimumHeight(250)
        narrow_header(self)
        p = self.plot
        p.setLabel("left", "backlog", units="steps")
        p.setLabel("bottom", "time", units="s")
        p.addLegend(offset=(70, 40))  # top left, above the short ③ burst and clear of ②'s peak
        for key, preset in bl.PRESETS.items():
            self.add_curve(key, pen=pen(PRESET_COLORS[key], 2), name=preset["label"])
        self.add_curve("current", pen=pg.mkPen(color("ink"), width=3, style=QtCore.Qt.PenStyle.DotLine), name="当前参数")
        self.cursor = pg.InfiniteLine(pos=0, angle=90, pen=pen("ink", 1.5))
        p.addItem(self.cursor)
        self.note = plot_text(anchor=(0, 0), size=10)
        p.addItem(self.note)

    def draw_cursor(self, banner_t: float) -> None:
        """The banner's ▶ on the ② curve (core.serving.figures.backlog_cursor)."""
        x, on_curve = F.backlog_cursor(banner_t)
        self.cursor.setValue(x)
        self.cursor.setVisible(on_curve)

    def draw(self, fig: dict) -> None:
        for key in bl.PRESETS:
            t, q = fig["presets"].get(key, ([], []))
            self.curves[key].setData(t, q)
        if fig["current"] is not None:
            self.curves["current"].setData(*fig["current"])
        self.note.setText(fig["note"])
        self.note.setPos(*fig["note_pos"])
        self.plot.setXRange(*fig["x_range"], padding=0.02)
        self.plot.setYRange(*fig["y_range"], padding=0)


class BacklogCardSection(QtWidgets.QWidget):
    def __init__(self, state: ServingState, parent=None):
        super().__init__(parent)
        self.state = state
        col = QtWidgets.QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        row = QtWidgets.QHBoxLayout()
        label = QtWidgets.QLabel("预设 preset")
        label.setProperty("role", "caption")
        self.preset_box = QtWidgets.QComboBox()
        for key, preset in bl.PRESETS.items():
            self.preset_box.addItem(preset["label"], key)
        self.preset_box.addItem("自定义 custom", "")
        self.preset_box.setToolTip("Fill the backlog calculator with a preset of the book (例题 3-1 ①②, 练习 3-2 ③④)")
        row.addWidget(label)
        row.addWidget(self.preset_box, 1)
        col.addLayout(row)
        self.card = CalculatorCard(state.card("backlog"), compact=True)
        col.addWidget(self.card, 1)
        self.show_preset(state.view("backlog_preset"))
        self.preset_box.currentIndexChanged.connect(self._on_preset_picked)

    def _on_preset_picked(self, index: int) -> None:
        self.state.set_view("backlog_preset", self.preset_box.itemData(index))

    def show_preset(self, key: str) -> None:
        blocker = QtCore.QSignalBlocker(self.preset_box)
        self.preset_box.setCurrentIndex(self.preset_box.findData(key))
        del blocker
