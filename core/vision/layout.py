"""§3.3.1: pixels → patches → visual tokens → three data volumes (图 3-15/3-16).

One image of a visual question passes three handoff points (E → P → D): the compressed
file, the encoder output EC (reusable across requests for the same image), and the
language KV of its visual tokens (tied to the request's earlier context). The counting:

    patches        = H·W / p²                 (after the model's resize)
    visual tokens  = patches / r²             n_v = H·W / (p²·r²)
    EC (one copy)  = n_v · feature_width · dtype_bytes
    EC (DeepStack) = EC (one copy) · feature_copies
    KV             = n_v · kv_bytes_per_token

Resize policy, as a Qwen-VL processor does it ('fit'): round each side to a multiple of
p·r, then scale both sides so the pixel count lies within [min_pixels, max_pixels].
'keep' pads each side up to the next multiple of p·r and scales nothing.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from core.registry import ParamError

VISION_MODEL = "qwen3-vl-4b-vision"
LANGUAGE_MODEL = "qwen3-4b"

PATCH = 16
MERGE = 2
FEATURE_WIDTH = 2560
FEATURE_COPIES = 4  # DeepStack: final merger + 3 intermediate mergers
KV_BYTES_PER_TOKEN = 147456  # 144 KiB/token: 36 layers · 8 KV heads · 128 · 2 (K,V) · 2 B
DTYPE_BYTES = 2
# Qwen3-VL image processor bounds (preprocessor_config.json "size": shortest_edge and
# longest_edge are pixel counts there, not side lengths).
MIN_PIXELS = 65_536
MAX_PIXELS = 16_777_216
MAX_ASPECT = 200  # the processor refuses more elongated images
RESIZE_MODES = ("fit", "keep")
MAX_SIDE = 1_000_000


@dataclass(frozen=True)
class TokenLayout:
    """Where one image's pixels end up: the model's size, the patch grid, the token grid."""

    height: int  # the image as loaded (after EXIF orientation)
    width: int
    model_height: int  # what the encoder sees
    model_width: int
    patch: int
    merge: int

    @property
    def grid_h(self) -> int:
        """Patch rows."""
        return math.ceil(self.model_height / self.patch)

    @property
    def grid_w(self) -> int:
        return math.ceil(self.model_width / self.patch)

    @property
    def token_grid_h(self) -> int:
        return self.grid_h // self.merge

    @property
    def token_grid_w(self) -> int:
        return self.grid_w // self.merge

    @property
    def patches(self) -> int:
        return self.grid_h * self.grid_w

    @property
    def visual_tokens(self) -> int:
        return self.token_grid_h * self.token_grid_w


def fit_size(height: int, width: int, factor: int, min_pixels: int, max_pixels: int) -> tuple[int, int]:
    """Qwen-VL dynamic resolution: sides rounded to multiples of `factor`, area kept
    within [min_pixels, max_pixels] at (about) the same aspect ratio."""
    h = max(factor, round(height / factor) * factor)
    w = max(factor, round(width / factor) * factor)
    if h * w > max_pixels:
        beta = math.sqrt(height * width / max_pixels)
        h = max(factor, math.floor(height / beta / factor) * factor)
        w = max(factor, math.floor(width / beta / factor) * factor)
    elif h * w < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h = math.ceil(height * beta / factor) * factor
        w = math.ceil(width * beta / factor) * factor
    return int(h), int(w)


def layout(height: int, width: int, patch: int = PATCH, merge: int = MERGE, resize: str = "fit",
           min_pixels: int = MIN_PIXELS, max_pixels: int = MAX_PIXELS) -> TokenLayout:
    """The encoder's view of an image of height x width pixels under a resize policy."""
    factor = patch * merge
    if resize == "fit":
        mh, mw = fit_size(height, width, factor, min_pixels, max_pixels)
    elif resize == "keep":
        # Pad (never crop) to whole merged tokens, so no pixel of the original is lost.
        mh, mw = math.ceil(height / factor) * factor, math.ceil(width / factor) * factor
    else:
        raise ParamError("resize", f"got {resize!r}; valid: one of {', '.join(RESIZE_MODES)}")
    return TokenLayout(int(height), int(width), mh, mw, patch, merge)


def volumes(visual_tokens: int, feature_width: int = FEATURE_WIDTH, feature_copies: int = FEATURE_COPIES,
            dtype_bytes: int = DTYPE_BYTES, kv_bytes_per_token: int = KV_BYTES_PER_TOKEN) -> dict:
    single = visual_tokens * feature_width * dtype_bytes
    return {
        "ec_single_bytes": single,
        "ec_bytes": single * feature_copies,
        "kv_bytes": visual_tokens * kv_bytes_per_token,
    }


def check_layout_params(values: dict) -> None:
    if values["min_pixels"] > values["max_pixels"]:
        raise ParamError("min_pixels", f"got {values['min_pixels']} > max_pixels {values['max_pixels']}; "
                         "valid: <= max_pixels")
    factor = values["patch"] * values["merge"]
    if values["resize"] == "fit" and values["max_pixels"] < factor * factor:
        raise ParamError("max_pixels", f"got {values['max_pixels']}; valid: >= (patch·merge)² = {factor * factor}")


def check_aspect(names: tuple[str, str], height: float, width: float, values: dict) -> None:
    """Refuse strips the processor refuses, naming the side that is too long (names:
    the height and width fields)."""
    if values.get("resize", "fit") == "fit" and max(height, width) / min(height, width) > MAX_ASPECT:
        name = names[0] if height >= width else names[1]
        raise ParamError(name, f"aspect ratio {max(height, width) / min(height, width):.0f}:1 "
                         f"({width:g}×{height:g}); valid: at most {MAX_ASPECT}:1 (the processor refuses longer strips)")
