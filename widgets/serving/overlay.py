"""Measured against simulated: for a `vllm bench serve --save-result` trace, the measured TTFT
and ITL distributions beside replay A's, one axis each (CDFs computed in
core.serving.overlay_figures). Hidden when the trace carries no measured values; the
curves are made once and set with setData."""
from __future__ import annotations

from PySide6 import QtWidgets

from core.serving import overlay_figures
from widgets.kit.jobs import jobs
from widgets.kit.page import ReflowLayout, fixed_lines
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import pen
from widgets.serving.replay_plots import narrow_header
from widgets.serving.trace_source import in_language

PANELS = (("ttft", "TTFT 分布:实测 vs 模拟 · TTFT: measured vs simulated", "TTFT"),
          ("itl", "ITL(token 间隔)分布:实测 vs 模拟 · ITL: measured vs simulated", "ITL"))


class OverlayPlots(QtWidgets.QWidget):
    """Hidden, and without plots, until a first measured overlay is drawn: most traces carry
    nothing measured, and its two plots cost a first visit about 0.1 s of the GUI thread."""

    def __init__(self, key: str, parent=None):
        super().__init__(parent)
        self.key = key
        self._of = None  # the replay figure the overlay shows
        self._layout = ReflowLayout(self, columns=2, min_column_em=24)
        self.cards: dict[str, PlotCard] = {}
        self.notes: dict[str, QtWidgets.QLabel] = {}  # p50/p90/p99 of both, under the plot (clear of the curves)
        self.figure: dict | None = None
        self.setVisible(False)

    def _build_plots(self) -> None:
        for key, title, axis in PANELS:
            card = narrow_header(PlotCard(title, "累积分布 · fraction of samples ≤ x (CDF)"))
            card.plot_widget.setMinimumHeight(220)
            p = card.plot
            p.setLabel("left", "占比 · fraction")
            p.setLabel("bottom", f"{axis} (ms)")
            p.setYRange(0, 1.02, padding=0)
            p.setMouseEnabled(x=False, y=False)
            p.addLegend(offset=(10, 10))  # top left: the one corner a CDF leaves empty
            card.add_curve("measured", pen=pen("ink", 2.5, dashed=True), name="实测 measured (vllm bench)")
            card.add_curve("simulated", pen=pen("prefill", 2.5), name="模拟 simulated (A)")
            note = QtWidgets.QLabel("")
            note.setObjectName(f"overlay_note_{key}")
            note.setProperty("role", "caption")
            fixed_lines(note, 3)
            card.layout().addWidget(note)
            self.cards[key], self.notes[key] = card, note
            self._layout.addWidget(card)

    def submit(self, side) -> None:
        """Compute the overlay of a replay figure (core.serving.figures.ReplaySide) on the job
        runner when its workload carries measured values; hide it when not."""
        meta = side.workload.meta if side.workload is not None else None
        if overlay_figures.measured_samples(meta) is None:
            jobs().cancel(self.key)
            self._of = None
            self.draw(None)
        elif side is not self._of:
            self._of = side
            jobs().submit(self.key, overlay_figures.overlay_figure, meta, side.result, side.config.cost,
                          context=self, done=self.draw)

    def draw(self, fig: dict | None) -> None:
        """Draw an overlay figure, or hide (None: nothing measured)."""
        self.figure = fig
        if fig is not None and not self.cards:
            self._build_plots()
        if fig is not None and not self.isVisible():
            in_language(self)  # texts set while hidden
        self.setVisible(fig is not None)
        if fig is None:
            return
        for key, card in self.cards.items():
            panel = fig[key]
            card.curves["measured"].setData(*panel["measured_steps"])
            card.curves["simulated"].setData(*panel["simulated_steps"])
            lo, hi = panel["x_range"]
            card.plot.setXRange(lo, hi, padding=0.01)
            m, n = f"{panel['measured_n']:,}", f"{panel['simulated_n']:,}"
            card.set_subtitle(f"{m} 个实测样本与 {n} 个模拟样本的 CDF · CDF of {m} measured vs {n} simulated samples")
            self.notes[key].setText(panel["note"].replace("\n", "<br>"))
