"""练习 3-5 tab: the same picture at two sides with its merged tokens drawn over it, the
growth of tokens, EC, KV and encoder FLOPs against (side ratio)², and the encoder card."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from core.state_model import CardModel
from vision.grid import PatchGrid
from widgets.kit.calculator_card import CalculatorCard
from widgets.kit.page import plot_text
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import COLORS, brush, pen
from widgets.vision.image_view import ImageGridView


class CompareTab(QtWidgets.QWidget):
    def __init__(self, compare: CardModel, encode: CardModel, parent=None):
        super().__init__(parent)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(4, 6, 4, 6)
        self.compare_card = CalculatorCard(compare)
        lay.addWidget(self.compare_card)
        pair = QtWidgets.QHBoxLayout()
        self.compare_views: list[ImageGridView] = []
        self.compare_captions: list[QtWidgets.QLabel] = []
        for _ in range(2):
            col = QtWidgets.QVBoxLayout()
            view = ImageGridView()
            view.setMinimumSize(260, 240)
            view.setMaximumHeight(320)
            view.show_patch_grid(False)  # the token grid alone shows the ×4 at a glance
            view.min_gap_px = 4.0  # denser than the main view: thinning would hide the ×4
            caption = QtWidgets.QLabel()
            caption.setProperty("role", "caption")
            caption.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
            caption.setWordWrap(True)
            caption.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
            col.addWidget(view, 1)
            col.addWidget(caption)
            pair.addLayout(col)
            self.compare_views.append(view)
            self.compare_captions.append(caption)
        lay.addLayout(pair)
        self.compare_plot = PlotCard("边长加倍:token、EC、KV ×4;视觉编码 FLOPs 多于 ×4",
                                     "注意力在 patch 之间两两计算,随 N² 增长")
        p = self.compare_plot.plot
        p.setMouseEnabled(x=False, y=False)
        p.setLabel("left", "side_b / side_a 时的倍数")
        p.getAxis("bottom").setTicks([[(0, "视觉 token"), (1, "EC"), (2, "KV"), (3, "编码 FLOPs")]])
        self.compare_bars = pg.BarGraphItem(x=[0, 1, 2, 3], height=[0, 0, 0, 0], width=0.6,
                                            brushes=[brush("decode"), brush("ec"), brush("state"), brush("prefill")])
        p.addItem(self.compare_bars)
        self.compare_line = pg.InfiniteLine(angle=0, pen=pen("ink", 1.5, dashed=True), label="(边长倍数)²",
                                            labelOpts={"position": 0.08, "color": COLORS["ink"]})
        p.addItem(self.compare_line)
        self.compare_labels = [plot_text(anchor=(0.5, 1), size=9) for _ in range(4)]
        for item in self.compare_labels:
            p.addItem(item)
        lay.addWidget(self.compare_plot)
        self.encode_card = CalculatorCard(encode)
        lay.addWidget(self.encode_card)
        lay.addStretch(1)

    def draw(self, fig: dict, pixels: np.ndarray | None) -> None:
        """fig: core.vision.figures.compare_figure; pixels: the picture shown at both sides
        (None: leave the pictures as they are)."""
        for view, caption, side in zip(self.compare_views, self.compare_captions, fig["sides"]):
            if pixels is not None:
                view.show_image(pixels, PatchGrid(side["layout"], pixels.shape[1], pixels.shape[0]))
            caption.setText(f"<b>{side['title']}</b><br>{side['detail']}")
        self.compare_bars.setOpts(height=fig["ratios"])
        self.compare_line.setValue(fig["square"])
        for item, (x, y, text) in zip(self.compare_labels, fig["labels"]):
            item.setText(text)
            item.setPos(x, y)
        self.compare_plot.plot.setYRange(0, fig["y_max"], padding=0)
