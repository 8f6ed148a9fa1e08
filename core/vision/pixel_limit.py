"""How many pixels an image file may hold before it is refused (vision/loading.py checks the
header's pixel count before decoding; the Vision panel sets the limit in MP)."""
from __future__ import annotations

import math

from core.registry import ParamError

# Image files (vision/loading.py): the header's pixel count is checked before decoding.
# The default is Pillow's own warning threshold (Image.MAX_IMAGE_PIXELS); Pillow refuses
# anything above twice that, so no limit can go higher.
PIXEL_LIMIT_DEFAULT = 89_478_485
PIXEL_LIMIT_HARD = 2 * PIXEL_LIMIT_DEFAULT - 1
# The panel shows the limit in MP with one decimal: its range rounds inwards, so the
# largest value shown is still a limit the loader accepts.
PIXEL_LIMIT_MIN_MP = 1.0
PIXEL_LIMIT_MAX_MP = math.floor(PIXEL_LIMIT_HARD / 1e5) / 10


def pixel_limit(megapixels: float) -> int:
    """A limit shown in MP as the whole pixel count the loader takes (within its range)."""
    if not math.isfinite(megapixels) or not PIXEL_LIMIT_MIN_MP <= megapixels <= PIXEL_LIMIT_MAX_MP:
        raise ParamError("pixel_limit_mp", f"got {megapixels!r}; valid: [{PIXEL_LIMIT_MIN_MP:g}, "
                         f"{PIXEL_LIMIT_MAX_MP:g}] MP")
    return min(PIXEL_LIMIT_HARD, round(megapixels * 1e6))
