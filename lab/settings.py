"""User settings: values (never widget indices) under a schema version, in QSettings' INI
file. Tests point LAB_SETTINGS_DIR at a temporary folder."""
from __future__ import annotations

import os
from typing import Any

from PySide6 import QtCore

SCHEMA_VERSION = 1
# Keys a panel keeps here through its window's settings (widgets cannot import lab, so each
# panel names its own keys; listed so this file says what it holds).
PANEL_KEYS = {
    "plan/engine": "the Plan panel's sweep engine: local or ray (widgets/plan/form.py)",
    "plan/workers": "the Plan panel's local pool size",
    "plan/cluster_address": "the Plan panel's Ray cluster address (empty: a local Ray instance)",
}


class Settings:
    def __init__(self, path: str | None = None):
        folder = os.environ.get("LAB_SETTINGS_DIR")
        if path is None and folder:
            path = os.path.join(folder, "load-lab.ini")
        if path:
            self._qs = QtCore.QSettings(path, QtCore.QSettings.Format.IniFormat)
        else:
            self._qs = QtCore.QSettings(QtCore.QSettings.Format.IniFormat, QtCore.QSettings.Scope.UserScope,
                                        "load-lab", "load-lab")
        if self._qs.value("schema_version", None) not in (None, SCHEMA_VERSION, str(SCHEMA_VERSION)):
            self._qs.clear()  # an older layout: start clean rather than misread it
        self._qs.setValue("schema_version", SCHEMA_VERSION)

    def get(self, key: str, default: Any = None) -> Any:
        return self._qs.value(key, default)

    def set(self, key: str, value: Any) -> None:
        self._qs.setValue(key, value)


def data_dir() -> str:
    """The user's data folder for the lab (logs): QStandardPaths' AppDataLocation, or
    'data' beside LAB_SETTINGS_DIR when that is set (tests). Not created here."""
    folder = os.environ.get("LAB_SETTINGS_DIR")
    if folder:
        return os.path.join(os.path.dirname(os.path.abspath(folder)), "data")
    location = QtCore.QStandardPaths.writableLocation(QtCore.QStandardPaths.StandardLocation.AppDataLocation)
    return location or os.path.join(os.path.expanduser("~"), ".local", "share", "load-lab")
