"""The sections of the Agents panel that were there first (§3.2.1 and §3.2.4): where an edit
lands (drag it), serial vs parallel tools with the state they hold, Amdahl's cap on a local
speed-up, and branches sharing a prefix. A mixin of AgentsPanel; figures come from
core.agents.figures."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from core.agents import figures
from widgets.kit.calculator_card import CalculatorCard
from widgets.kit.page import column, marker_line, plot_text
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import brush, pen


class ClassicSections:
    """Edit reuse, critical path, Amdahl and branches: built by the *_section methods, drawn
    by the _on_*_changed handlers (CLASSIC_HANDLERS)."""

    def _edit_section(self) -> QtWidgets.QWidget:
        self.edit_card = CalculatorCard(self.state.card("edit"))
        self.edit_plot = PlotCard("改在哪儿才要紧 · what survives an edit", "drag the red line to the edit")
        p = self.edit_plot.plot
        p.hideAxis("left")
        p.setLabel("bottom", "token position")
        p.setYRange(-0.6, 1.6)
        p.setMouseEnabled(x=False, y=False)
        self.reused_bar = pg.BarGraphItem(x0=[0], x1=[0], y0=[0.2], y1=[0.8], brush=brush("state"), pen=pg.mkPen(None))
        self.invalid_bar = pg.BarGraphItem(x0=[0], x1=[0], y0=[0.2], y1=[0.8], brush=brush("backlog", 150), pen=pg.mkPen(None))
        self.appended_bar = pg.BarGraphItem(x0=[0], x1=[0], y0=[0.2], y1=[0.8], brush=brush("prefill"), pen=pg.mkPen(None))
        for item in (self.reused_bar, self.invalid_bar, self.appended_bar):
            p.addItem(item)
        self.edit_line = pg.InfiniteLine(angle=90, movable=True, pen=pen("backlog", 3), hoverPen=pen("backlog", 5))
        self.edit_line.setToolTip("Drag: the first changed token")
        p.addItem(self.edit_line)
        self.edit_text = plot_text(anchor=(0, 0))
        p.addItem(self.edit_text)
        return column(self.edit_card, self.edit_plot)

    def _path_section(self) -> QtWidgets.QWidget:
        self.path_card = CalculatorCard(self.state.card("path"))
        self.path_plot = PlotCard("图 3-11 / 3-12 · 工具有没有依赖", "model → tools → model; shaded: state held")
        p = self.path_plot.plot
        p.setLabel("bottom", "time (s)")
        p.getAxis("left").setTicks([[(1.0, "串行 serial"), (0.0, "并行 parallel")]])
        p.setYRange(-0.8, 1.8)
        p.setMouseEnabled(x=False, y=False)
        self.path_bars = {lane: {kind: pg.BarGraphItem(x0=[], x1=[], y0=[], y1=[], brush=brush(kind), pen=pen("paper", 1))
                                 for kind in ("prefill", "tool")} for lane in figures.LANES}
        self.state_bars = {lane: pg.BarGraphItem(x0=[0], x1=[0], y0=[y - 0.42], y1=[y - 0.3], brush=brush("state", 160),
                                                 pen=pg.mkPen(None)) for lane, y in figures.LANES.items()}
        self.path_labels = {lane: plot_text(anchor=(0, 0.5)) for lane in figures.LANES}
        for lane in figures.LANES:
            for item in self.path_bars[lane].values():
                p.addItem(item)
            p.addItem(self.state_bars[lane])
            p.addItem(self.path_labels[lane])
        return column(self.path_card, self.path_plot)

    def _amdahl_section(self) -> QtWidgets.QWidget:
        self.amdahl_card = CalculatorCard(self.state.card("amdahl"))
        self.amdahl_plot = PlotCard("例题 3-2 · 局部加速被原占比封顶", "saved share of the task vs local speed-up")
        p = self.amdahl_plot.plot
        p.setLogMode(x=True, y=False)
        p.setLabel("bottom", "speed-up of the part (×, log)")
        p.setLabel("left", "saved share of the whole task (%)")
        p.getAxis("left").enableAutoSIPrefix(False)
        p.getAxis("bottom").setTicks([figures.amdahl_ticks()])
        self.amdahl_curve = self.amdahl_plot.add_curve("saved", pen=pen("prefill", 2.5))
        self.amdahl_point = self.amdahl_plot.add_curve("current", pen=None, symbol="o", symbolSize=11,
                                                       symbolBrush=brush("decode"), symbolPen=pen("ink", 1))
        self.amdahl_cap = marker_line(p, "backlog", vertical=False, label="cap = f", position=0.1)
        return column(self.amdahl_card, self.amdahl_plot)

    def _branch_section(self) -> QtWidgets.QWidget:
        self.branch_card = CalculatorCard(self.state.card("branches"))
        self.branch_plot = PlotCard("图 3-13 · 分支共享前缀", "KV resident at once (GiB)", illustrative=True)
        p = self.branch_plot.plot
        p.setLabel("left", "GiB")
        p.getAxis("bottom").setTicks([[(0, "shared prefix"), (1, "a copy per branch")]])
        self.shared_bars = pg.BarGraphItem(x=[0, 1], height=[0, 0], width=0.55, brush=brush("state"))
        self.branch_bars = pg.BarGraphItem(x=[0, 1], height=[0, 0], y0=[0, 0], width=0.55, brush=brush("decode"))
        p.addItem(self.shared_bars)
        p.addItem(self.branch_bars)
        self.branch_labels = [plot_text(anchor=(0.5, 1)) for _ in range(2)]
        for label in self.branch_labels:
            p.addItem(label)
        return column(self.branch_card, self.branch_plot)

    def classic_handlers(self) -> dict:
        self.edit_line.sigPositionChangeFinished.connect(self._on_edit_dragged)
        return {"cards.edit": self._on_edit_changed, "cards.path": self._on_path_changed,
                "cards.amdahl": self._on_amdahl_changed, "cards.branches": self._on_branches_changed}

    # ---- model -> widgets ------------------------------------------------------
    def _on_edit_changed(self) -> None:
        fresh = self._fresh("edit")
        if fresh is None:
            return
        fig = figures.edit_figure(*fresh)
        for bar, key in ((self.reused_bar, "reused"), (self.invalid_bar, "invalid"), (self.appended_bar, "appended")):
            bar.setOpts(x0=[fig[key][0]], x1=[fig[key][1]])
        blocker = QtCore.QSignalBlocker(self.edit_line)
        self.edit_line.setValue(fig["handle"])
        del blocker
        self.edit_line.setBounds(fig["handle_bounds"])
        self.edit_text.setText(fig["text"])
        self.edit_text.setPos(*fig["text_pos"])
        self.edit_plot.plot.setXRange(*fig["x_range"], padding=0.02)

    def _on_path_changed(self) -> None:
        fresh = self._fresh("path")
        if fresh is None:
            return
        fig = figures.path_figure(*fresh)
        for lane, drawn in fig["lanes"].items():
            self.path_bars[lane]["prefill"].setOpts(**drawn["model"])
            self.path_bars[lane]["tool"].setOpts(**drawn["tool"])
            self.state_bars[lane].setOpts(x0=[drawn["held"][0]], x1=[drawn["held"][1]])
            self.path_labels[lane].setText(drawn["text"])
            self.path_labels[lane].setPos(*drawn["text_pos"])
        self.path_plot.plot.setXRange(*fig["x_range"], padding=0)

    def _on_amdahl_changed(self) -> None:
        fresh = self._fresh("amdahl")
        if fresh is None:
            return
        fig = figures.amdahl_figure(*fresh)
        self.amdahl_curve.setData(fig["speedups"], fig["saved_pct"])
        self.amdahl_point.setData(*fig["point"])
        self.amdahl_cap.setValue(fig["cap_pct"])
        self.amdahl_cap.label.setFormat(fig["cap_text"])
        self.amdahl_plot.plot.setYRange(*fig["y_range"], padding=0)

    def _on_branches_changed(self) -> None:
        fresh = self._fresh("branches")
        if fresh is None:
            return
        fig = figures.branch_figure(*fresh)
        self.shared_bars.setOpts(height=fig["base"])
        self.branch_bars.setOpts(y0=fig["base"], height=fig["branches"])
        for label, (text, pos) in zip(self.branch_labels, fig["labels"]):
            label.setText(text)
            label.setPos(*pos)
        self.branch_plot.plot.setYRange(*fig["y_range"], padding=0)

    # ---- widgets -> model ------------------------------------------------------
    def _on_edit_dragged(self) -> None:
        self.state.card("edit").update({"edit_position": figures.edit_position_of(self.edit_line.value())})
