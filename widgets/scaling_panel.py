"""§3.6 budgets: the scaling-law fit with its held-out check (例题 3-5), training as intercept
and calls as slope (图 3-28, 练习 3-10), and how far public models go past Chinchilla."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets

from core import scaling
from widgets.calculator_card import CalculatorCard
from widgets.page import column, marker_line, plot_text, scroll_page, two_column_grid
from widgets.panels import PanelInfo
from widgets.plot_card import PlotCard
from widgets.theme import brush, pen

_N_COLORS = ["prefill", "decode", "state", "tool", "backlog", "accent"]


class ScalingPanel(QtWidgets.QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self._build_ui()
        self._connect()
        self.refresh()

    def _build_ui(self) -> None:
        layout = scroll_page(self, "§3.6 从负载需求到训练与服务预算 · Scaling & Budgets")
        layout.addLayout(two_column_grid([self._fit_section(), self._serve_section(), self._table_section(), self._small_cards()]))
        layout.addStretch(1)

    def _fit_section(self) -> QtWidgets.QWidget:
        self.fit_card = CalculatorCard(scaling.FIT)
        self.fit_plot = PlotCard("例题 3-5 · 6 点拟合、2 点留出", "datablations C4: loss vs tokens")
        p = self.fit_plot.plot
        p.setLogMode(x=True, y=False)
        p.setLabel("bottom", "training tokens D (log)")
        p.getAxis("bottom").enableAutoSIPrefix(False)
        p.setLabel("left", "loss (nats/token)")
        p.addLegend(offset=(-10, 10)).setColumnCount(2)
        self.model_sizes = sorted({o.parameters for o in scaling.c4_observations()})
        self.fit_curves = {}
        for i, n in enumerate(self.model_sizes):
            kind = _N_COLORS[i % len(_N_COLORS)]
            self.fit_curves[n] = self.fit_plot.add_curve(f"fit_{n:.3g}", pen=pen(kind, 2), name=f"N = {n / 1e9:.3g}B")
        fit = [o for o in scaling.c4_observations() if o.split == "fit"]
        held = [o for o in scaling.c4_observations() if o.split == "holdout"]
        self.fit_points = self.fit_plot.add_curve(
            "fit_points", pen=None, symbol="o", symbolSize=9, symbolBrush=brush("ink"), symbolPen=None, name="fit points")
        # Log mode: curves take raw D and pyqtgraph takes the log; text positions are in log units.
        self.fit_points.setData([o.tokens for o in fit], [o.loss for o in fit])
        self.held_points = self.fit_plot.add_curve(
            "holdout_points", pen=None, symbol="s", symbolSize=11, symbolBrush=pg.mkBrush(None),
            symbolPen=pen("backlog", 2), name="held out")
        self.held_points.setData([o.tokens for o in held], [o.loss for o in held])
        self.held_labels = [plot_text(anchor=(1.1, 0.5), kind="backlog") for _ in held]
        for label in self.held_labels:
            p.addItem(label)
        return column(self.fit_card, self.fit_plot)

    def _serve_section(self) -> QtWidgets.QWidget:
        self.serve_card = CalculatorCard(scaling.TRAIN_VS_SERVE)
        self.serve_plot = PlotCard("图 3-28 · 训练投入是截距,单次调用是斜率", "total GPU hours vs calls served")
        p = self.serve_plot.plot
        p.setLabel("bottom", "calls served (millions)")
        p.setLabel("left", "GPU hours")
        p.getAxis("bottom").enableAutoSIPrefix(False)
        p.addLegend(offset=(10, 10))
        self.small_line = self.serve_plot.add_curve("small", pen=pen("decode", 2.5), name="small model")
        self.large_line = self.serve_plot.add_curve("large", pen=pen("prefill", 2.5), name="large model")
        self.cross_line = marker_line(p, "backlog")
        self.cross_label = plot_text(anchor=(0, 1), kind="backlog")
        p.addItem(self.cross_label)
        return column(self.serve_card, self.serve_plot)

    def _table_section(self) -> QtWidgets.QWidget:
        self.tokens_card = CalculatorCard(scaling.TOKENS_PER_PARAM)
        self.table_plot = PlotCard("从 Llama 到 Qwen:数据越给越多", "training tokens per parameter (log)")
        p = self.table_plot.plot
        p.setLogMode(x=False, y=True)
        p.setLabel("left", "D / N (log)")
        labels = [row[0] for row in scaling._TABLE] + ["yours"]
        p.getAxis("bottom").setTicks([[(i, text) for i, text in enumerate(labels)]])
        self.table_bars = pg.BarGraphItem(x=np.arange(len(labels)), height=np.zeros(len(labels)), width=0.6,
                                          brushes=[brush("state")] * (len(labels) - 1) + [brush("decode")])
        p.addItem(self.table_bars)
        self.chinchilla_line = marker_line(p, "backlog", vertical=False, label="Chinchilla ≈ 20", position=0.08)
        self.chinchilla_line.setValue(np.log10(20))  # the bars are drawn in log10 units
        return column(self.tokens_card, self.table_plot)

    def _small_cards(self) -> QtWidgets.QWidget:
        self.lifetime_card = CalculatorCard(scaling.LIFETIME)
        self.calendar_card = CalculatorCard(scaling.CALENDAR)
        self.optimal_card = CalculatorCard(scaling.OPTIMAL)
        self.moe_card = CalculatorCard(scaling.MOE_EXPERTS)
        self.a100_card = CalculatorCard(scaling.A100_EQUIV)
        box = column(self.lifetime_card, self.calendar_card, self.optimal_card, self.moe_card, self.a100_card)
        box.layout().addStretch(1)
        return box

    def _connect(self) -> None:
        self.fit_card.computed.connect(lambda _: self._refresh_fit())
        self.serve_card.computed.connect(lambda _: self._refresh_serve())
        self.tokens_card.computed.connect(lambda _: self._refresh_table())

    def refresh(self) -> None:
        self._refresh_fit()
        self._refresh_serve()
        self._refresh_table()

    def _refresh_fit(self) -> None:
        r = self.fit_card.result
        law = scaling.ScalingLaw(r["E"], r["A"], r["B"], r["alpha"], r["beta"])
        d = np.logspace(7.6, 11.6, 120)
        for n, curve in self.fit_curves.items():
            curve.setData(d, law.loss(n, d))
        held = [o for o in scaling.c4_observations() if o.split == "holdout"]
        for label, o, key in zip(self.held_labels, held, ("h1", "h2")):
            label.setText(f"{key.upper()} {r[key + '_residual']:+.3f}")
            label.setPos(np.log10(o.tokens), o.loss)
        self.fit_plot.plot.setYRange(2.0, 8.0, padding=0)
        self.fit_plot.plot.setXRange(7.6, 11.6, padding=0)

    def _refresh_serve(self) -> None:
        r = self.serve_card.result
        q_star = r["break_even_calls"] or 1e6
        calls = np.linspace(0, 2.5 * q_star, 100)
        small = r["small_train_gpu_h"] + calls * r["small_call_gpu_s"] / scaling.HOUR
        large = r["large_train_gpu_h"] + calls * r["large_call_gpu_s"] / scaling.HOUR
        self.small_line.setData(calls / 1e6, small)
        self.large_line.setData(calls / 1e6, large)
        # Extrapolated beyond the fit data: drawn dashed, as the book does.
        self.small_line.setPen(pen("decode", 2.5, dashed=bool(r["small_extrapolated"])))
        self.cross_line.setValue(q_star / 1e6)
        self.cross_label.setText(f"Q* ≈ {q_star / 1e6:,.0f} M calls")
        self.cross_label.setPos(q_star / 1e6, 0.92 * float(max(small.max(), large.max())))

    def _refresh_table(self) -> None:
        ratios = [d / n for _, n, d, *_ in scaling._TABLE] + [self.tokens_card.result["tokens_per_parameter"]]
        self.table_bars.setOpts(height=np.log10(ratios))


PANEL = PanelInfo(key="scaling", title="预算与 Scaling · Budgets", section="3.6", order=6.0, factory=ScalingPanel)
