"""One zoom factor for the whole UI (a talk on a projector wants everything bigger).

set_zoom(f) clamps f to MIN_ZOOM..MAX_ZOOM, sets every font of the application to its size
in points times f (widgets.kit.theme.apply_fonts) and emits zoom_notifier().zoom_changed(f);
plots follow through apply_plot_zoom(widget), which the window calls for the panel on
screen. Sizes that a panel draws itself use pt(size) or the widget's font.
"""
from __future__ import annotations

import math

from PySide6 import QtCore, QtWidgets

from core.look import MAX_ZOOM, MIN_ZOOM  # the range sessions and talks check too
from widgets.kit import zoom_factor
from widgets.kit.theme import ROLE_POINTS, apply_fonts

# The factor itself lives in zoom_factor (the theme reads it too); it is read from here.
from widgets.kit.zoom_factor import ZoomNotifier, clamp_zoom, pt, zoom, zoom_notifier

__all__ = ["MAX_ZOOM", "MIN_ZOOM", "PRESENTATION_MIN_PX", "STEPS", "ZoomNotifier", "apply_plot_zoom", "clamp_zoom",
           "fit_zoom", "presentation_zoom", "pt", "screen_fit_zoom", "screen_presentation_zoom", "set_zoom",
           "smallest_points", "step_zoom", "zoom", "zoom_notifier"]

# The steps Ctrl+= / Ctrl+- walk through (a browser's zoom feels like this).
STEPS = (0.5, 0.67, 0.75, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0)


def set_zoom(factor: float) -> float:
    """Zoom the whole UI to factor (clamped to 0.5..3; returns the zoom applied): every font
    of the running application; emits zoom_changed only when the zoom really changes."""
    factor = round(clamp_zoom(factor), 3)
    previous = zoom()
    changed = factor != previous
    zoom_factor.set_factor(factor)
    # One repaint for the whole change, not one per font and plot that changes.
    app = QtWidgets.QApplication.instance()
    windows = [w for w in app.topLevelWidgets() if w.isVisible()] if app is not None else []
    for window in windows:
        window.setUpdatesEnabled(False)
    try:
        apply_fonts(previous=previous)
        if changed:
            zoom_notifier().zoom_changed.emit(factor)
    finally:
        for window in windows:
            window.setUpdatesEnabled(True)
    return factor


def step_zoom(direction: int) -> float:
    """The next step up (direction > 0) or down from the current zoom, set."""
    now = zoom()
    if direction > 0:
        target = next((s for s in STEPS if s > now + 1e-6), MAX_ZOOM)
    else:
        target = next((s for s in reversed(STEPS) if s < now - 1e-6), MIN_ZOOM)
    return set_zoom(target)


def apply_plot_zoom(widget) -> None:
    """Scale the plots inside widget (axis ticks and labels, titles, legends, pens and
    markers) to the current zoom. Idempotent: the sizes at zoom 1 are remembered on each
    item the first time it is seen."""
    # Lazy: plot_zoom loads pyqtgraph, which the window shows without.
    from widgets.kit.plot_zoom import scale_plots

    scale_plots(widget, zoom())


def fit_zoom(available: QtCore.QSize, design: QtCore.QSize = QtCore.QSize(1280, 720)) -> float:
    """The zoom at which a design-size window fills the available screen (1.5 for 1920x1080),
    clamped, rounded down to 0.05 so nothing spills over."""
    factor = min(available.width() / design.width(), available.height() / design.height())
    return clamp_zoom(int(factor * 20 + 1e-6) / 20)


def screen_fit_zoom(widget: QtWidgets.QWidget | None = None) -> float:
    screen = (widget.screen() if widget is not None else None) or QtWidgets.QApplication.primaryScreen()
    return fit_zoom(screen.geometry().size()) if screen is not None else 1.0


PRESENTATION_MIN_PX = 18.0  # the smallest text a room reads from the back (F11)


def smallest_points() -> float:
    """The smallest text the UI sets at zoom 1 (points): a role's size or a plot's ticks."""
    from widgets.kit.plot_zoom import TICK_POINTS  # lazy: pyqtgraph

    return min(min(ROLE_POINTS.values()), TICK_POINTS)


def presentation_zoom(available: QtCore.QSize, dpi: float = 96.0) -> float:
    """F11's zoom: the figures fill the screen (fit_zoom) and no text is under
    PRESENTATION_MIN_PX pixels, whichever needs more; rounded up to 0.05, clamped."""
    legible = PRESENTATION_MIN_PX / (smallest_points() * dpi / 72.0)
    return clamp_zoom(max(fit_zoom(available), math.ceil(legible * 20 - 1e-6) / 20))


def screen_presentation_zoom(widget: QtWidgets.QWidget | None = None) -> float:
    screen = (widget.screen() if widget is not None else None) or QtWidgets.QApplication.primaryScreen()
    if screen is None:
        return 1.0
    return presentation_zoom(screen.geometry().size(), screen.logicalDotsPerInch())
