"""The Voice panel's silence histogram: the gaps of all turns with the p50, p95 and p99 the
model reports, beside the book's two measured runs."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from widgets.kit.page import marker_line, plot_text
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import brush, pen
from widgets.voice.live_ranges import cache_axes, set_live_range

BOOK_MS = (370.0, 400.0)  # the book's two measured voice runs: user stops -> first chunk
BOOK_ROOM = 0.3  # the histogram's room left of the book's band, as a share of the data's span (its label's)


class SilenceHistogram:
    """Silence gaps over all turns, with the p50, p95 and p99 the model reports."""

    MARKS = (("p50", "silence_p50_ms", "prefill"), ("p95", "silence_p95_ms", "decode"),
             ("p99", "silence_p99_ms", "backlog"))

    def __init__(self):
        self.card = PlotCard("静默分布 · Silence over all turns", "用户说完 → 第一个声音 · user stops → first sound")
        self.card.plot_widget.setMinimumHeight(230)
        self.card.setMaximumHeight(390)
        p = self.card.plot
        p.setLabel("bottom", "静默 silence (ms)")
        p.setLabel("left", "轮次 turns")
        p.setMouseEnabled(y=False)
        self.bars = self.card.add_curve("silence_hist", pen=pen("muted", 1), fillLevel=0, brush=brush("wait", 150),
                                        stepMode="center")
        self.lines = {}
        for i, (name, _, kind) in enumerate(self.MARKS):
            self.lines[name] = marker_line(p, kind, label=name, position=0.92 - 0.1 * i, width=2)
        self.book = pg.LinearRegionItem(BOOK_MS, movable=False, brush=brush("tool", 40), pen=pg.mkPen(None))
        p.addItem(self.book)
        self.book_text = plot_text(anchor=(1, 0), kind="tool", size=8, text="书 book\n370–400")
        p.addItem(self.book_text)

    def set_live(self, on: bool) -> None:
        cache_axes(self.card.plot, on)

    def show(self, silences_ms: np.ndarray, summary: dict, live: bool = False) -> dict:
        """live: the bars and the marks move, their labels and the ranges (which only grow)
        wait for the full draw."""
        s = np.asarray(silences_ms, dtype=float)
        s = s[np.isfinite(s)]
        lo, hi = (float(s.min()), float(s.max())) if s.size else (0.0, 1.0)
        width = max(5.0, (hi - lo) / 40)
        edges = np.arange(np.floor(lo / width) * width, hi + 2 * width, width)
        counts, edges = np.histogram(s, bins=edges)
        self.bars.setData(edges, counts)
        marks = {}
        for name, key, _ in self.MARKS:
            value = summary.get(key)
            line = self.lines[name]
            line.setVisible(value is not None)
            if value is not None:
                line.setValue(float(value))
                line.label.setVisible(not live)
                if not live:
                    line.label.setFormat(f"{name} {float(value):.0f}")
                marks[name] = float(value)
        top = max(1, int(counts.max()) if counts.size else 1)
        right = max(hi, marks.get("p99", hi)) + 2 * width
        left = min(lo, BOOK_MS[0])
        left -= BOOK_ROOM * (right - left)  # room for the book's label left of its band
        p = self.card.plot
        if live:
            set_live_range(p, "x", (left, right), low_pad=0.3)  # left follows right (room for the book's label)
            set_live_range(p, "y", (0.0, top * 1.15))
        else:
            self.book_text.setPos(BOOK_MS[0] - 2, top * 0.9)
            p.setXRange(left, right, padding=0.02)
            p.setYRange(0, top * 1.15, padding=0)
        return {"counts": counts, "edges": edges, "marks": marks}
