"""A generated 640×640 picture, so the panel shows the book's example before any file is
opened. Its file size is taken as the book's screenshot (0.8 MB, given input)."""
from __future__ import annotations

import numpy as np
from PIL import Image, ImageChops, ImageDraw

from core.vision.images import BOOK_FILE_BYTES
from vision.loading import LoadedImage

SAMPLE_NAME = "样例 640×640 (generated)"


def sample_pixels(side: int = 640) -> np.ndarray:
    """A mock chat screenshot: a header bar, message bubbles and a chart, (side, side, 3)."""
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32) / side
    base = np.dstack([236 + 12 * xx, 240 + 8 * yy, 248 - 10 * xx]).clip(0, 255).astype(np.uint8)
    img = Image.fromarray(base)
    d = ImageDraw.Draw(img)
    s = side / 640
    d.rectangle([0, 0, side, 56 * s], fill=(38, 70, 125))
    d.ellipse([16 * s, 12 * s, 48 * s, 44 * s], fill=(245, 190, 70))
    for i, w in enumerate((260, 180)):
        d.rounded_rectangle([64 * s, (16 + 16 * i) * s, (64 + w) * s, (26 + 16 * i) * s], 4, fill=(200, 215, 240))
    bubbles = [(24, 80, 380, 150, (255, 255, 255)), (230, 170, 616, 240, (198, 230, 200)),
               (24, 260, 420, 330, (255, 255, 255))]
    for x0, y0, x1, y1, fill in bubbles:
        d.rounded_rectangle([x0 * s, y0 * s, x1 * s, y1 * s], 14 * s, fill=fill, outline=(190, 196, 210))
        for k in range(3):
            d.rounded_rectangle([(x0 + 16) * s, (y0 + 14 + 18 * k) * s, (x1 - 30 - 40 * k) * s,
                                 (y0 + 24 + 18 * k) * s], 3, fill=(120, 130, 150))
    # A bar chart: fine detail the 32-pixel tokens have to summarise.
    d.rounded_rectangle([24 * s, 350 * s, 616 * s, 616 * s], 14 * s, fill=(255, 255, 255), outline=(190, 196, 210))
    heights = (120, 180, 90, 210, 150, 60, 195, 130)
    colors = ((66, 133, 244), (219, 68, 55), (244, 180, 0), (15, 157, 88))
    for i, h in enumerate(heights):
        bar_x = (60 + i * 68) * s
        d.rectangle([bar_x, (590 - h) * s, bar_x + 44 * s, 590 * s], fill=colors[i % 4])
    d.line([44 * s, 592 * s, 596 * s, 592 * s], fill=(60, 60, 60), width=max(1, int(2 * s)))
    return np.asarray(img, dtype=np.uint8)


def sample_image(side: int = 640) -> LoadedImage:
    return LoadedImage(name=SAMPLE_NAME, path=None, format="generated", mode="RGB", width=side, height=side,
                       file_bytes=BOOK_FILE_BYTES, pixels=sample_pixels(side),
                       notes=("generated sample; its file size is the book's 0.8 MB screenshot (给定输入)",))


def placeholder_image(source: str, height: int, width: int, file_bytes: int, reason: str = "") -> LoadedImage:
    """A grey stand-in of the right shape for an image whose file is not loaded (a saved
    state opened elsewhere, or a file that went away): the figures use the saved size."""
    side = 256
    scale = side / max(height, width)
    rows, cols = max(1, round(height * scale)), max(1, round(width * scale))
    pixels = np.full((rows, cols, 3), 128, dtype=np.uint8)
    note = reason or "file not loaded: the figures use its saved size"
    return LoadedImage(name=source.replace("\\", "/").rsplit("/", 1)[-1] or SAMPLE_NAME, path=source or None,
                       format="—", mode="—", width=width, height=height, file_bytes=file_bytes, pixels=pixels,
                       notes=(note,))


def write_photo(path, width: int, height: int, orientation: int = 1, quality: int = 90) -> None:
    """A photo-like JPEG of width×height (benchmarks and tests of big photos): smooth
    colour fields with sensor-like noise, so it compresses like a photo, not a flat test
    card. orientation: an EXIF orientation to store (6: taken sideways)."""
    rows, cols = max(2, height // 10), max(2, width // 10)
    yy, xx = np.mgrid[0:rows, 0:cols].astype(np.float32)
    small = np.dstack([128 + 100 * np.sin(xx / 37) * np.cos(yy / 51), 128 + 90 * np.cos((xx + yy) / 80),
                       255 * yy / rows]).clip(0, 255).astype(np.uint8)
    big = Image.fromarray(small).resize((width, height), Image.Resampling.BILINEAR)
    noise = Image.effect_noise((width, height), 10)
    noisy = Image.merge("RGB", [ImageChops.add(band, noise, offset=-128) for band in big.split()])
    exif = Image.Exif()
    if orientation != 1:
        exif[0x0112] = orientation
    noisy.save(path, format="JPEG", quality=quality, exif=exif.tobytes())
