"""图 3-14 (V4.1 Flash's CED: expert-layer passes per prompt token against the prompt
length) and goodput of the two measured runs (tasks finished vs tasks that qualify). A
mixin of AgentsPanel; figures come from core.agents.trace_figures."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtWidgets

from core.agents import trace_figures as figures
from widgets.agents.kit import still_plot
from widgets.kit.calculator_card import CalculatorCard
from widgets.kit.page import column, plot_text
from widgets.kit.theme import brush, pen


class StructureSections:
    """Built by _ced_section and _goodput_section; drawn by structure_handlers()."""

    def _ced_section(self) -> QtWidgets.QWidget:
        self.ced_card = CalculatorCard(self.state.card("ced"))
        self.ced_plot = still_plot("图 3-14 · 负载推动结构:V4.1 Flash 的 CED · workload shapes structure: V4.1 Flash's CED",
                                   "expert layers each prompt token passes: 40 vs 20 + 20·min(P,128)/P",
                                   "prompt tokens P (log)", "expert-layer passes per prompt token")
        p = self.ced_plot.plot
        # Bottom left: below E passes per token neither curve goes. The entries carry each
        # model's formula with the card's L, E and W (set as the card changes).
        self.ced_legend = p.addLegend(offset=(10, -10))
        names = self._ced_names = figures.ced_names(40, 20, 128)
        self.dense_curve = self.ced_plot.add_curve("decoder_only", pen=pen("wait", 2.5, dashed=True),
                                                   name=names["decoder_only"])
        self.ced_curve = self.ced_plot.add_curve("ced", pen=pen("prefill", 2.5), name=names["ced"])
        self.ced_point = self.ced_plot.add_curve("current", pen=None, symbol="o", symbolSize=11,
                                                 symbolBrush=brush("decode"), symbolPen=pen("ink", 1))
        self.ced_text = plot_text(anchor=(1, 0))
        p.addItem(self.ced_text)
        return column(self.ced_card, self.ced_plot)

    def _goodput_section(self) -> QtWidgets.QWidget:
        self.goodput_card = CalculatorCard(self.state.card("goodput"))
        self.goodput_plot = still_plot("有效吞吐 · tasks finished vs tasks that qualify",
                                       "per hour, one agent running the task again and again", left="tasks per hour")
        p = self.goodput_plot.plot
        self.finished_bars = pg.BarGraphItem(x=[0, 1], height=[0, 0], width=0.55, brush=brush("wait", 110),
                                             pen=pen("wait", 1))
        self.good_bars = pg.BarGraphItem(x=[0, 1], height=[0, 0], width=0.55, brush=brush("tool"), pen=pg.mkPen(None))
        p.addItem(self.finished_bars)
        p.addItem(self.good_bars)
        self.goodput_labels = [plot_text(anchor=(0.5, 1)) for _ in range(2)]
        for label in self.goodput_labels:
            p.addItem(label)
        return column(self.goodput_card, self.goodput_plot)

    def structure_handlers(self) -> dict:
        return {"cards.ced": self._on_ced_changed, "cards.goodput": self._on_goodput_changed}

    # ---- model -> widgets ------------------------------------------------------
    def _on_ced_changed(self) -> None:
        fresh = self._fresh("ced")
        if fresh is None:
            return
        fig = figures.ced_figure(*fresh)
        self.dense_curve.setData(fig["log_p"], fig["decoder_only"])
        self.ced_curve.setData(fig["log_p"], fig["ced"])
        self.ced_point.setData(*fig["point"])
        if fig["names"] != self._ced_names:  # set only when L, E or W change (the window translates what is set)
            self._ced_names = fig["names"]
            for sample, label in self.ced_legend.items:
                key = {id(self.dense_curve): "decoder_only", id(self.ced_curve): "ced"}.get(id(sample.item))
                if key is not None:
                    label.setText(fig["names"][key])
        self.ced_text.setText(fig["text"])
        self.ced_text.setPos(fig["log_p"][-1], fig["y_range"][1] * 0.98)
        self.ced_plot.plot.getAxis("bottom").setTicks([fig["ticks"]])
        self.ced_plot.plot.setXRange(fig["log_p"][0], fig["log_p"][-1], padding=0.02)
        self.ced_plot.plot.setYRange(*fig["y_range"], padding=0)

    def _on_goodput_changed(self) -> None:
        fresh = self._fresh("goodput")
        if fresh is None:
            return
        fig = figures.goodput_figure(*fresh)
        self.finished_bars.setOpts(x=fig["x"], height=fig["finished"])
        self.good_bars.setOpts(x=fig["x"], height=fig["good"])
        for label, (text, pos) in zip(self.goodput_labels, fig["labels"]):
            label.setText(text)
            label.setPos(*pos)
        self.goodput_plot.plot.getAxis("bottom").setTicks([fig["ticks"]])
        self.goodput_plot.plot.setYRange(*fig["y_range"], padding=0)
