"""Panel discovery: every widgets/<topic>/ package (all but the kit) with a
PANEL = PanelInfo(...) in its __init__.py plugs into the main window's navigation and into
`lab snapshot <key>`.

A panel widget takes its state model as `state` (a core PanelModel; it makes its own when
none is given) and exposes it as `.state`: sessions, scenes, reset and undo go through it.

Discovery is cheap: it reads the PANEL statement from each module's source (key, title,
section and order are literals) and imports the panel's module, with its numpy, pyqtgraph
and core imports, only when the factory is first called. A PANEL whose fields are not
literals is found by importing its module, as before.
"""
from __future__ import annotations

import ast
import importlib
import os
import pkgutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6 import QtWidgets

import widgets


@dataclass(frozen=True)
class PanelInfo:
    key: str  # 'request', used by `lab snapshot request`
    title: str  # shown in the navigation
    section: str  # the chapter section, e.g. '3.1'
    order: float  # position in the navigation
    factory: Callable[..., QtWidgets.QWidget]


class LazyFactory:
    """Imports widgets.<module> on the first call and calls its PANEL's factory."""

    def __init__(self, module: str):
        self.module = module

    def load(self) -> Callable[..., QtWidgets.QWidget]:
        """The real factory (the panel class), importing its module if needed."""
        return importlib.import_module(self.module).PANEL.factory

    @property
    def loaded(self) -> bool:
        return self.module in sys.modules

    def __call__(self, *args: Any, **kwargs: Any) -> QtWidgets.QWidget:
        return self.load()(*args, **kwargs)

    def __repr__(self) -> str:
        return f"LazyFactory({self.module!r})"


_FIELDS = ("key", "title", "section", "order")
NOT_PANELS = ("kit",)  # the packages under widgets/ that are not a panel


def _static_panel(source: str) -> dict[str, Any] | None:
    """key/title/section/order of the `PANEL = PanelInfo(...)` statement in source, or None
    when there is none or its fields are not literals. Only that statement is parsed."""
    lines = source.splitlines()
    for start, line in enumerate(lines):
        if not line.startswith("PANEL") or "PanelInfo(" not in line:
            continue
        for end in range(start + 1, min(start + 20, len(lines)) + 1):
            try:
                tree = ast.parse("\n".join(lines[start:end]))
            except SyntaxError:
                continue
            node = tree.body[0] if tree.body else None
            if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
                return None
            try:
                fields = {kw.arg: ast.literal_eval(kw.value) for kw in node.value.keywords if kw.arg in _FIELDS}
            except ValueError:
                return None
            return fields if set(fields) == set(_FIELDS) else None
        return None
    return None


def _source(info: pkgutil.ModuleInfo) -> str | None:
    folder = getattr(info.module_finder, "path", None)
    if folder is None:
        return None
    path = os.path.join(folder, info.name, "__init__.py")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return None


def discover_panels() -> list[PanelInfo]:
    found: list[PanelInfo] = []
    for info in pkgutil.iter_modules(widgets.__path__):
        if not info.ispkg or info.name in NOT_PANELS:
            continue
        name = f"widgets.{info.name}"
        module = sys.modules.get(name)
        fields = None if module is not None else _static_panel(_source(info) or "")
        if fields is not None:
            found.append(PanelInfo(factory=LazyFactory(name), **fields))
            continue
        module = module or importlib.import_module(name)
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


def panel_class(info: PanelInfo) -> Callable[..., QtWidgets.QWidget]:
    """The class (or function) that builds info's panel, importing its module if needed."""
    return info.factory.load() if isinstance(info.factory, LazyFactory) else info.factory
