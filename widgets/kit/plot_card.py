"""A titled card around one pyqtgraph plot, with export to PNG, SVG, PDF and CSV (the ⤓ Export
button and the plot's right-click menu; widgets/kit/export.py does the writing).

Curves are created once through add_curve and updated with setData afterwards (STYLE.md §6).
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtWidgets

from widgets.kit.export import export_plot
from widgets.kit.export_menu import add_plot_menu, plot_export_menu
from widgets.kit.lazy_menus import plot_widget
from widgets.kit.page import Reflow
from widgets.kit.theme import COLORS, ILLUSTRATIVE_TAG, setup_pyqtgraph


class PlotCard(QtWidgets.QFrame):
    def __init__(self, title: str, subtitle: str = "", illustrative: bool = False, parent=None):
        super().__init__(parent)
        setup_pyqtgraph()
        self.setProperty("role", "card")
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        header = QtWidgets.QHBoxLayout()
        self.title_label = QtWidgets.QLabel(f"<b>{title}</b>")
        self.title_label.setWordWrap(True)  # a narrow column wraps the title, never widens the page
        self.subtitle_label = QtWidgets.QLabel(subtitle, self)  # a parent first: shown alone it would be a window
        self.subtitle_label.setProperty("role", "caption")
        self.subtitle_label.setWordWrap(True)
        self.subtitle_label.setVisible(bool(subtitle))
        # The subtitle beside the title when both fit, under it when not.
        header.addWidget(Reflow(self.title_label, self.subtitle_label, natural=True, grow=1, spacing=8, hfw=False), 1)
        if illustrative:
            tag = QtWidgets.QLabel(f"数值为{ILLUSTRATIVE_TAG}")
            tag.setProperty("role", "tag")
            tag.setToolTip("The values in this figure are illustrative (示意), as the book marks them.")
            header.addWidget(tag)
        self.plot_widget = plot_widget()  # its right-click menus come with the first right-click
        self.export_button = QtWidgets.QToolButton()
        self.export_button.setText("⤓")  # small: card headers share a narrow column
        self.export_button.setToolTip("Export this plot: PNG, SVG or PDF, or its data as CSV (also on right-click)")
        self.export_button.setAccessibleName("Export plot")
        self.export_button.setPopupMode(QtWidgets.QToolButton.ToolButtonPopupMode.InstantPopup)
        self.export_button.setMenu(plot_export_menu(self, self, title))
        header.addWidget(self.export_button)
        layout.addLayout(header)
        self.plot_widget.setMinimumHeight(220)
        self.plot: pg.PlotItem = self.plot_widget.getPlotItem()
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        self.plot.getAxis("left").setTextPen(COLORS["ink"])
        self.plot.getAxis("bottom").setTextPen(COLORS["ink"])
        layout.addWidget(self.plot_widget, 1)
        self.curves: dict[str, pg.PlotDataItem] = {}
        add_plot_menu(self.plot_widget, self, title)  # the same entries on right-click

    def set_title(self, title: str) -> None:
        self.title_label.setText(f"<b>{title}</b>")

    def set_subtitle(self, subtitle: str) -> None:
        self.subtitle_label.setText(subtitle)
        self.subtitle_label.setVisible(bool(subtitle))

    def add_curve(self, key: str, **kwargs) -> pg.PlotDataItem:
        curve = self.plot.plot([], [], **kwargs)
        self.curves[key] = curve
        return curve

    def export(self, path: str, fmt: str | None = None):
        """Write the plot (png, svg, pdf) or its data (csv) to path; fmt defaults to the
        suffix. Atomic; raises widgets.kit.export.ExportError with the reason."""
        return export_plot(self, path, fmt)
