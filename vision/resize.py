"""The model's resize policy applied to real pixels (the sizes come from core.vision.layout).

'fit' resamples the picture to the processor's size (multiples of patch·merge within the
pixel bounds: Qwen-style dynamic resolution); 'keep' leaves the pixels alone and pads the
bottom and right edges with black up to whole merged tokens.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image

from core.registry import ParamError
from core.vision import layout as vl


@dataclass(frozen=True)
class ResizePolicy:
    mode: str = "fit"
    patch: int = vl.PATCH
    merge: int = vl.MERGE
    min_pixels: int = vl.MIN_PIXELS
    max_pixels: int = vl.MAX_PIXELS

    def __post_init__(self):
        if self.mode not in vl.RESIZE_MODES:
            raise ParamError("resize", f"got {self.mode!r}; valid: one of {', '.join(vl.RESIZE_MODES)}")
        for name in ("patch", "merge"):
            if getattr(self, name) < 1:
                raise ParamError(name, f"got {getattr(self, name)}; valid: >= 1")
        if not 1 <= self.min_pixels <= self.max_pixels:
            raise ParamError("min_pixels", f"got {self.min_pixels} with max_pixels {self.max_pixels}; "
                             "valid: 1 <= min_pixels <= max_pixels")

    @property
    def factor(self) -> int:
        return self.patch * self.merge

    def layout(self, height: int, width: int) -> vl.TokenLayout:
        return vl.layout(height, width, self.patch, self.merge, self.mode, self.min_pixels, self.max_pixels)

    def params(self) -> dict:
        """The same policy as calculator parameters (vision.tokens / vision.request)."""
        return {"patch": self.patch, "merge": self.merge, "resize": self.mode,
                "min_pixels": self.min_pixels, "max_pixels": self.max_pixels}


def resize_for_model(pixels: np.ndarray, policy: ResizePolicy) -> np.ndarray:
    """(rows, cols, 3) uint8 at full size → the array the encoder's patchifier sees."""
    height, width = pixels.shape[:2]
    lay = policy.layout(height, width)
    if policy.mode == "keep":
        out = np.zeros((lay.model_height, lay.model_width, pixels.shape[2]), dtype=pixels.dtype)
        out[:height, :width] = pixels
        return out
    if (lay.model_height, lay.model_width) == (height, width):
        return pixels
    img = Image.fromarray(pixels).resize((lay.model_width, lay.model_height), Image.Resampling.BICUBIC,
                                         reducing_gap=3.0)
    return np.asarray(img)


def patchify(model_pixels: np.ndarray, patch: int) -> np.ndarray:
    """(H, W, C) → (grid_h, grid_w, patch, patch, C) as a view (no copy): patch [i, j] is
    rows i·p .. i·p+p-1 and columns j·p .. j·p+p-1. H and W must be multiples of p."""
    h, w, c = model_pixels.shape
    if h % patch or w % patch:
        raise ParamError("patch", f"image {w}×{h} is not a whole number of {patch}-pixel patches; "
                         "valid: resize with a policy first")
    return model_pixels.reshape(h // patch, patch, w // patch, patch, c).swapaxes(1, 2)


def token_mosaic(model_pixels: np.ndarray, patch: int, merge: int) -> np.ndarray:
    """Mean colour of each merged token, (token_rows, token_cols, C) uint8: a picture of the
    resolution the language model really gets."""
    side = patch * merge
    h, w, c = model_pixels.shape
    blocks = model_pixels.reshape(h // side, side, w // side, side, c)
    return blocks.mean(axis=(1, 3), dtype=np.float32).round().astype(np.uint8)
