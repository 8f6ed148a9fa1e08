"""§3.3.2 tab: the image-generation card, its loop diagram, and total FLOPs over the side of
a square image (steps scale the work linearly; resolution does not)."""
from __future__ import annotations

from PySide6 import QtWidgets

from core.state_model import CardModel
from widgets.kit.calculator_card import CalculatorCard
from widgets.kit.page import plot_text
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import brush, pen
from widgets.vision.diagrams import DiffusionLoopDiagram


class GenerationTab(QtWidgets.QWidget):
    def __init__(self, diffusion: CardModel, parent=None):
        super().__init__(parent)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(4, 6, 4, 6)
        self.diffusion_card = CalculatorCard(diffusion)
        lay.addWidget(self.diffusion_card)
        self.loop_diagram = DiffusionLoopDiagram()
        lay.addWidget(self.loop_diagram)
        self.diffusion_plot = PlotCard("总运算量 n_s·n_b·F_step(n_v):步数线性,分辨率不线性",
                                       "对数坐标;虚线 = 按像素线性外推(以 1024² 为基准)")
        p = self.diffusion_plot.plot
        p.setLogMode(x=True, y=True)
        p.setLabel("bottom", "边长 side (px), 正方形")
        p.setLabel("left", "FLOPs / 张图")
        p.addLegend(offset=(10, 10))
        self.diffusion_curve = self.diffusion_plot.add_curve("flops", pen=pen("decode", 2.5), name="DiT FLOPs")
        self.diffusion_linear = self.diffusion_plot.add_curve("linear", pen=pen("muted", 1.5, dashed=True),
                                                              name="按像素线性")
        self.diffusion_point = self.diffusion_plot.add_curve("current", pen=None, symbol="o", symbolSize=11,
                                                             symbolBrush=brush("backlog"), symbolPen=pen("ink", 1),
                                                             name="当前 H×W")
        self.diffusion_point_label = plot_text(anchor=(-0.08, 1.1), size=9, kind="backlog")
        p.addItem(self.diffusion_point_label)
        lay.addWidget(self.diffusion_plot)
        lay.addStretch(1)

    def draw(self, fig: dict) -> None:
        """fig: core.vision.figures.diffusion_figure."""
        self.loop_diagram.set_figure(fig["loop"])
        self.diffusion_curve.setData(fig["sides"], fig["flops"])
        self.diffusion_linear.setData(fig["sides"], fig["linear_flops"])
        self.diffusion_point.setData([fig["point"][0]], [fig["point"][1]])
        # Text items live in the plot's log coordinates.
        self.diffusion_point_label.setPos(*fig["label_pos"])
        self.diffusion_point_label.setText(fig["label"])
