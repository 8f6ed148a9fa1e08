"""A titled card around one pyqtgraph plot, with export to PNG and CSV.

Curves are created once through add_curve and updated with setData afterwards (STYLE.md §6).
"""
from __future__ import annotations

import csv

import numpy as np
import pyqtgraph as pg
from pyqtgraph.exporters import ImageExporter
from PySide6 import QtWidgets

from widgets.theme import COLORS, ILLUSTRATIVE_TAG, setup_pyqtgraph


class PlotCard(QtWidgets.QFrame):
    def __init__(self, title: str, subtitle: str = "", illustrative: bool = False, parent=None):
        super().__init__(parent)
        setup_pyqtgraph()
        self.setProperty("role", "card")
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        header = QtWidgets.QHBoxLayout()
        self.title_label = QtWidgets.QLabel(f"<b>{title}</b>")
        header.addWidget(self.title_label)
        self.subtitle_label = QtWidgets.QLabel(subtitle)
        self.subtitle_label.setProperty("role", "caption")
        self.subtitle_label.setVisible(bool(subtitle))
        header.addWidget(self.subtitle_label)
        header.addStretch(1)
        if illustrative:
            tag = QtWidgets.QLabel(f"数值为{ILLUSTRATIVE_TAG}")
            tag.setProperty("role", "tag")
            tag.setToolTip("The values in this figure are illustrative (示意), as the book marks them.")
            header.addWidget(tag)
        self.export_button = QtWidgets.QToolButton()
        self.export_button.setText("Export")
        self.export_button.setPopupMode(QtWidgets.QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QtWidgets.QMenu(self.export_button)
        menu.addAction("PNG image…", self._export_png_dialog)
        menu.addAction("CSV data…", self._export_csv_dialog)
        self.export_button.setMenu(menu)
        header.addWidget(self.export_button)
        layout.addLayout(header)
        self.plot_widget = pg.PlotWidget()
        self.plot_widget.setMinimumHeight(220)
        self.plot: pg.PlotItem = self.plot_widget.getPlotItem()
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        self.plot.getAxis("left").setTextPen(COLORS["ink"])
        self.plot.getAxis("bottom").setTextPen(COLORS["ink"])
        layout.addWidget(self.plot_widget, 1)
        self.curves: dict[str, pg.PlotDataItem] = {}

    def set_title(self, title: str) -> None:
        self.title_label.setText(f"<b>{title}</b>")

    def set_subtitle(self, subtitle: str) -> None:
        self.subtitle_label.setText(subtitle)
        self.subtitle_label.setVisible(bool(subtitle))

    def add_curve(self, key: str, **kwargs) -> pg.PlotDataItem:
        curve = self.plot.plot([], [], **kwargs)
        self.curves[key] = curve
        return curve

    def export_png(self, path: str, width: int = 1600) -> None:
        exporter = ImageExporter(self.plot)
        exporter.parameters()["width"] = width
        exporter.export(path)

    def export_csv(self, path: str) -> None:
        """All named curves side by side: key_x, key_y columns."""
        columns: list[tuple[str, np.ndarray]] = []
        for key, curve in self.curves.items():
            x, y = curve.getData()
            if x is None:
                continue
            columns += [(f"{key}_x", np.asarray(x)), (f"{key}_y", np.asarray(y))]
        length = max((len(c) for _, c in columns), default=0)
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow([name for name, _ in columns])
            for i in range(length):
                writer.writerow([c[i] if i < len(c) else "" for _, c in columns])

    def _export_png_dialog(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Export plot", "plot.png", "PNG (*.png)")
        if path:
            self.export_png(path)

    def _export_csv_dialog(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Export data", "plot.csv", "CSV (*.csv)")
        if path:
            self.export_csv(path)
