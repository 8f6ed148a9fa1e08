"""The image with its patch grid, its merged-token grid and the hovered token's patches."""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from vision.figures import patch_outlines
from vision.grid import PatchGrid
from widgets.theme import brush, color


def qimage(pixels: np.ndarray) -> QtGui.QImage:
    """A deep-copied QImage of an (rows, cols, 3) uint8 array."""
    rows, cols = pixels.shape[:2]
    data = np.ascontiguousarray(pixels)
    return QtGui.QImage(data.data, cols, rows, 3 * cols, QtGui.QImage.Format.Format_RGB888).copy()


def thumbnail_icon(pixels: np.ndarray, side: int = 112) -> QtGui.QIcon:
    """A small icon of a picture (every n-th pixel: cheap on the GUI thread)."""
    thumb = pixels[:: max(1, pixels.shape[0] // side), :: max(1, pixels.shape[1] // side)]
    return QtGui.QIcon(QtGui.QPixmap.fromImage(qimage(thumb)))


class ImageGridView(pg.GraphicsLayoutWidget):
    """Draws a picture and a PatchGrid over it; hovering names the token under the mouse."""

    token_hovered = QtCore.Signal(object)  # token id or None
    zoomed = QtCore.Signal(object)  # (x0, y0, x1, y1) in display pixels, after a user zoom or pan
    SHADOW_MAX_LINES = 200
    ASSUMED_VIEW_PX = 600  # the view's size on screen before it is laid out

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumSize(360, 320)
        self.view: pg.ViewBox = self.addViewBox(lockAspect=True, invertY=True, enableMenu=False)
        self.image_item = pg.ImageItem(axisOrder="row-major")
        self.view.addItem(self.image_item)
        self.patch_overlay = pg.PlotCurveItem(connect="pairs", pen=pg.mkPen(color("overlay", 150), width=1))
        self.patch_shadow = pg.PlotCurveItem(connect="pairs", pen=pg.mkPen(color("shadow", 70), width=2.2))
        self.token_overlay = pg.PlotCurveItem(connect="pairs", pen=pg.mkPen(color("decode"), width=1.8))
        for item in (self.patch_shadow, self.patch_overlay, self.token_overlay):
            item.setZValue(5)
            self.view.addItem(item)
        self.hover_rect = QtWidgets.QGraphicsRectItem()
        self.hover_rect.setBrush(brush("backlog", 70))
        self.hover_rect.setPen(pg.mkPen(color("backlog"), width=3))
        self.hover_rect.setZValue(8)
        self.hover_rect.setVisible(False)
        self.view.addItem(self.hover_rect)
        self.hover_patches = pg.PlotCurveItem(connect="pairs", pen=pg.mkPen(color("paper"), width=2))
        self.hover_patches.setZValue(9)
        self.view.addItem(self.hover_patches)
        self.grid: PatchGrid | None = None
        self.pixels: np.ndarray | None = None
        self.hovered: int | None = None
        self._patch_grid_on = True
        self._density: tuple | None = None
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.view.sigRangeChanged.connect(self._fit_lines_to_zoom)
        self.view.sigResized.connect(self._fit_lines_to_zoom)
        self.view.sigRangeChangedManually.connect(self._on_zoomed_by_user)

    def show_image(self, pixels: np.ndarray, grid: PatchGrid) -> None:
        """Draw pixels with grid; only what changed is redrawn (a new picture, a new grid)."""
        if pixels is not self.pixels:
            self.pixels = pixels
            # uint8 RGB without levels goes to the screen as it is (levels would rescale
            # every pixel on each render: ~15 ms for a big photo).
            self.image_item.setImage(pixels, autoLevels=False, levels=None)
            self.grid = None
        if grid != self.grid:
            refit = self.grid is None or (grid.display_width, grid.display_height, grid.layout.grid_w,
                                          grid.layout.grid_h) != (self.grid.display_width, self.grid.display_height,
                                                                  self.grid.layout.grid_w, self.grid.layout.grid_h)
            self.set_grid(grid)
            if refit:
                self.zoom_to(None)

    def zoom_to(self, box: tuple[float, float, float, float] | None) -> None:
        """Show box (x0, y0, x1, y1 in display pixels), or None: the whole picture and grid."""
        if box is not None:
            self.view.setRange(QtCore.QRectF(box[0], box[1], box[2] - box[0], box[3] - box[1]), padding=0)
        elif self.grid is not None:
            right = max(self.grid.display_width, self.grid.layout.grid_w * self.grid.patch_w)
            bottom = max(self.grid.display_height, self.grid.layout.grid_h * self.grid.patch_h)
            self.view.setRange(QtCore.QRectF(0, 0, right, bottom), padding=0.02)

    def _on_zoomed_by_user(self, *_args) -> None:
        (x0, x1), (y0, y1) = self.view.viewRange()
        self.zoomed.emit((x0, y0, x1, y1))

    def set_grid(self, grid: PatchGrid) -> None:
        self.grid = grid
        self.patch_overlay.setData(*grid.patch_lines())
        self.patch_shadow.setData(*grid.patch_lines())
        self.token_overlay.setData(*grid.token_lines())
        self._density = None
        self._fit_lines_to_zoom()
        self.hover(None)

    def show_patch_grid(self, on: bool) -> None:
        self._patch_grid_on = on
        self._density = None
        self._fit_lines_to_zoom()

    def show_token_grid(self, on: bool) -> None:
        self.token_overlay.setVisible(on)

    def _fit_lines_to_zoom(self, *_args) -> None:
        """Lines as strong as their spacing on screen allows: a big photo's hundreds of grid
        lines would otherwise hide the picture (and wide antialiased ones cost ~0.1 ms each
        to paint); zooming in brings them back."""
        if self.grid is None:
            return
        try:
            per_px = max(self.view.viewPixelSize())
        except (ValueError, ZeroDivisionError, TypeError):  # not laid out yet
            per_px = 0.0
        if not math.isfinite(per_px) or per_px <= 0:
            per_px = max(self.grid.display_width, self.grid.display_height) / self.ASSUMED_VIEW_PX
        patch = min(self.grid.patch_w, self.grid.patch_h) / per_px  # screen pixels per patch
        token = patch * self.grid.layout.merge
        few_lines = self.grid.layout.grid_w + self.grid.layout.grid_h <= self.SHADOW_MAX_LINES
        density = (patch >= 8, patch >= 3, token >= 12, token >= 5, few_lines, self._patch_grid_on)
        if density == self._density:
            return
        self._density = density
        self.patch_overlay.setPen(pg.mkPen(color("overlay", 150 if patch >= 8 else 70 if patch >= 3 else 35), width=1))
        self.patch_overlay.setVisible(self._patch_grid_on)
        self.patch_shadow.setVisible(self._patch_grid_on and patch >= 8 and few_lines)
        width, alpha = (1.8, 255) if token >= 12 else (1.0, 200) if token >= 5 else (1.0, 110)
        self.token_overlay.setPen(pg.mkPen(color("decode", alpha), width=width))

    def hover_at(self, x: float, y: float) -> int | None:
        """Highlight the token under view point (x, y) and its patches."""
        token = self.grid.token_at(x, y) if self.grid is not None else None
        self.hover(token)
        return token

    def hover(self, token: int | None) -> None:
        if token == self.hovered and (token is None) == (not self.hover_rect.isVisible()):
            return
        self.hovered = token
        if token is None or self.grid is None:
            self.hover_rect.setVisible(False)
            self.hover_patches.setData([], [])
        else:
            self.hover_rect.setRect(QtCore.QRectF(*self.grid.token_rect(token)))
            self.hover_rect.setVisible(True)
            self.hover_patches.setData(*patch_outlines(self.grid, token))
        self.token_hovered.emit(token)

    def _on_mouse_moved(self, scene_pos) -> None:
        if not self.view.sceneBoundingRect().contains(scene_pos):
            self.hover(None)
            return
        point = self.view.mapSceneToView(scene_pos)
        self.hover_at(point.x(), point.y())

    def leaveEvent(self, event):  # noqa: N802
        self.hover(None)
        super().leaveEvent(event)
