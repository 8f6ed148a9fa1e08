"""Images of requests as the encoder and the engine see them: one definition, the Vision
panel's (core/vision/calculator.py: layout, volumes, encode_flops_breakdown) for the model's
vision config (the catalog's Qwen3-VL-4B tower, or a Hugging Face config.json with a
vision_config).

An image is (image_id, height, width, file_bytes). Requests hold images by index into one
table of distinct images (ImageTable), so an encoder cache can tell two requests of the
same image id apart from two images of the same size.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from core.model_config.as_catalog import model_or_config
from core.registry import ParamError
from core.serving.traces.images import parse_size  # noqa: F401 - one parser of HxW for keys and traces
from core.vision import calculator as vc

VISION_MODEL = vc.VISION_MODEL
DTYPE_BYTES = vc.DTYPE_BYTES  # BF16 features


@dataclass(frozen=True)
class ImageFigures:
    """What one image costs: the calculator's numbers for the vision tower."""

    visual_tokens: int
    patches: int
    encode_flops: float
    ec_bytes: int  # every DeepStack copy: what an encoder cache or an EC handoff holds


@lru_cache(maxsize=4096)
def figures(height: int, width: int, vision_model: str = VISION_MODEL) -> ImageFigures:
    """Tokens, encoder FLOPs and EC bytes of one height x width image (the Vision panel's)."""
    m = model_or_config(vision_model, part="vision", param="vision_model")
    lay = vc.layout(int(height), int(width), m["patch_size"], m["spatial_merge_size"])
    flops = vc.encode_flops_breakdown(vision_model, lay)["encode_flops"]
    copies = 1 + len(m["deepstack_visual_indexes"])
    vol = vc.volumes(lay.visual_tokens, m["out_hidden_size"], copies, DTYPE_BYTES)
    return ImageFigures(lay.visual_tokens, lay.patches, float(flops), int(vol["ec_bytes"]))


@dataclass(frozen=True)
class ImageTable:
    """Distinct images (by id) and which of them each request carries.

    ids/heights/widths/file_bytes: one entry per distinct image; request i carries
    images[offsets[i]:offsets[i+1]] (indices into the table), in prompt order."""

    ids: tuple[str, ...]
    heights: np.ndarray
    widths: np.ndarray
    file_bytes: np.ndarray
    images: np.ndarray  # int64 indices into the table
    offsets: np.ndarray  # int64, requests + 1
    vision_model: str = VISION_MODEL

    @property
    def requests(self) -> int:
        return int(self.offsets.size - 1)

    def of(self, i: int) -> np.ndarray:
        return self.images[self.offsets[i]:self.offsets[i + 1]]

    def per_image(self) -> list[ImageFigures]:
        return [figures(int(h), int(w), self.vision_model) for h, w in zip(self.heights, self.widths)]

    def column(self, attr: str) -> np.ndarray:
        """One figure (visual_tokens, encode_flops, ec_bytes) per distinct image."""
        return np.array([getattr(f, attr) for f in self.per_image()], dtype=float if attr == "encode_flops" else np.int64)

    def per_request_file_bytes(self) -> np.ndarray:
        out = np.zeros(self.requests, dtype=np.int64)
        np.add.at(out, np.repeat(np.arange(self.requests), np.diff(self.offsets)), self.file_bytes[self.images])
        return out

    def per_request(self, attr: str) -> np.ndarray:
        """A figure summed over each request's images (every occurrence counts)."""
        values = self.column(attr)
        out = np.zeros(self.requests, dtype=values.dtype)
        counts = np.diff(self.offsets)
        rows = np.repeat(np.arange(self.requests), counts)
        np.add.at(out, rows, values[self.images])
        return out


def table(per_request: Sequence[Sequence[tuple]], vision_model: str = VISION_MODEL) -> ImageTable:
    """From each request's list of (image_id, height, width[, file_bytes]); an id seen again
    must have the same size (else ParamError('images'))."""
    index: dict[str, int] = {}
    ids: list[str] = []
    hs: list[int] = []
    ws: list[int] = []
    fb: list[int] = []
    images: list[int] = []
    offsets = [0]
    for row, items in enumerate(per_request):
        for item in items:
            image_id, h, w = str(item[0]), int(item[1]), int(item[2])
            size = int(item[3]) if len(item) > 3 else 0
            k = index.get(image_id)
            if k is None:
                k = index[image_id] = len(ids)
                ids.append(image_id)
                hs.append(h)
                ws.append(w)
                fb.append(size)
            elif (hs[k], ws[k]) != (h, w):
                raise ParamError("images", f"request {row}: image {image_id!r} is {h}x{w}, earlier {hs[k]}x{ws[k]}; "
                                 "valid: one size per image id")
            images.append(k)
        offsets.append(len(images))
    return ImageTable(tuple(ids), np.array(hs, dtype=np.int64), np.array(ws, dtype=np.int64),
                      np.array(fb, dtype=np.int64), np.array(images, dtype=np.int64),
                      np.array(offsets, dtype=np.int64), vision_model)


def synthetic(n: int, share: float, size: tuple[int, int], distinct: int = 0, file_bytes: int = vc.BOOK_FILE_BYTES,
              vision_model: str = VISION_MODEL) -> ImageTable:
    """image_share= of n requests carry one image of `size`: exactly round(n·share) of them,
    spread evenly (every stretch of the stream holds the share, as the windows' classes do).
    distinct=0: every image is its own; distinct=k: the images cycle through k ids, so an
    encoder cache can hit."""
    if not 0.0 <= share <= 1.0:
        raise ParamError("image_share", f"got {share!r}; valid: 0..1")
    i = np.arange(n + 1)
    flags = np.diff(np.floor(i * share + 1e-9)) > 0
    per: list[list[tuple]] = []
    count = 0
    for has in flags:
        if has:
            k = count % distinct if distinct > 0 else count
            per.append([(f"img{k}", size[0], size[1], file_bytes)])
            count += 1
        else:
            per.append([])
    return table(per, vision_model)
