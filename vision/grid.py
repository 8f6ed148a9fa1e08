"""Patch and merged-token grids over a displayed image, as numpy arrays for an overlay.

Coordinates are display pixels of the upright image (x right, y down): the same frame as
an ImageItem drawn row-major. With 'fit' the grid spans the whole picture (the model sees
it resampled); with 'keep' the grid follows the original pixels and runs past the right
and bottom edges where the model's input is padded.

A big photo has hundreds of patch lines: a view draws every k-th (line_stride) and only
those in the visible box, so the lines on screen stay few and apart at any zoom.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.vision.layout import TokenLayout

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in display pixels
# Grid lines closer than this on screen stop reading as a grid and paint the picture over.
MIN_LINE_GAP_PX = 8.0


def line_stride(cell_px: float, min_gap_px: float = MIN_LINE_GAP_PX) -> int:
    """Draw every k-th line, k the smallest power of two that puts lines at least
    min_gap_px apart when a cell is cell_px wide on screen (powers of two keep the thinned
    patch lines on token lines: a 2×2 merge is one step)."""
    if not cell_px > 0:
        return 1 << 20
    k = 1
    while k * cell_px < min_gap_px and k < 1 << 20:
        k *= 2
    return k


@dataclass(frozen=True)
class PatchGrid:
    layout: TokenLayout
    display_width: int
    display_height: int
    resize: str = "fit"

    @property
    def sx(self) -> float:
        """Display pixels per model pixel, horizontally."""
        base = self.layout.width if self.resize == "keep" else self.layout.model_width
        return self.display_width / base

    @property
    def sy(self) -> float:
        base = self.layout.height if self.resize == "keep" else self.layout.model_height
        return self.display_height / base

    @property
    def patch_w(self) -> float:
        return self.layout.patch * self.sx

    @property
    def patch_h(self) -> float:
        return self.layout.patch * self.sy

    def _lines(self, cols: int, rows: int, cell_w: float, cell_h: float, stride: int = 1,
               box: Box | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Segments as (x, y) pairs for pyqtgraph's connect='pairs': every stride-th line
        (the outer edge always), only those inside box (x0, y0, x1, y1), clipped to it."""
        right, bottom = cols * cell_w, rows * cell_h
        cols_at = np.union1d(np.arange(0, cols + 1, max(1, stride)), [cols])
        rows_at = np.union1d(np.arange(0, rows + 1, max(1, stride)), [rows])
        x_lo, y_lo, x_hi, y_hi = 0.0, 0.0, right, bottom
        if box is not None:
            x_lo, y_lo = max(x_lo, box[0]), max(y_lo, box[1])
            x_hi, y_hi = min(x_hi, box[2]), min(y_hi, box[3])
            if x_lo > x_hi or y_lo > y_hi:
                return np.zeros(0), np.zeros(0)
            cols_at = cols_at[(cols_at * cell_w >= x_lo) & (cols_at * cell_w <= x_hi)]
            rows_at = rows_at[(rows_at * cell_h >= y_lo) & (rows_at * cell_h <= y_hi)]
        xs_v = np.repeat(cols_at * cell_w, 2)
        ys_v = np.tile([y_lo, y_hi], len(cols_at))
        ys_h = np.repeat(rows_at * cell_h, 2)
        xs_h = np.tile([x_lo, x_hi], len(rows_at))
        return np.concatenate([xs_v, xs_h]).astype(float), np.concatenate([ys_v, ys_h]).astype(float)

    def patch_lines(self, stride: int = 1, box: Box | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Patch boundaries (every stride-th), optionally only those in box (display pixels)."""
        lay = self.layout
        return self._lines(lay.grid_w, lay.grid_h, self.patch_w, self.patch_h, stride, box)

    def token_lines(self, stride: int = 1, box: Box | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Merged-token boundaries (every stride-th token), optionally only those in box."""
        lay = self.layout
        m = lay.merge
        return self._lines(lay.token_grid_w, lay.token_grid_h, self.patch_w * m, self.patch_h * m, stride, box)

    def token_index(self) -> np.ndarray:
        """(grid_h, grid_w) int32: the merged token each patch belongs to (row-major ids)."""
        lay = self.layout
        rows = np.arange(lay.grid_h)[:, None] // lay.merge
        cols = np.arange(lay.grid_w)[None, :] // lay.merge
        return (rows * lay.token_grid_w + cols).astype(np.int32)

    def token_at(self, x: float, y: float) -> int | None:
        """The token under display point (x, y), or None outside the grid."""
        lay = self.layout
        col = int(np.floor(x / (self.patch_w * lay.merge)))
        row = int(np.floor(y / (self.patch_h * lay.merge)))
        if 0 <= row < lay.token_grid_h and 0 <= col < lay.token_grid_w and x >= 0 and y >= 0:
            return row * lay.token_grid_w + col
        return None

    def token_rect(self, token: int) -> tuple[float, float, float, float]:
        """(x, y, w, h) of a token in display pixels."""
        lay = self.layout
        row, col = divmod(token, lay.token_grid_w)
        w, h = self.patch_w * lay.merge, self.patch_h * lay.merge
        return col * w, row * h, w, h

    def patches_of_token(self, token: int) -> np.ndarray:
        """(merge², 2) int: (row, col) of the patches merged into `token`, row-major."""
        lay = self.layout
        row, col = divmod(token, lay.token_grid_w)
        r, c = np.meshgrid(np.arange(lay.merge), np.arange(lay.merge), indexing="ij")
        return np.stack([row * lay.merge + r.ravel(), col * lay.merge + c.ravel()], axis=1)

    def patch_rects(self, patches: np.ndarray) -> np.ndarray:
        """(n, 4) float: (x, y, w, h) in display pixels of each (row, col) patch."""
        patches = np.asarray(patches)
        n = len(patches)
        return np.column_stack([patches[:, 1] * self.patch_w, patches[:, 0] * self.patch_h,
                                np.full(n, self.patch_w), np.full(n, self.patch_h)])
