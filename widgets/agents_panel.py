"""§3.2 multi-turn and agents: where an edit lands (drag it), serial vs parallel tools with
the state they hold, Amdahl's cap on a local speed-up, and branches sharing a prefix."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets

from core import agents
from core.units import GiB, format_seconds
from widgets.calculator_card import CalculatorCard
from widgets.page import column, marker_line, plot_text, scroll_page, two_column_grid
from widgets.panels import PanelInfo
from widgets.plot_card import PlotCard
from widgets.theme import brush, pen

_LANES = {"serial": 1.0, "parallel": 0.0}


class AgentsPanel(QtWidgets.QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self._build_ui()
        self._connect()
        self.refresh()

    def _build_ui(self) -> None:
        layout = scroll_page(self, "§3.2 多轮交互与 Agent 任务 · Multi-turn & Agents")
        layout.addLayout(two_column_grid([self._edit_section(), self._path_section(), self._amdahl_section(), self._branch_section()]))
        layout.addStretch(1)

    def _edit_section(self) -> QtWidgets.QWidget:
        self.edit_card = CalculatorCard(agents.EDIT)
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
        self.path_card = CalculatorCard(agents.CRITICAL_PATH)
        self.path_plot = PlotCard("图 3-11 / 3-12 · 工具有没有依赖", "model → tools → model; shaded: state held")
        p = self.path_plot.plot
        p.setLabel("bottom", "time (s)")
        p.getAxis("left").setTicks([[(1.0, "串行 serial"), (0.0, "并行 parallel")]])
        p.setYRange(-0.8, 1.8)
        p.setMouseEnabled(x=False, y=False)
        self.path_bars = {lane: {kind: pg.BarGraphItem(x0=[], x1=[], y0=[], y1=[], brush=brush(kind), pen=pen("paper", 1))
                                 for kind in ("prefill", "tool")} for lane in _LANES}
        self.state_bars = {lane: pg.BarGraphItem(x0=[0], x1=[0], y0=[y - 0.42], y1=[y - 0.3], brush=brush("state", 160),
                                                 pen=pg.mkPen(None)) for lane, y in _LANES.items()}
        self.path_labels = {lane: plot_text(anchor=(0, 0.5)) for lane in _LANES}
        for lane in _LANES:
            for item in self.path_bars[lane].values():
                p.addItem(item)
            p.addItem(self.state_bars[lane])
            p.addItem(self.path_labels[lane])
        return column(self.path_card, self.path_plot)

    def _amdahl_section(self) -> QtWidgets.QWidget:
        self.amdahl_card = CalculatorCard(agents.AMDAHL)
        self.amdahl_plot = PlotCard("例题 3-2 · 局部加速被原占比封顶", "saved share of the task vs local speed-up")
        p = self.amdahl_plot.plot
        p.setLogMode(x=True, y=False)
        p.setLabel("bottom", "speed-up of the part (×, log)")
        p.setLabel("left", "saved share of the whole task (%)")
        p.getAxis("left").enableAutoSIPrefix(False)
        p.getAxis("bottom").setTicks([[(np.log10(x), f"{x:g}×") for x in (1, 2, 4, 10, 30, 100, 1000)]])
        self.amdahl_curve = self.amdahl_plot.add_curve("saved", pen=pen("prefill", 2.5))
        self.amdahl_point = self.amdahl_plot.add_curve("current", pen=None, symbol="o", symbolSize=11,
                                                       symbolBrush=brush("decode"), symbolPen=pen("ink", 1))
        self.amdahl_cap = marker_line(p, "backlog", vertical=False, label="cap = f", position=0.1)
        return column(self.amdahl_card, self.amdahl_plot)

    def _branch_section(self) -> QtWidgets.QWidget:
        self.branch_card = CalculatorCard(agents.BRANCHES)
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

    def _connect(self) -> None:
        self.edit_card.computed.connect(lambda _: self._refresh_edit())
        self.edit_line.sigPositionChangeFinished.connect(self._on_edit_dragged)
        self.path_card.computed.connect(lambda _: self._refresh_path())
        self.amdahl_card.computed.connect(lambda _: self._refresh_amdahl())
        self.branch_card.computed.connect(lambda _: self._refresh_branches())

    def refresh(self) -> None:
        self._refresh_edit()
        self._refresh_path()
        self._refresh_amdahl()
        self._refresh_branches()

    def _refresh_edit(self) -> None:
        v, r = self.edit_card.values(), self.edit_card.result
        n, reused, added = v["context_tokens"], r["reusable_prefix_tokens"], v["appended_tokens"]
        self.reused_bar.setOpts(x0=[0], x1=[reused])
        self.invalid_bar.setOpts(x0=[reused], x1=[n])
        self.appended_bar.setOpts(x0=[n], x1=[n + added])
        self.edit_line.blockSignals(True)
        self.edit_line.setValue(reused)
        self.edit_line.blockSignals(False)
        self.edit_line.setBounds((0, n))
        self.edit_text.setText(f"reused {reused:,} · recompute {r['recompute_tokens']:,} tokens "
                               f"({r['reuse_fraction']:.1%} hit)")
        self.edit_text.setPos(0, 1.5)
        self.edit_plot.plot.setXRange(0, max(n + added, 1), padding=0.02)

    def _on_edit_dragged(self) -> None:
        self.edit_card.set_value("edit_position", int(round(self.edit_line.value())) + 1)

    def _refresh_path(self) -> None:
        v, r = self.path_card.values(), self.path_card.result
        m1, a, b, m2 = v["model_before_s"], v["tool_a_s"], v["tool_b_s"], v["model_after_s"]
        layouts = {
            "serial": ([(0, m1), (m1 + a + b, m1 + a + b + m2)], [(m1, m1 + a, 0), (m1 + a, m1 + a + b, 0)], (m1, m1 + a + b)),
            "parallel": ([(0, m1), (m1 + max(a, b), m1 + max(a, b) + m2)], [(m1, m1 + a, 0.17), (m1, m1 + b, -0.17)],
                         (m1, m1 + max(a, b))),
        }
        for lane, (models, tools, held) in layouts.items():
            y = _LANES[lane]
            self.path_bars[lane]["prefill"].setOpts(x0=[s for s, _ in models], x1=[e for _, e in models],
                                                    y0=[y - 0.25] * 2, y1=[y + 0.25] * 2)
            half = 0.25 if lane == "serial" else 0.14
            self.path_bars[lane]["tool"].setOpts(x0=[s for s, _, _ in tools], x1=[e for _, e, _ in tools],
                                                 y0=[y + dy - half for _, _, dy in tools],
                                                 y1=[y + dy + half for _, _, dy in tools])
            self.state_bars[lane].setOpts(x0=[held[0]], x1=[held[1]])
            total = r["serial_s"] if lane == "serial" else r["parallel_s"]
            area = r[f"{lane}_state_byte_s"] / GiB
            self.path_labels[lane].setText(f"{format_seconds(total)} · {area:g} GiB·s")
            self.path_labels[lane].setPos(total, y)
        self.path_plot.plot.setXRange(0, r["serial_s"] * 1.3, padding=0)

    def _refresh_amdahl(self) -> None:
        v, r = self.amdahl_card.values(), self.amdahl_card.result
        f = v["part_fraction"]
        s = np.logspace(0, 3, 200)
        self.amdahl_curve.setData(s, 100 * f * (1 - 1 / s))
        self.amdahl_point.setData([v["speedup"]], [100 * r["saved_fraction"]])
        self.amdahl_cap.setValue(100 * f)
        self.amdahl_cap.label.setFormat(f"cap = f = {f:.1%}")
        self.amdahl_plot.plot.setYRange(0, max(f, 0.05) * 115, padding=0)

    def _refresh_branches(self) -> None:
        v, r = self.branch_card.values(), self.branch_card.result
        prefix_bytes = v["kv_bytes_per_token"] * v["shared_prefix_tokens"]
        shared = [prefix_bytes / GiB, r["unshared_state_bytes"] / GiB - (r["state_bytes"] - prefix_bytes) / GiB]
        branches = (r["state_bytes"] - prefix_bytes) / GiB
        self.shared_bars.setOpts(height=shared)
        self.branch_bars.setOpts(y0=shared, height=[branches, branches])
        totals = [r["state_bytes"] / GiB, r["unshared_state_bytes"] / GiB]
        for label, x, total in zip(self.branch_labels, (0, 1), totals):
            label.setText(f"{total:.3g} GiB")
            label.setPos(x, total)
        self.branch_plot.plot.setYRange(0, max(totals) * 1.2, padding=0)


PANEL = PanelInfo(key="agents", title="多轮与 Agent · Multi-turn & Agents", section="3.2", order=2.0,
                  factory=AgentsPanel)
