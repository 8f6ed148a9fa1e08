"""Panel discovery: every widgets/<topic>_panel.py module or widgets/<topic>/ package with a
PANEL = PanelInfo(...) plugs into the main window's navigation and into `lab snapshot <key>`.

A panel widget takes its state model as `state` (a core PanelModel; it makes its own when
none is given) and exposes it as `.state`: sessions, scenes, reset and undo go through it."""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable

from PySide6 import QtWidgets


@dataclass(frozen=True)
class PanelInfo:
    key: str  # 'request', used by `lab snapshot request`
    title: str  # shown in the navigation
    section: str  # the chapter section, e.g. '3.1'
    order: float  # position in the navigation
    factory: Callable[[], QtWidgets.QWidget]


def discover_panels() -> list[PanelInfo]:
    import widgets

    found: list[PanelInfo] = []
    for info in pkgutil.iter_modules(widgets.__path__):
        if not (info.name.endswith("_panel") or info.ispkg):
            continue
        module = importlib.import_module(f"widgets.{info.name}")
        panel = getattr(module, "PANEL", None)
        if panel is not None:
            found.append(panel)
    keys = [p.key for p in found]
    duplicates = {k for k in keys if keys.count(k) > 1}
    if duplicates:
        raise RuntimeError(f"two panels share the key(s) {sorted(duplicates)}")
    return sorted(found, key=lambda p: (p.order, p.key))


def panel_keys() -> list[str]:
    return [p.key for p in discover_panels()]
