"""The UI's zoom factor and the signal that follows it: a leaf that the theme (its style
sheet and fonts are sized by it) and the zoom's controls (widgets.kit.zoom) both read."""
from __future__ import annotations

from PySide6 import QtCore

from core.look import MAX_ZOOM, MIN_ZOOM  # the range sessions and talks check too

_zoom = 1.0
_notifier = None


class ZoomNotifier(QtCore.QObject):
    zoom_changed = QtCore.Signal(float)
    theme_changed = QtCore.Signal(str)  # widgets.kit.theme.set_theme: plots drawn before re-colour


def zoom_notifier() -> ZoomNotifier:
    """The one QObject whose zoom_changed(float) follows set_zoom."""
    global _notifier
    if _notifier is None:
        _notifier = ZoomNotifier()
    return _notifier


def zoom() -> float:
    return _zoom


def clamp_zoom(factor: float) -> float:
    return min(MAX_ZOOM, max(MIN_ZOOM, float(factor)))


def pt(size: float) -> float:
    """A point size at the current zoom: pt(9) is 9 pt at zoom 1, 13.5 pt at 1.5."""
    return size * _zoom


def set_factor(factor: float) -> None:
    """Record the factor (widgets.kit.zoom.set_zoom applies it to fonts and plots)."""
    global _zoom
    _zoom = factor
