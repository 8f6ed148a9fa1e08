"""Export what the lab draws: a widget (a panel, the window, one plot) as PNG, SVG or PDF
through Qt's own painters, and a plot's data as CSV.

SVG and PDF are vector: the widgets paint themselves into QSvgGenerator / QPdfWriter, each
clipped to what is on screen (widgets/kit/vector_render.py), so text stays text and lines stay
lines (pyqtgraph's own SVG exporter crashes with this PySide6, see notes/dependencies.md).
A PNG is the widget as shown on screen, pixel for pixel.

Every write is atomic (core/atomic_file.py): the file is rendered in memory, written to a
temporary file in the target folder and renamed over the target, so a failed export leaves no half-written file
and no temporary file behind. Failures raise ExportError (an OSError) with a message that
names the path and what is wrong with it.
"""
from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from core import atomic_file
from widgets.kit import vector_render

IMAGE_FORMATS = ("png", "svg", "pdf")
PLOT_FORMATS = IMAGE_FORMATS + ("csv",)
FILTERS = {"png": "PNG image (*.png)", "svg": "SVG vector image (*.svg)", "pdf": "PDF document (*.pdf)",
           "csv": "CSV data (*.csv)"}


class ExportError(OSError):
    """An export that could not be written; the message says why, naming the path."""


# ---- formats and atomic writes ---------------------------------------------------------
def export_format(path: str | os.PathLike, fmt: str | None = None, allowed: tuple = IMAGE_FORMATS) -> str:
    """The format to write: fmt when given, else the path's suffix when it is one of
    allowed, else png."""
    if fmt:
        fmt = fmt.lower().lstrip(".")
        if fmt not in allowed:
            raise ExportError(f"format {fmt!r}; valid: {', '.join(allowed)}")
        return fmt
    suffix = Path(path).suffix.lower().lstrip(".")
    return suffix if suffix in allowed else "png"


def check_target(path: str | os.PathLike) -> Path:
    """path as a file that can be written: not a folder, in a folder that exists. Raises
    ExportError otherwise (before any rendering is done)."""
    target = Path(path).expanduser()
    if not str(path).strip():
        raise ExportError("no file name given")
    if target.is_dir():
        raise ExportError(f"{path} is a folder; give a file name in it")
    folder = target.parent.resolve()
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise ExportError(f"{path}: the folder {folder} {what}")
    return target


def write_atomic(path: str | os.PathLike, data: bytes) -> Path:
    """Write data to path whole or not at all (core.atomic_file): ExportError naming the
    path and the reason when it cannot be written."""
    target = check_target(path)
    try:
        atomic_file.write_atomic(target, data)
    except OSError as err:
        folder = os.path.dirname(os.path.abspath(target))
        where = f"cannot write in the folder {folder}" if err.filename == folder else f"could not write {path}"
        raise ExportError(f"{where}: {err.strerror or err}") from None
    return target


# ---- rendering ---------------------------------------------------------------------------
def write_widget(widget: QtWidgets.QWidget, path: str | os.PathLike, fmt: str | None = None) -> Path:
    """Render widget as it is shown (children included) to path as png, svg or pdf
    (fmt, else the path's suffix, else png); atomic. Page size = widget size."""
    fmt = export_format(path, fmt)
    check_target(path)  # a bad path is refused before the rendering
    return write_atomic(path, encode(paint_widget(widget, fmt)))


def paint_widget(widget: QtWidgets.QWidget, fmt: str, title: str | None = None) -> QtGui.QImage | bytes:
    """The GUI-thread half of an export: a PNG's pixels (a QImage, encoded by encode(),
    which may run on a worker), or the finished SVG or PDF bytes (widgets/kit/vector_render.py)
    titled title (else the window's title)."""
    title = title or widget.windowTitle() or "Load Lab"
    if fmt == "png":
        return widget.grab().toImage()
    if fmt == "svg":
        return vector_render.svg_bytes(widget, title)
    if fmt == "pdf":
        return vector_render.pdf_bytes(widget, title)
    raise ExportError(f"format {fmt!r}; valid: {', '.join(IMAGE_FORMATS)}")


def encode(painted: QtGui.QImage | bytes) -> bytes:
    """The file's bytes: a QImage as PNG (safe on a worker thread), bytes as they are."""
    if isinstance(painted, QtGui.QImage):
        buffer = QtCore.QBuffer()
        buffer.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
        if not painted.save(buffer, "PNG"):
            raise ExportError("Qt could not encode the PNG")
        painted = bytes(buffer.data())
    if not painted:
        raise ExportError("Qt wrote an empty file")
    return painted


# ---- plots ---------------------------------------------------------------------------------
def plot_view(plot) -> pg.GraphicsView:
    """The pyqtgraph view of a plot given as a PlotCard (anything with .plot_widget), a
    GraphicsView (PlotWidget, GraphicsLayoutWidget) or a PlotItem/ViewBox on screen."""
    view = getattr(plot, "plot_widget", plot)
    if isinstance(view, QtWidgets.QGraphicsView):
        return view
    if isinstance(view, QtWidgets.QGraphicsItem) and view.scene() is not None and view.scene().views():
        return view.scene().views()[0]
    raise TypeError(f"not a plot: {plot!r}")


def export_plot(plot, path: str | os.PathLike, fmt: str | None = None, names: dict | None = None) -> Path:
    """Write one plot to path: png/svg/pdf of the plot as shown, or csv of the data it draws
    (fmt, else the path's suffix, else png); atomic. names: {item: column name} for items
    with neither a legend label nor a name() (a PlotCard's curve keys by default)."""
    fmt = export_format(path, fmt, PLOT_FORMATS)
    check_target(path)
    return write_atomic(path, encode(paint_plot(plot, fmt, names)))


def paint_plot(plot, fmt: str, names: dict | None = None) -> QtGui.QImage | bytes:
    """The GUI-thread half of a plot export (see paint_widget); csv gives the finished bytes."""
    view = plot_view(plot)
    if fmt != "csv":
        return paint_widget(view, fmt, plot_title(plot))
    if names is None:
        names = {curve: key for key, curve in getattr(plot, "curves", {}).items()}
    return plot_csv(view, names).encode("utf-8")


def plot_title(plot) -> str | None:
    """The figure's title as its card shows it (a vector file's title), else None."""
    widget = plot if isinstance(plot, QtWidgets.QWidget) else plot_view(plot)
    while widget is not None and not hasattr(widget, "title_label"):
        widget = widget.parentWidget()
    if widget is None:
        return None
    doc = QtGui.QTextDocument()
    doc.setHtml(widget.title_label.text())
    return doc.toPlainText().strip() or None


def plot_columns(view: pg.GraphicsView, names: dict | None = None) -> list[tuple[str, np.ndarray]]:
    """The data a view draws, as named columns: name_x, name_y for each curve or scatter;
    name_x, name_height for bars (plus name_y0 when they do not stand on 0), or name_x0,
    name_x1, name_y0, name_y1 for bars given by their edges (Gantt rows). Visible items only;
    images and decorations (lines, text) are left out."""
    legend_labels = {sample.item: label.text for legend in view.scene().items() if isinstance(legend, pg.LegendItem)
                     for sample, label in legend.items}
    other_names = {**_owner_attribute_names(view), **(names or {})}
    boxes = [item for item in view.scene().items() if isinstance(item, pg.ViewBox)]
    boxes.sort(key=lambda box: (box.sceneBoundingRect().top(), box.sceneBoundingRect().left()))
    columns: list[tuple[str, np.ndarray]] = []
    used: set[str] = set()
    counts = {"curve": 0, "points": 0, "bars": 0}
    for box in boxes:
        for item in box.addedItems:
            kind = _data_kind(item)
            if kind is None or not item.isVisible():
                continue
            counts[kind] += 1
            name = legend_labels.get(item) or (item.name() if hasattr(item, "name") else None) or other_names.get(item)
            name = _unique(_clean(name) or f"{kind}{counts[kind]}", used)
            if kind == "bars":
                columns += [(f"{name}_{key}", values) for key, values in bar_columns(item)]
            else:
                x, y = item.getData()
                if x is not None:
                    columns += [(f"{name}_x", np.asarray(x)), (f"{name}_y", np.asarray(y))]
    return columns


def plot_csv(view: pg.GraphicsView, names: dict | None = None) -> str:
    """plot_columns as CSV text: a header row, then the values side by side (shorter
    columns end in empty cells)."""
    columns = plot_columns(view, names)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow([name for name, _ in columns])
    length = max((len(values) for _, values in columns), default=0)
    for i in range(length):
        writer.writerow([_cell(values[i]) if i < len(values) else "" for _, values in columns])
    return text.getvalue()


def bar_columns(bars: pg.BarGraphItem) -> list[tuple[str, np.ndarray]]:
    """A BarGraphItem's bars: x and height when it was given them (y0 too when not all 0),
    else each bar's edges x0, x1, y0, y1."""
    opts = bars.opts

    def array(key):
        value = opts.get(key)
        return None if value is None else np.atleast_1d(np.asarray(value, dtype=float))

    x, height, y0 = array("x"), array("height"), array("y0")
    if x is not None and height is not None and opts.get("y") is None and opts.get("y1") is None:
        x, height = np.broadcast_arrays(x, height)
        out = [("x", x), ("height", height)]
        if y0 is not None and np.any(y0 != 0):
            out.append(("y0", np.broadcast_to(y0, x.shape)))
        return out
    x0, x1, width = array("x0"), array("x1"), array("width")
    if x0 is None:
        x0 = x1 - width if x1 is not None else x - width / 2
    if x1 is None:
        x1 = x0 + width
    y, y1 = array("y"), array("y1")
    if y0 is None:
        y0 = y1 - height if (y1 is not None and height is not None) else (
            y - height / 2 if (y is not None and height is not None) else np.zeros(1))
    if y1 is None:
        y1 = y0 + height
    x0, x1, y0, y1 = np.broadcast_arrays(x0, x1, y0, y1)
    return [("x0", x0), ("x1", x1), ("y0", y0), ("y1", y1)]


def _data_kind(item) -> str | None:
    if isinstance(item, (pg.PlotDataItem, pg.PlotCurveItem)):
        return "curve"
    if isinstance(item, pg.ScatterPlotItem):
        return "points"
    if isinstance(item, pg.BarGraphItem):
        return "bars"
    return None


def _clean(name) -> str:
    return re.sub(r"<[^>]*>", "", str(name or "")).strip()  # legend labels may be rich text


def _owner_attribute_names(view: QtWidgets.QWidget) -> dict:
    """Names for plot items from the attributes that hold them in the widgets around view
    (self.restored_bar -> 'restored_bar', self.bars['sync']['trainer'] -> 'bars_sync_trainer'):
    the panel's own words for an item without a legend label or name()."""
    found: dict = {}

    def collect(name: str, value, depth: int) -> None:
        if isinstance(value, QtWidgets.QGraphicsItem):
            found.setdefault(value, name)
        elif isinstance(value, dict) and depth < 2:
            for key, inner in value.items():
                collect(f"{name}_{key}", inner, depth + 1)

    owner = view.parentWidget()
    while owner is not None:
        for attr, value in vars(owner).items():
            collect(attr.strip("_"), value, 0)
        owner = owner.parentWidget()
    return found


def _unique(name: str, used: set) -> str:
    candidate, n = name, 1
    while candidate in used:
        n += 1
        candidate = f"{name}_{n}"
    used.add(candidate)
    return candidate


def _cell(value) -> str:
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    number = float(value)
    return "" if np.isnan(number) else f"{number:.12g}"  # 12 digits: 1.2, not 1.2000000000000002
