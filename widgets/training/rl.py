"""The RL page below the pipeline: 例题 3-4's cycle against answers generated (with 练习
3-7's two measurements), group-relative advantages, and how a loss is averaged."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtWidgets

from core.training.rl import figures as rl_figures
from widgets.kit.calculator_card import CalculatorCard
from widgets.kit.page import column, plot_text
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import COLORS, brush, pen
from widgets.training.kit import Section, caption


class CycleSection(Section):
    paths = ("cards.cycle", "cards.marginal")

    def __init__(self, panel, grid: QtWidgets.QLayout):
        super().__init__(panel)
        self._grid = grid

    def build(self):
        self.card = CalculatorCard(self.state.card("cycle"), compact=True)
        yield
        self.plot = PlotCard("例题 3-4 · F_cycle(n) = n(f_g + f_r) + F_u", "n_generate ≈ n_keep / a")
        yield  # a plot is the largest piece; its items come next turn
        c = self.plot.plot
        c.setLabel("bottom", "answers generated n")
        c.setLabel("left", "TFLOPs per cycle")
        c.setMouseEnabled(x=False, y=False)
        c.addLegend(offset=(6, 6))
        self.curves = {}
        for key, kind, name in (("total", "decode", "生成 generation f_g"), ("ref_top", "prefill", "参考 reference f_r"),
                                ("update", "state", "更新 update F_u")):
            self.curves[key] = self.plot.add_curve(key, pen=pen(kind, 1.5), fillLevel=0, brush=brush(kind, 150), name=name)
        self.curves["update"].setZValue(3)
        self.curves["ref_top"].setZValue(2)
        self.marker = pg.ScatterPlotItem(size=11, brush=brush("backlog"), pen=pen("paper", 1))
        self.marker.setZValue(10)
        c.addItem(self.marker)
        self.text = plot_text(anchor=(0, 1), size=9)
        self.text.setZValue(10)
        c.addItem(self.text)
        self.exercise_points = pg.ScatterPlotItem(size=9, symbol="d", brush=brush("ink"), pen=pen("paper", 1))
        self.exercise_points.setZValue(10)
        c.addItem(self.exercise_points)
        self._grid.addWidget(column(self.card, self.plot), 0, 0)
        yield
        self.marginal_card = CalculatorCard(self.state.card("marginal"), compact=True)
        marginal_col = column(self.marginal_card, caption(
            "练习 3-7:两次测量的周期总量连成直线,斜率 = 每条回答的 f_g + f_r,截距 = 一次更新 F_u(图中 ◆)。"
            "同结构教师对每条回答前向一次;权重独立发给每个副本。"), stretch_last=False)
        marginal_col.layout().addStretch(1)
        self._grid.addWidget(marginal_col, 0, 1)

    def refresh(self) -> None:
        cycle, marginal = self.state.card("cycle"), self.state.card("marginal")
        fig = rl_figures.cycle_figure(cycle.inputs, cycle.result, marginal.inputs, marginal.result)
        self.curves["update"].setData(fig.n, fig.update)
        self.curves["ref_top"].setData(fig.n, fig.ref_top)
        self.curves["total"].setData(fig.n, fig.total)
        self.marker.setData([fig.marker[0]], [fig.marker[1]])
        self.text.setText(fig.text)
        self.text.setPos(*fig.marker)
        self.exercise_points.setData(fig.exercise_x, fig.exercise_y)
        self.plot.plot.setXRange(0, fig.x_max, padding=0.01)
        self.panel.figure_drawn.emit("cycle")


class AdvantageSection(Section):
    paths = ("cards.advantage",)

    def __init__(self, panel, grid: QtWidgets.QLayout):
        super().__init__(panel)
        self._grid = grid

    def build(self):
        self.card = CalculatorCard(self.state.card("advantage"), compact=True)
        buttons = QtWidgets.QWidget()
        bl = QtWidgets.QHBoxLayout(buttons)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addWidget(QtWidgets.QLabel("点击切换对错 · click to flip:"))
        self.reward_buttons: list[QtWidgets.QPushButton] = []
        for i in range(rl_figures.MAX_REWARD_BUTTONS):
            b = QtWidgets.QPushButton()
            b.setObjectName(f"reward_button_{i}")
            b.setFixedWidth(44)
            b.clicked.connect(lambda _=False, i=i: self._flip(i))
            self.reward_buttons.append(b)
            bl.addWidget(b)
        bl.addStretch(1)
        yield
        self.plot = PlotCard("相同奖励,学习信号归零", "advantage = reward − group mean")
        yield  # a plot is the largest piece; its items come next turn
        a = self.plot.plot
        a.setLabel("left", "value")
        a.setMouseEnabled(x=False, y=False)
        self.reward_bars = pg.BarGraphItem(x=[], height=[], width=0.35, brush=brush("wait", 200), pen=pg.mkPen(None))
        self.advantage_bars = pg.BarGraphItem(x=[], height=[], width=0.35, pen=pg.mkPen(None), brush=brush("tool"))
        a.addItem(self.reward_bars)
        a.addItem(self.advantage_bars)
        leg = a.addLegend(offset=(-6, 6))
        leg.addItem(self.reward_bars, "奖励 reward")
        leg.addItem(self.advantage_bars, "优势 advantage")
        self.mean_line = pg.InfiniteLine(angle=0, pen=pen("muted", 1.2, dashed=True), label="group mean",
                                         labelOpts={"position": 0.05, "color": COLORS["muted"]})
        a.addItem(self.mean_line)
        a.addItem(pg.InfiniteLine(pos=0, angle=0, pen=pen("ink", 1)))
        self.zero_banner = QtWidgets.QLabel()
        self.zero_banner.setObjectName("zero_banner")
        self.zero_banner.setWordWrap(True)
        col = column(self.card, buttons, self.plot, self.zero_banner, stretch_last=False)
        col.layout().setStretch(2, 1)
        self._grid.addWidget(col, 1, 0)
        yield

    def refresh(self) -> None:
        card = self.state.card("advantage")
        fig = rl_figures.advantage_figure(card.inputs, card.result)
        self.reward_bars.setOpts(x=fig.x - 0.19, height=fig.rewards)
        brushes = [brush("tool" if p else "backlog", 220) for p in fig.positive]
        self.advantage_bars.setOpts(x=fig.x + 0.19, height=fig.advantages, brushes=brushes)
        self.mean_line.setValue(fig.group_mean)
        self.plot.plot.getAxis("bottom").setTicks([fig.ticks])
        self.plot.plot.setYRange(*fig.y_range, padding=0)
        self.plot.plot.setXRange(*fig.x_range, padding=0)
        for i, b in enumerate(self.reward_buttons):
            b.setVisible(i < len(fig.buttons))
            if i < len(fig.buttons):
                b.setText(fig.buttons[i])
        if fig.zero_signal:
            self.zero_banner.setText(f"<span style='color:{COLORS['backlog']}; font-weight:600'>{fig.banner}</span>:"
                                     "生成、评分、更新都做了,这组却没学到区分优劣的信号。")
        else:
            self.zero_banner.setText(fig.banner)
        self.panel.figure_drawn.emit("advantage")

    def _flip(self, i: int) -> None:
        card = self.state.card("advantage")
        self.card.set_value("rewards", rl_figures.flipped_rewards(card.inputs["rewards"], i))


class LossSection(Section):
    paths = ("cards.loss",)

    def __init__(self, panel, grid: QtWidgets.QLayout):
        super().__init__(panel)
        self._grid = grid

    def build(self):
        self.card = CalculatorCard(self.state.card("loss"), compact=True)
        yield
        self.plot = PlotCard("损失的平均方式 · weight of one token", "per micro-batch")
        yield  # a plot is the largest piece; its items come next turn
        lp = self.plot.plot
        lp.setLabel("left", "weight of one token")
        lp.setMouseEnabled(x=False, y=False)
        self.weight_token_bars = pg.BarGraphItem(x=[], height=[], width=0.35, brush=brush("prefill", 210), pen=pg.mkPen(None))
        self.weight_mom_bars = pg.BarGraphItem(x=[], height=[], width=0.35, brush=brush("decode", 210), pen=pg.mkPen(None))
        lp.addItem(self.weight_token_bars)
        lp.addItem(self.weight_mom_bars)
        leg = lp.addLegend(offset=(-6, 6))
        leg.addItem(self.weight_token_bars, "token mean (Σ n 作分母)")
        leg.addItem(self.weight_mom_bars, "mean of means")
        self.caption = caption("")
        col = column(self.card, self.plot, self.caption, stretch_last=False)
        col.layout().setStretch(1, 1)
        self._grid.addWidget(col, 1, 1)
        yield

    def refresh(self) -> None:
        card = self.state.card("loss")
        fig = rl_figures.loss_figure(card.inputs, card.result)
        self.weight_token_bars.setOpts(x=fig.x - 0.19, height=fig.weight_token_mean)
        self.weight_mom_bars.setOpts(x=fig.x + 0.19, height=fig.weight_mean_of_means)
        self.plot.plot.getAxis("bottom").setTicks([fig.ticks])
        self.plot.plot.setXRange(*fig.x_range, padding=0)
        self.plot.plot.setYRange(*fig.y_range, padding=0)
        self.caption.setText(fig.caption)
        self.panel.figure_drawn.emit("loss")
