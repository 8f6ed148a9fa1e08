"""Window feature: export. File → Export panel… and File → Export window as shown… (PNG, SVG
or PDF, chosen by the file's suffix or the dialog's filter), the right-click Export menu on
every plot of a built panel, and the format of `lab snapshot`.

The writing (vector painters, atomic writes) is widgets/kit/export.py's; this module decides
what is exported and asks where.
"""
from __future__ import annotations

import sys
from pathlib import Path

from PySide6 import QtGui


def _export():
    """widgets.kit.export, imported on first use: it loads pyqtgraph and numpy, which the
    window leaves to its first panel."""
    from widgets.kit import export

    return export


def _menu():
    """widgets.kit.export_menu, imported on first use (pyqtgraph, as _export)."""
    from widgets.kit import export_menu

    return export_menu


def install(window) -> None:
    """File → Export panel… (Ctrl+Shift+E) and Export window as shown…; plot menus on every
    panel as it is built and shown (panels that build sections later get theirs on show)."""
    file_menu = window.menus["file"]
    file_menu.addSeparator()
    panel_action = QtGui.QAction("Export panel… (PNG, SVG, PDF)", window)
    panel_action.setObjectName("export_panel")
    panel_action.setShortcut(QtGui.QKeySequence("Ctrl+Shift+E"))
    panel_action.triggered.connect(lambda: export_panel_dialog(window))
    file_menu.addAction(panel_action)
    window.addAction(panel_action)  # the key works with the menu bar hidden (presentation mode)
    window_action = QtGui.QAction("Export window as shown… (PNG, SVG, PDF)", window)
    window_action.setObjectName("export_window")
    window_action.triggered.connect(lambda: export_window_dialog(window))
    file_menu.addAction(window_action)
    window.export_actions = {"panel": panel_action, "window": window_action}

    def add_menus(key: str) -> None:

        if window.is_built(key):
            _menu().add_plot_menus(window.panel(key))

    window.panel_built.connect(add_menus)
    window.panel_shown.connect(add_menus)


def export_panel(window, path: str, fmt: str | None = None) -> Path:
    """The current panel as shown (its cards and plots) to path as png, svg or pdf."""
    return _export().write_widget(window.panel(window.current_key()), path, fmt)


def export_window(window, path: str, fmt: str | None = None) -> Path:
    """The whole window as shown (the scene a speaker shows: panel, captions, bars) to path."""
    return _export().write_widget(window, path, fmt)


def export_panel_dialog(window) -> str:
    """Ask where, then write the current panel (encoded and written on a worker)."""
    key = window.current_key()
    return _menu().export_with_dialog(window, "Export panel", _menu().file_name_for(window.info(key).title, "png"), _export().IMAGE_FORMATS,
                              lambda fmt: _export().paint_widget(window.panel(key), fmt))


def export_window_dialog(window) -> str:
    """Ask where, then write the window as shown."""
    return _menu().export_with_dialog(window, "Export window as shown", "load-lab.png", _export().IMAGE_FORMATS,
                              lambda fmt: _export().paint_widget(window, fmt))


# ---- lab snapshot ----------------------------------------------------------------------------
def snapshot_format(out: str, fmt: str | None) -> str:
    """The format `lab snapshot` writes: --format when given, else the --out suffix, else
    png. A --format that differs from the suffix wins (the file is written as named) and a
    note says so on stderr. The path is checked here, before the panel is rendered."""
    chosen = _export().export_format(out, fmt)
    suffix = Path(out).suffix.lower().lstrip(".")
    if fmt and suffix and suffix != chosen:
        print(f"lab snapshot: --format {chosen} writes {chosen.upper()} into {out} (suffix .{suffix})", file=sys.stderr)
    _export().check_target(out)
    return chosen


def write_snapshot(widget, out: str, fmt: str) -> None:
    """The snapshot's final write: widget as fmt to out, atomically (ExportError if it fails)."""
    _export().write_widget(widget, out, fmt)

