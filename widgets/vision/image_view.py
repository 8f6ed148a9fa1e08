"""The image with its patch grid, its merged-token grid and the hovered token's patches."""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from vision.figures import patch_outlines
from vision.grid import MIN_LINE_GAP_PX, PatchGrid, line_stride
from widgets.kit.theme import brush, color


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
    """Draws a picture and a PatchGrid over it; hovering names the token under the mouse.

    The picture zooms (the wheel, Ctrl+wheel in the window; zoom_by) and pans (drag); the
    grids follow: every k-th line near the visible box is drawn (vision.grid.line_stride),
    one curve item per grid, and a legend on the view says what one line stands for."""

    token_hovered = QtCore.Signal(object)  # token id or None
    # (x0, y0, x1, y1) in display pixels after a user zoom or pan; None: back to the whole picture
    zoomed = QtCore.Signal(object)
    SHADOW_MAX_LINES = 200
    ASSUMED_VIEW_PX = 600  # the view's size on screen before it is laid out
    ZOOM_STEP = 1.5
    min_gap_px = MIN_LINE_GAP_PX  # lines closer than this on screen are thinned

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumSize(240, 160)
        self.view: pg.ViewBox = self.addViewBox(lockAspect=True, invertY=True, enableMenu=False)
        self.image_item = pg.ImageItem(axisOrder="row-major")
        self.view.addItem(self.image_item)
        self.patch_overlay = pg.PlotCurveItem(connect="pairs", pen=pg.mkPen(color("overlay", 150), width=1))
        self.patch_shadow = pg.PlotCurveItem(connect="pairs", pen=pg.mkPen(color("shadow", 70), width=2.2))
        self.token_overlay = pg.PlotCurveItem(connect="pairs", pen=pg.mkPen(color("decode"), width=1.8))
        for item in (self.patch_shadow, self.patch_overlay, self.token_overlay):
            item.setZValue(5)
            self.view.addItem(item, ignoreBounds=True)
        self.hover_rect = QtWidgets.QGraphicsRectItem()
        self.hover_rect.setBrush(brush("backlog", 70))
        self.hover_rect.setPen(pg.mkPen(color("backlog"), width=3))
        self.hover_rect.setZValue(8)
        self.hover_rect.setVisible(False)
        self.view.addItem(self.hover_rect)
        self.hover_patches = pg.PlotCurveItem(connect="pairs", pen=pg.mkPen(color("paper"), width=2))
        self.hover_patches.setZValue(9)
        self.view.addItem(self.hover_patches)
        self.legend = QtWidgets.QLabel(self)
        self.legend.setObjectName("grid_legend")
        self.legend.setProperty("role", "caption")
        self.legend.setAttribute(QtCore.Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.legend.setVisible(False)
        self.grid: PatchGrid | None = None
        self.pixels: np.ndarray | None = None
        self.hovered: int | None = None
        self.patch_stride = self.token_stride = 1
        self.patch_lines_on = True
        self._patch_grid_on = True
        self._token_grid_on = True
        self._drawn: tuple | None = None
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

    def zoom_by(self, factor: float) -> None:
        """Zoom in (factor > 1) or out about the centre of the view, as the user's zoom."""
        self.view.scaleBy((1 / factor, 1 / factor))
        self._on_zoomed_by_user()

    def zoom_fit(self) -> None:
        """The whole picture again (a user's action: zoomed says None)."""
        self.zoom_to(None)
        self.zoomed.emit(None)

    def _on_zoomed_by_user(self, *_args) -> None:
        (x0, x1), (y0, y1) = self.view.viewRange()
        self.zoomed.emit((x0, y0, x1, y1))

    def set_grid(self, grid: PatchGrid) -> None:
        self.grid = grid
        self._drawn = self._density = None
        self._fit_lines_to_zoom()
        self.hover(None)

    def show_patch_grid(self, on: bool) -> None:
        self._patch_grid_on = on
        self._drawn = self._density = None
        self._fit_lines_to_zoom()

    def show_token_grid(self, on: bool) -> None:
        self._token_grid_on = on
        self._drawn = self._density = None
        self._fit_lines_to_zoom()

    def drawn_lines(self) -> dict[str, int]:
        """How many lines each overlay draws now (hidden overlays draw none)."""
        out = {}
        for name, item in (("patch", self.patch_overlay), ("token", self.token_overlay)):
            xs = item.getData()[0]
            out[name] = len(xs) // 2 if item.isVisible() and xs is not None else 0
        return out

    def _screen_scale(self) -> float:
        """Display pixels per screen pixel at the current zoom."""
        try:
            per_px = max(self.view.viewPixelSize())
        except (ValueError, ZeroDivisionError, TypeError):  # not laid out yet
            per_px = 0.0
        if not math.isfinite(per_px) or per_px <= 0:
            per_px = max(self.grid.display_width, self.grid.display_height) / self.ASSUMED_VIEW_PX
        return per_px

    def _near_box(self) -> tuple[float, float, float, float] | None:
        """The visible range widened by a view's span on each side, in whole spans: panning
        inside it redraws nothing; None before the view has a range."""
        (x0, x1), (y0, y1) = self.view.viewRange()
        span_x, span_y = x1 - x0, y1 - y0
        if not (span_x > 0 and span_y > 0 and math.isfinite(span_x + span_y)):
            return None
        return (math.floor(x0 / span_x - 1) * span_x, math.floor(y0 / span_y - 1) * span_y,
                math.ceil(x1 / span_x + 1) * span_x, math.ceil(y1 / span_y + 1) * span_y)

    def _fit_lines_to_zoom(self, *_args) -> None:
        """Lines as many and as strong as their spacing on screen allows: a big photo's
        hundreds of grid lines would otherwise paint the picture over; zooming in brings
        every patch line back."""
        if self.grid is None:
            return
        g = self.grid
        patch = min(g.patch_w, g.patch_h) / self._screen_scale()  # screen pixels per patch
        token = patch * g.layout.merge
        self.patch_stride = line_stride(patch, self.min_gap_px)
        self.token_stride = line_stride(token, self.min_gap_px)
        # Thinned patch lines fall on token lines: drawing both would only paint them twice.
        patch_on = self._patch_grid_on and not (self._token_grid_on and self.patch_stride >= g.layout.merge)
        self.patch_lines_on = patch_on
        box = self._near_box()
        drawn = (self.patch_stride, self.token_stride, patch_on, self._token_grid_on, box)
        if drawn != self._drawn:
            self._drawn = drawn
            lines = g.patch_lines(self.patch_stride, box) if patch_on else (np.zeros(0), np.zeros(0))
            self.patch_overlay.setData(*lines)
            few_lines = len(lines[0]) // 2 <= self.SHADOW_MAX_LINES
            self.patch_shadow.setData(*(lines if patch >= 8 and few_lines else (np.zeros(0), np.zeros(0))))
            self.token_overlay.setData(*(g.token_lines(self.token_stride, box) if self._token_grid_on
                                         else (np.zeros(0), np.zeros(0))))
            self._show_legend()
        gap = patch * self.patch_stride
        density = (gap >= 12, token * self.token_stride >= 12, patch_on, self._token_grid_on)
        if density == self._density:
            return
        self._density = density
        self.patch_overlay.setPen(pg.mkPen(color("overlay", 150 if gap >= 12 else 90), width=1))
        self.patch_overlay.setVisible(patch_on)
        self.patch_shadow.setVisible(patch_on)
        self.token_overlay.setVisible(self._token_grid_on)
        width, alpha = (1.8, 255) if token >= 12 else (1.2, 200)
        self.token_overlay.setPen(pg.mkPen(color("decode", alpha), width=width))

    def _show_legend(self) -> None:
        """'1 line = k patches' while the grid is thinned; nothing when every line is drawn."""
        merge = self.grid.layout.merge
        if self._token_grid_on and self.token_stride > 1:
            k = self.token_stride
            text = f"1 条线 = {k} token = {k * merge} patch · 放大看全部"
        elif self.patch_lines_on and self.patch_stride > 1:
            text = f"1 条线 = {self.patch_stride} patch · 放大看全部"
        elif self._patch_grid_on and not self.patch_lines_on:
            text = f"1 格 = 1 token = {merge}×{merge} patch · 放大看 patch"
        else:
            text = ""
        self.legend.setText(text)
        self.legend.setToolTip("Grid thinned to stay readable: zoom in (wheel, +) to see every line")
        self.legend.setVisible(bool(text))
        self._place_legend()

    def _place_legend(self) -> None:
        paper = color("paper", 225)
        self.legend.setStyleSheet(f"background: rgba({paper.red()},{paper.green()},{paper.blue()},{paper.alpha()});"
                                  "padding: 1px 4px;")
        self.legend.adjustSize()
        self.legend.resize(min(self.legend.width(), max(40, self.width() - 12)), self.legend.height())
        self.legend.move(6, 6)

    def changeEvent(self, event):
        super().changeEvent(event)
        # Another theme or zoom: the legend's paper and size follow.
        if event.type() in (QtCore.QEvent.Type.StyleChange, QtCore.QEvent.Type.FontChange) \
                and getattr(self, "legend", None) is not None and self.legend.isVisible():
            self._place_legend()

    def resizeEvent(self, event):
        super().resizeEvent(event)
        if getattr(self, "legend", None) is not None and self.legend.isVisible():  # the base class resizes early
            self._place_legend()

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

    def leaveEvent(self, event):
        self.hover(None)
        super().leaveEvent(event)
