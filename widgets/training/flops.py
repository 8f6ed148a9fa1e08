"""The FLOPs page: 图 3-23's item-by-item count beside 6ND, packing two documents into one
sequence, and 练习 3-6's label masking. Each section draws a figure from core."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from core.training import figures
from widgets.kit.calculator_card import CalculatorCard
from widgets.kit.page import column, plot_text
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import brush, color, pen
from widgets.training.kit import Section, caption

# Parts of one total, stacked in this order: the theme's ordered ramp, so no part reads as a
# phase of the page's legend (blue forward, orange backward, green update).
SEGMENT_KINDS = {"six_matrix": "series1", "six_head": "series2", "six_embedding": "series3",
                 "item_matrix": "series1", "item_head": "series2", "item_attention": "series4",
                 "item_recompute": "series5"}


RATIO_X = -0.45  # the ratio's left end: the x range starts at -0.5


class FlopsSection(Section):
    paths = ("cards.flops",)

    def __init__(self, panel, grid: QtWidgets.QLayout):
        super().__init__(panel)
        self._grid = grid

    def build(self):
        self.card = CalculatorCard(self.state.card("flops"), compact=True)
        yield
        self.plot = PlotCard("图 3-23 · 6ND 与逐项核算", "Qwen3-8B, B=1, P=8192, full training")
        yield  # a plot is the largest piece; its items come next turn
        p = self.plot.plot
        p.setLabel("left", "TFLOPs")
        p.getAxis("bottom").setTicks([[(0, "6ND 粗算"), (1, "逐项 item by item")]])
        p.setXRange(-0.5, 3.3, padding=0)
        p.setMouseEnabled(x=False, y=False)
        self.bars: dict[str, pg.BarGraphItem] = {}
        self.texts: dict[str, pg.TextItem] = {}
        legend = p.addLegend(offset=(-6, -30), brush=brush("paper", 220))
        for key, (_, text) in figures.FLOPS_SEGMENTS.items():
            bar = pg.BarGraphItem(x=[0], y0=[0], height=[0], width=0.62, brush=brush(SEGMENT_KINDS[key], 215),
                                  pen=pen("paper", 1))
            p.addItem(bar)
            self.bars[key] = bar
            label = plot_text(anchor=(0.5, 0.5), size=8, kind="paper")
            label.setZValue(5)
            p.addItem(label)
            self.texts[key] = label
            if text:
                legend.addItem(bar, text)
        self.six_nd_line = pg.InfiniteLine(angle=0, pen=pen("ink", 1.2, dashed=True))
        p.addItem(self.six_nd_line)
        # From the first bar's left edge (centred between the bars it was cut in English).
        self.ratio_text = plot_text(anchor=(0, 1), size=11)
        p.addItem(self.ratio_text)
        self._grid.addWidget(column(self.card, self.plot), 0, 0)
        yield

    def refresh(self) -> None:
        fig = figures.flops_figure(self.state.card("flops").result)
        for key, seg in fig.segments.items():
            self.bars[key].setOpts(x=[seg.x], y0=[seg.y0], height=[seg.height])
            text = self.texts[key]
            text.setVisible(seg.text_visible)
            text.setText(seg.text)
            text.setPos(seg.x, seg.text_y)
        self.six_nd_line.setValue(fig.six_nd)
        self.ratio_text.setText(fig.ratio_text)
        self.ratio_text.setPos(RATIO_X, fig.ratio_pos[1])
        self.plot.plot.setYRange(0, fig.y_top, padding=0)
        self.panel.figure_drawn.emit("flops")


class PackingSection(Section):
    paths = ("cards.packing",)

    def __init__(self, panel, grid: QtWidgets.QLayout):
        super().__init__(panel)
        self._grid = grid

    def build(self):
        self.card = CalculatorCard(self.state.card("packing"), compact=True)
        yield
        self.split_slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.split_slider.setObjectName("split_slider")
        self.split_label = QtWidgets.QLabel()
        split_row = QtWidgets.QWidget()
        hl = QtWidgets.QHBoxLayout(split_row)
        hl.setContentsMargins(0, 0, 0, 0)
        hl.addWidget(QtWidgets.QLabel("第一份文档 first document"))
        hl.addWidget(self.split_slider, 1)
        hl.addWidget(self.split_label)
        self.plot = PlotCard("两份文档:配对与整层工作", "vs the split")
        yield  # a plot is the largest piece; its items come next turn
        q = self.plot.plot
        q.setLabel("bottom", "first document (tokens); second = total − first")
        q.setLabel("left", "against one document")
        q.setYRange(0, 1.05, padding=0)
        q.setMouseEnabled(x=False, y=False)
        q.addLegend(offset=(-6, -6))
        self.pairs_curve = self.plot.add_curve("pairs_ratio", pen=pen("tool", 2), name="查询—键配对 pairs")
        self.layer_curve = self.plot.add_curve("layer_work_ratio", pen=pen("prefill", 2), name="整层工作 layer work")
        self.marker = pg.ScatterPlotItem(size=10, brush=brush("backlog"), pen=pen("paper", 1))
        q.addItem(self.marker)
        self.split_line = pg.InfiniteLine(angle=90, pen=pen("backlog", 1.2, dashed=True))
        q.addItem(self.split_line)
        yield
        self.mask_plot = PlotCard("因果掩码 causal mask", "queries ↓ keys →")
        yield  # a plot is the largest piece; its items come next turn
        self.mask_plot.plot_widget.setMinimumHeight(200)
        mp = self.mask_plot.plot
        mp.hideAxis("left")
        mp.hideAxis("bottom")
        mp.setAspectLocked(True)
        mp.invertY(True)
        mp.setMouseEnabled(x=False, y=False)
        self.mask_image = pg.ImageItem(axisOrder="row-major")
        self.mask_image.setLookupTable(np.array([color("paper").getRgb()[:3], color("tool").getRgb()[:3]], dtype=np.ubyte))
        mp.addItem(self.mask_image)
        plots = QtWidgets.QHBoxLayout()
        plots.addWidget(self.plot, 3)
        plots.addWidget(self.mask_plot, 2)
        holder = QtWidgets.QWidget()
        holder.setLayout(plots)
        plots.setContentsMargins(0, 0, 0, 0)
        self._grid.addWidget(column(self.card, split_row, holder), 0, 1)
        self.split_slider.valueChanged.connect(self._on_split_slider)

    def refresh(self) -> None:
        card = self.state.card("packing")
        fig = figures.packing_figure(card.inputs, card.result)
        self.pairs_curve.setData(fig.first_length, fig.pairs_ratio)
        self.layer_curve.setData(fig.first_length, fig.layer_work_ratio)
        self.marker.setData(fig.marker_x, fig.marker_y)
        self.split_line.setVisible(fig.split is not None)
        if fig.split is not None:
            self.split_line.setValue(fig.split)
        self.plot.plot.setXRange(0, fig.seq_len, padding=0.01)
        self.mask_image.setImage(fig.mask, levels=(0, 1))
        with QtCore.QSignalBlocker(self.split_slider):
            self.split_slider.setRange(*fig.slider_range)
            self.split_slider.setSingleStep(fig.slider_steps[0])
            self.split_slider.setPageStep(fig.slider_steps[1])
            self.split_slider.setEnabled(fig.slider_enabled)
            if fig.split is not None:
                self.split_slider.setValue(int(fig.split))
        self.split_label.setText(fig.label)
        self.panel.figure_drawn.emit("packing")

    def _on_split_slider(self, first: int) -> None:
        card = self.state.card("packing")
        self.card.set_value("doc_lengths", figures.packing_split(card.inputs, first))


class UpdateSection(Section):
    paths = ("cards.update",)

    def __init__(self, panel, grid: QtWidgets.QLayout):
        super().__init__(panel)
        self._grid = grid

    def build(self):
        self.card = CalculatorCard(self.state.card("update"), compact=True)
        yield
        self.plot = PlotCard("练习 3-6 · 只屏蔽标签 vs 只对监督 token 做词表投影", "FLOPs of one update")
        yield  # a plot is the largest piece; its items come next turn
        u = self.plot.plot
        u.setLabel("left", "TFLOPs")
        u.getAxis("bottom").setTicks([[(0, "只屏蔽损失 label masking"), (1, "跳过词表投影 skip projection")]])
        u.setXRange(-0.6, 2.5, padding=0)
        u.setMouseEnabled(x=False, y=False)
        self.trunk_bars = pg.BarGraphItem(x=[0, 1], y0=[0, 0], height=[0, 0], width=0.55, brush=brush("prefill", 200),
                                          pen=pen("paper", 1))
        self.head_bars = pg.BarGraphItem(x=[0, 1], y0=[0, 0], height=[0, 0], width=0.55, brush=brush("decode", 220),
                                         pen=pen("paper", 1))
        u.addItem(self.trunk_bars)
        u.addItem(self.head_bars)
        leg = u.addLegend(offset=(-6, 6))
        leg.addItem(self.trunk_bars, "主干 trunk (layers + attention)")
        leg.addItem(self.head_bars, "词表投影 lm_head")
        self.texts = [plot_text(anchor=(0.5, 1), size=9) for _ in range(2)]
        for t in self.texts:
            u.addItem(t)
        self.caption = caption("")
        left = column(self.card, stretch_last=False)
        left.layout().addStretch(1)
        self._grid.addWidget(left, 1, 0)
        self._grid.addWidget(column(self.plot, self.caption, stretch_last=False), 1, 1)
        yield

    def refresh(self) -> None:
        fig = figures.update_figure(self.state.card("update").result)
        self.trunk_bars.setOpts(x=[0, 1], y0=[0, 0], height=fig.trunk)
        self.head_bars.setOpts(x=[0, 1], y0=fig.trunk, height=fig.head)
        for i, text in enumerate(self.texts):
            text.setText(fig.texts[i])
            text.setPos(i, fig.totals[i])
        self.plot.plot.setYRange(0, fig.y_top, padding=0)
        self.caption.setText(fig.caption)
        self.panel.figure_drawn.emit("update")
