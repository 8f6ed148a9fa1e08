"""What the talk tests share: the shipped chapter 3 talk, the keys, and a step to a scene
(by index or by a key) that waits until the scene is ready."""
from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore

CHAPTER3 = Path(__file__).resolve().parents[2] / "talks" / "chapter3.toml"
Key = QtCore.Qt.Key
CTRL = QtCore.Qt.KeyboardModifier.ControlModifier


def go_to(qtbot, controller, index):
    controller.go(index)
    qtbot.waitUntil(controller.is_ready, timeout=30_000)


def press(qtbot, window, controller, key, modifier=QtCore.Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(window, key, modifier)
    qtbot.waitUntil(controller.is_ready, timeout=30_000)
