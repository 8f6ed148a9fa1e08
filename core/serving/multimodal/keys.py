"""The image keys of `lab simulate serving` (their Params: core/serving/simulate_keys.py's
image block) taken out of a run's keys and checked. Any of them makes the run multimodal
(core/serving/multimodal/report.py), and so does a trace with an `images` column (the
column then says which requests carry what; image_share= is not used).

  image_share=0.5 image_size=1280x1280 image_ids=K   synthetic images (K ids in turn; 0: all distinct)
  encoder_cache_size=8192   max_num_encoder_input_tokens=   encoder_mfu=   vision_model=
  epd_encoders=N   ec_link_gb_s=   ec_link_latency_s=        EPD: N encoder cards, EC over a link
  image_link_gb_s=   image_link_latency_s=                    ship the image: files over a link, the instance encodes
The book's three handoffs are then three runs: image_link_gb_s= (ship the image), epd_encoders=
ec_link_gb_s= (ship EC), pools=1P1D kv_link= (ship KV; core/serving/multimodal/pd.py).
"""
from __future__ import annotations

import os
import stat
from functools import lru_cache

from core.registry import ParamError
from core.serving.multimodal.encoder import ENCODER_MFU
from core.serving.multimodal.images import VISION_MODEL
from core.serving.simulate_keys import MM_PARAMS, MM_TEXT_KEYS
from core.serving.traces.images import parse_size
from core.serving.traces.tabular import IMAGES

MM_KEYS = tuple(p.name for p in MM_PARAMS) + tuple(MM_TEXT_KEYS)


SNIFF_BYTES = 1 << 20


def is_multimodal(raw: dict) -> bool:
    """Whether raw names an image key, or a trace whose first MiB names an images column
    (a CSV header's column, a JSON line's field)."""
    return any(k in raw for k in MM_KEYS) or ("trace" in raw and trace_has_images(str(raw["trace"]).strip()))


def trace_has_images(path: str) -> bool:
    """Read once per version of the file (a sweep asks at every point)."""
    try:
        info = os.stat(path)
    except OSError:
        return False  # the loader names the file's problem
    if not stat.S_ISREG(info.st_mode):
        return False  # a FIFO or a device would block or never end: the loader refuses it
    return _sniff(path, (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns))


@lru_cache(maxsize=64)
def _sniff(path: str, stamp: tuple) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(SNIFF_BYTES)
    except OSError:
        return False
    first = head.lstrip(b"\xef\xbb\xbf").lstrip().split(b"\n", 1)[0]
    if first.startswith(b"{"):
        return b'"images"' in head
    return IMAGES in (name.strip().strip(b'"').decode("utf-8", "replace").lower() for name in first.split(b","))


def pop_image_keys(raw: dict) -> dict:
    """Take the image keys out of raw (text values), each checked; name -> value."""
    got: dict = {p.name: p.parse(raw.pop(p.name)) if p.name in raw else p.default for p in MM_PARAMS}
    if got["encoder_mfu"] is None:
        got["encoder_mfu"] = ENCODER_MFU
    got["image_size"] = parse_size(raw.pop("image_size")) if "image_size" in raw else (640, 640)
    got["vision_model"] = str(raw.pop("vision_model", VISION_MODEL)).strip()
    if not got["vision_model"]:
        raise ParamError("vision_model", "got ''; valid: a catalog key or a config.json path")
    return got
