"""§3.6 budgets: the scaling-law fit with its held-out check (例题 3-5), training as intercept
and calls as slope (图 3-28, 练习 3-10), and how far public models go past Chinchilla.

A view of core.scaling.state.ScalingState; the figures come from core.scaling.figures."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtGui, QtWidgets

from core.scaling import figures
from core.scaling.state import ScalingState
from widgets.kit.binding import FigureBinding
from widgets.kit.calculator_card import CalculatorCard
from widgets.kit.lifetime import free_on_close
from widgets.kit.page import StagedGrid, column, marker_line, plot_text, scroll_page
from widgets.kit.panels import PanelInfo
from widgets.kit.plot_card import PlotCard
from widgets.kit.plot_labels import keep_apart
from widgets.kit.theme import SERIES, brush, pen
from widgets.kit.zoom import pt

_N_COLORS = list(SERIES)  # model sizes small -> large: the theme's ordered ramp
SMALL, LARGE = SERIES[1], SERIES[4]  # the small and the large model, on the same ramp


TICK_LINES = 2.2  # the table's bottom ticks: model over size, and a little room


class ScalingPanel(FigureBinding, QtWidgets.QWidget):
    def __init__(self, state: ScalingState | None = None, parent=None):
        super().__init__(parent)
        free_on_close(self)  # a closed panel is freed (widgets/kit/lifetime.py)
        self.state = state if state is not None else ScalingState()
        layout = scroll_page(self, "§3.6 从负载需求到训练与服务预算 · Scaling & Budgets")
        self._grid = StagedGrid(self, layout, [self._fit_section, self._serve_section, self._table_section,
                                               self._a100_section, self._small_cards], then=self._bind)
        layout.addStretch(1)

    def _fit_section(self) -> QtWidgets.QWidget:
        self.fit_card = CalculatorCard(self.state.card("fit"))
        self.fit_plot = PlotCard("例题 3-5 · 6 点拟合、2 点留出", "datablations C4: loss vs tokens")
        p = self.fit_plot.plot
        p.setLogMode(x=True, y=False)
        p.setLabel("bottom", "training tokens D (log)")
        p.getAxis("bottom").enableAutoSIPrefix(False)
        p.setLabel("left", "loss (nats/token)")
        p.addLegend(offset=(-10, 10)).setColumnCount(2)
        self.model_sizes = figures.model_sizes()
        self.fit_curves = {}
        for i, n in enumerate(self.model_sizes):
            kind = _N_COLORS[i % len(_N_COLORS)]
            self.fit_curves[n] = self.fit_plot.add_curve(f"fit_{n:.3g}", pen=pen(kind, 2), name=f"N = {n / 1e9:.3g}B")
        # The observations never change: drawn once. Log mode: curves take raw D and pyqtgraph
        # takes the log; text positions are in log units.
        self.fit_points = self.fit_plot.add_curve(
            "fit_points", pen=None, symbol="o", symbolSize=9, symbolBrush=brush("ink"), symbolPen=None, name="fit points")
        self.fit_points.setData(*figures.observations("fit"))
        self.held_points = self.fit_plot.add_curve(
            "holdout_points", pen=None, symbol="s", symbolSize=11, symbolBrush=pg.mkBrush(None),
            symbolPen=pen("backlog", 2), name="held out")
        self.held_points.setData(*figures.observations("holdout"))
        self.held_labels = [plot_text(anchor=(1.1, 0.5), kind="backlog") for _ in figures.HELD_KEYS]
        for label in self.held_labels:
            p.addItem(label)
        self.held_apart = keep_apart(p, self.held_labels, (1.1, 0.5))  # the two held-out points lie close
        return column(self.fit_card, self.fit_plot)

    def _serve_section(self) -> QtWidgets.QWidget:
        self.serve_card = CalculatorCard(self.state.card("serve"))
        self.serve_plot = PlotCard("图 3-28 · 训练投入是截距,单次调用是斜率", "total GPU hours vs calls served")
        p = self.serve_plot.plot
        p.setLabel("bottom", "calls served (millions)")
        p.setLabel("left", "GPU hours")
        p.getAxis("bottom").enableAutoSIPrefix(False)
        p.addLegend(offset=(10, 10))
        self.small_line = self.serve_plot.add_curve("small", pen=pen(SMALL, 2.5), name="small model")
        self.large_line = self.serve_plot.add_curve("large", pen=pen(LARGE, 2.5), name="large model")
        self.cross_line = marker_line(p, "backlog")
        self.cross_label = plot_text(anchor=(0, 1), kind="backlog")
        p.addItem(self.cross_label)
        return column(self.serve_card, self.serve_plot)

    def _table_section(self) -> QtWidgets.QWidget:
        self.tokens_card = CalculatorCard(self.state.card("tokens"))
        self.table_plot = PlotCard("从 Llama 到 Qwen:数据越给越多", "training tokens per parameter (log)")
        p = self.table_plot.plot
        p.setLogMode(x=False, y=True)
        p.setLabel("left", "D / N (log)")
        labels = figures.table_labels()
        # The model over its size, one line each: side by side they overprint at 1280x720.
        axis = p.getAxis("bottom")
        axis.setTicks([[(i, text.replace(" · ", "\n")) for i, text in enumerate(labels)]])
        # Two lines' room (pyqtgraph measures one); widgets.kit.plot_zoom scales it with the zoom.
        axis.setStyle(autoExpandTextSpace=False, tickTextHeight=int(
            TICK_LINES * QtGui.QFontMetrics(axis.style["tickFont"] or axis.font()).lineSpacing()))
        self.table_bars = pg.BarGraphItem(x=np.arange(len(labels)), height=np.zeros(len(labels)), width=0.6,
                                          brushes=[brush("state")] * (len(labels) - 1) + [brush("decode")])
        p.addItem(self.table_bars)
        self.chinchilla_line = marker_line(p, "backlog", vertical=False, label="Chinchilla ≈ 20", position=0.02,
                                            anchors=((0, 1), (0, 1)))  # from the left end: centred there it was cut
        return column(self.tokens_card, self.table_plot)

    def _a100_section(self) -> QtWidgets.QWidget:
        self.a100_card = CalculatorCard(self.state.card("a100"))
        self.a100_plot = PlotCard("图 3-30 · GPU 小时折算成 A100 等效(对数尺度)",
                                 "bars: A100 hours · ○ as reported · DeepSeek-V3: pre-training only")
        p = self.a100_plot.plot
        p.setLogMode(x=False, y=True)  # bars and markers are in log10 units; the axis reads 10^y
        p.setLabel("left", "GPU hours (log)")
        p.setMouseEnabled(x=False, y=False)
        p.hideButtons()
        labels = figures.a100_labels()
        p.getAxis("bottom").setTicks([[]])  # the names sit over the bars (core's texts)
        self.a100_bars = pg.BarGraphItem(x=np.arange(len(labels)), height=np.zeros(len(labels)), width=0.6,
                                         brushes=[brush("prefill")] * (len(labels) - 1) + [brush("decode")])
        p.addItem(self.a100_bars)
        self.a100_reported = self.a100_plot.add_curve(
            "reported_hours", pen=None, symbol="o", symbolSize=9, symbolBrush=pg.mkBrush(None),
            symbolPen=pen("ink", 1.5))
        self.a100_texts = [plot_text(anchor=(0.5, 1), size=8) for _ in labels]
        for text in self.a100_texts:
            p.addItem(text)
        self.a100_apart = keep_apart(p, self.a100_texts, (0.5, 1))  # neighbours' names never overprint
        self.a100_ratio = plot_text(anchor=(0, 0), size=9)
        p.addItem(self.a100_ratio)
        return column(self.a100_card, self.a100_plot)

    def _small_cards(self) -> QtWidgets.QWidget:
        self.lifetime_card = CalculatorCard(self.state.card("lifetime"))
        self.calendar_card = CalculatorCard(self.state.card("calendar"))
        self.optimal_card = CalculatorCard(self.state.card("optimal"))
        self.moe_card = CalculatorCard(self.state.card("moe"))
        box = column(self.lifetime_card, self.calendar_card, self.optimal_card, self.moe_card)
        box.layout().addStretch(1)
        return box

    def _bind(self) -> None:
        """Every section exists: follow the state and draw it."""
        self._connect()
        self.refresh()

    def is_ready(self) -> bool:
        """Every section built and drawn (snapshots, tests and benchmarks wait on this)."""
        return self._grid.done

    def _connect(self) -> None:
        # The small cards only show their outputs: their CalculatorCards follow the model.
        self.bind_figures({"cards.fit": self._on_fit_changed, "cards.serve": self._on_serve_changed,
                           "cards.tokens": self._on_tokens_changed, "cards.a100": self._on_a100_changed})

    # ---- model -> widgets ------------------------------------------------------
    def _on_fit_changed(self) -> None:
        fresh = self._fresh("fit")
        if fresh is None:
            return
        fig = figures.fit_figure(*fresh)
        for n, curve in self.fit_curves.items():
            curve.setData(fig["tokens"], fig["curves"][n])
        for label, (text, pos) in zip(self.held_labels, fig["held_labels"]):
            label.setText(text)
            label.setPos(*pos)
        self.held_apart.arrange()
        self.fit_plot.plot.setYRange(*fig["y_range"], padding=0)
        self.fit_plot.plot.setXRange(*fig["x_range"], padding=0)

    def _on_serve_changed(self) -> None:
        fresh = self._fresh("serve")
        if fresh is None:
            return
        fig = figures.serve_figure(*fresh)
        self.small_line.setData(fig["calls_m"], fig["small"])
        self.large_line.setData(fig["calls_m"], fig["large"])
        # Extrapolated beyond the fit data: drawn dashed, as the book does.
        self.small_line.setPen(pen(SMALL, pt(2.5), dashed=fig["small_dashed"]))  # pt: at the zoom
        self.cross_line.setValue(fig["cross_m"])
        self.cross_label.setText(fig["cross_text"])
        self.cross_label.setPos(*fig["cross_pos"])

    def _on_tokens_changed(self) -> None:
        fresh = self._fresh("tokens")
        if fresh is None:
            return
        fig = figures.table_figure(*fresh)
        self.table_bars.setOpts(height=fig["log10_ratio"])
        self.chinchilla_line.setValue(fig["chinchilla_log10"])  # the bars are drawn in log10 units

    def _on_a100_changed(self) -> None:
        fresh = self._fresh("a100")
        if fresh is None:
            return
        fig = figures.a100_figure(*fresh)
        self.a100_bars.setOpts(height=fig["log10_a100"])
        self.a100_reported.setData(fig["x"], fig["reported_marker"])
        for item, (text, pos) in zip(self.a100_texts, fig["texts"]):
            item.setText(text)
            item.setPos(*pos)
        self.a100_apart.arrange()
        self.a100_ratio.setText(fig["ratio_text"])
        self.a100_ratio.setPos(*fig["ratio_pos"])
        self.a100_plot.plot.setYRange(*fig["y_range"], padding=0)

    def closeEvent(self, event):
        self._grid.stop()
        self.unbind_figures()
        super().closeEvent(event)


PANEL = PanelInfo(key="scaling", title="预算与 Scaling · Budgets", section="3.6", order=6.0, factory=ScalingPanel)
