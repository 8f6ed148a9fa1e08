"""Where exports are asked for: a save dialog, the Export menu of every plot (the ⤓ button
on a plot card, the right-click menu of any pyqtgraph view), and the write that follows.

The GUI thread paints (it must: widgets paint only there); encoding a PNG and writing the
file run on the job runner, so a click never holds the window. A failure is a message box
naming the path and the reason, with nothing written; success is a note in the status bar.
"""
from __future__ import annotations

import re
from pathlib import Path

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from widgets.kit.export import (
    FILTERS,
    PLOT_FORMATS,
    ExportError,
    check_target,
    encode,
    export_format,
    paint_plot,
    write_atomic,
)
from widgets.kit.jobs import jobs

_last_folder = ""  # the folder of the last export, offered first next time


def file_name_for(title: str, fmt: str) -> str:
    """A default file name from a plot's or panel's title: '图 3-1 · 一次 prefill' -> '图-3-1.png'."""
    head = re.split(r"[·:|,]", re.sub(r"<[^>]*>", "", title))[0]
    slug = re.sub(r"\W+", "-", head).strip("-")[:40] or "plot"
    return f"{slug}.{fmt}"


def ask_path(parent: QtWidgets.QWidget, title: str, default_name: str, formats: tuple) -> tuple[str, str]:
    """A save dialog offering formats (the one of default_name first); returns (path, fmt)
    or ('', '') when cancelled. The format follows the suffix typed, else the filter chosen
    (whose suffix is then added)."""
    first = export_format(default_name, None, formats)
    ordered = (first,) + tuple(f for f in formats if f != first)
    folder = _last_folder or QtCore.QStandardPaths.writableLocation(
        QtCore.QStandardPaths.StandardLocation.PicturesLocation) or str(Path.home())
    path, chosen = QtWidgets.QFileDialog.getSaveFileName(parent, title, str(Path(folder) / default_name),
                                                         ";;".join(FILTERS[f] for f in ordered))
    if not path:
        return "", ""
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix in formats:
        return path, suffix
    fmt = next((f for f in ordered if FILTERS[f] == chosen), first)
    return f"{path}.{fmt}", fmt


def export_with_dialog(parent: QtWidgets.QWidget, title: str, default_name: str, formats: tuple, paint) -> str:
    """Ask for a path, paint(fmt) on the GUI thread, then encode and write on a worker.
    Returns the path being written, or '' (cancelled, or refused with a message)."""
    path, fmt = ask_path(parent, title, default_name, formats)
    if not path:
        return ""
    try:
        check_target(path)  # a bad path is refused before anything is painted
        painted = paint(fmt)
    except (OSError, ValueError) as err:
        refuse(parent, err)
        return ""
    jobs().submit(f"export {path}", _encode_and_write, painted, path, context=parent,
                  done=lambda problem: _written(parent, path, problem))
    return path


def _encode_and_write(painted, path: str) -> str:
    """On a worker: '' when written, else the reason it was not."""
    try:
        write_atomic(path, encode(painted))
    except ExportError as err:
        return str(err)
    return ""


def _written(parent: QtWidgets.QWidget, path: str, problem: str) -> None:
    global _last_folder
    if problem:
        refuse(parent, problem)
        return
    _last_folder = str(Path(path).parent)
    window = parent.window()
    if isinstance(window, QtWidgets.QMainWindow) and window.statusBar() is not None:
        window.statusBar().showMessage(f"Exported {path}", 8_000)


def refuse(parent: QtWidgets.QWidget, reason) -> None:
    QtWidgets.QMessageBox.warning(parent, "Export failed", f"Nothing was written.\n\n{reason}")


def plot_export_menu(plot, parent: QtWidgets.QWidget, title: str = "plot") -> QtWidgets.QMenu:
    """A menu 'Export' with PNG / SVG / PDF / CSV entries for plot (each asks for a path)."""
    menu = QtWidgets.QMenu("Export", parent)
    for fmt in PLOT_FORMATS:
        action = menu.addAction(f"Export {fmt.upper()}…")
        action.setObjectName(f"export_{fmt}")
        action.triggered.connect(lambda _=False, f=fmt: export_with_dialog(
            parent, f"Export plot as {f.upper()}", file_name_for(title, f), (f,),
            lambda chosen: paint_plot(plot, chosen)))
    return menu


def add_plot_menu(view: pg.GraphicsView, plot=None, title: str = "plot") -> QtWidgets.QMenu | None:
    """Right-click on view offers Export PNG / SVG / PDF / CSV: it replaces pyqtgraph's own
    'Export...' (whose SVG crashes) at the end of every ViewBox menu of view's scene; a view
    whose boxes have no menu (an image view) gets the menu as its own context menu. Once per
    view; returns the menu (None when view already had one)."""
    if view.property("lab_export_menu"):
        return None
    view.setProperty("lab_export_menu", True)
    menu = plot_export_menu(plot if plot is not None else view, view, title)
    view.scene().contextMenu = [menu.menuAction()]
    boxes = [item for item in view.scene().items() if isinstance(item, pg.ViewBox)]
    if not any(box.menuEnabled() for box in boxes):
        view.setContextMenuPolicy(QtCore.Qt.ContextMenuPolicy.CustomContextMenu)
        view.customContextMenuRequested.connect(lambda pos: menu.popup(view.mapToGlobal(pos)))
    return menu


def add_plot_menus(widget: QtWidgets.QWidget) -> int:
    """add_plot_menu for every pyqtgraph view inside widget (a built panel) that has none
    yet; returns how many got one."""
    views = widget.findChildren(pg.GraphicsView)
    return sum(add_plot_menu(view, title=_title_near(view)) is not None for view in views)


def _title_near(view: QtWidgets.QWidget) -> str:
    """The title of the card around view, for a default file name."""
    parent = view.parentWidget()
    while parent is not None:
        title = getattr(parent, "title_label", None)
        if isinstance(title, QtWidgets.QLabel):
            return title.text()
        if isinstance(parent, QtWidgets.QGroupBox) and parent.title():
            return parent.title()
        parent = parent.parentWidget()
    return view.objectName() or "plot"
