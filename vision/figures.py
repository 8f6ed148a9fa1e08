"""Texts and outlines of the image view that depend on a loaded picture (the numbers come
from core.vision.layout; the panel only shows these)."""
from __future__ import annotations

import numpy as np

from core.units import format_count
from core.vision.figures import file_size
from vision.grid import PatchGrid
from vision.loading import LoadedImage

HOVER_HINT = "悬停一个 token,看它合并了哪几个 patch"


def image_captions(img: LoadedImage, grid: PatchGrid) -> dict[str, str]:
    """The size line (file → what the model sees), the token line and the loader's notes."""
    lay = grid.layout
    changed = (lay.model_height, lay.model_width) != (img.height, img.width)
    model = f"模型看到 {lay.model_width}×{lay.model_height}" + (
        f"({'缩放' if grid.resize == 'fit' else '补边'})" if changed else "")
    return {
        "size": f"<b>{img.name}</b> · 原图 {img.width}×{img.height} ({img.megapixels:.2f} MP, "
                f"{file_size(img.file_bytes)}, {img.format} {img.mode}) → {model}",
        "tokens": f"{lay.grid_w}×{lay.grid_h} = {format_count(lay.patches)} 个 patch → "
                  f"{lay.token_grid_w}×{lay.token_grid_h} = {format_count(lay.visual_tokens)} 个视觉 token",
        "notes": " · ".join(img.notes),
    }


def token_caption(grid: PatchGrid | None, token: int | None) -> str:
    """Which patches the hovered token merges (row, col of each)."""
    if token is None or grid is None:
        return HOVER_HINT
    row, col = divmod(token, grid.layout.token_grid_w)
    patches = ", ".join(f"({r},{c})" for r, c in grid.patches_of_token(token))
    return f"token #{token} (行 {row}, 列 {col}) ← patch {patches}"


def patch_outlines(grid: PatchGrid, token: int, inset_share: float = 0.08) -> tuple[np.ndarray, np.ndarray]:
    """Outlines of the patches merged into token, each inset a little so they read as
    separate squares: segment pairs (x, y) for connect='pairs'."""
    rects = grid.patch_rects(grid.patches_of_token(token))
    inset = min(grid.patch_w, grid.patch_h) * inset_share
    x0, y0 = rects[:, 0] + inset, rects[:, 1] + inset
    x1, y1 = rects[:, 0] + rects[:, 2] - inset, rects[:, 1] + rects[:, 3] - inset
    xs = np.column_stack([x0, x1, x1, x1, x1, x0, x0, x0]).ravel()
    ys = np.column_stack([y0, y0, y0, y1, y1, y1, y1, y0]).ravel()
    return xs, ys
