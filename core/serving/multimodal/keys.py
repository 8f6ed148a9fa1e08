"""The image keys of `lab simulate serving` (their Params: core/serving/simulate_keys.py's
image block) taken out of a run's keys and checked. Any of them makes the run multimodal
(core/serving/multimodal/report.py); a trace with an `images` column needs image_share=
left out (the column says which requests carry what).

  image_share=0.5 image_size=1280x1280 image_ids=K   synthetic images (K ids in turn; 0: all distinct)
  encoder_cache_size=8192   max_num_encoder_input_tokens=   encoder_mfu=   vision_model=
  epd_encoders=N   ec_link_gb_s=   ec_link_latency_s=        EPD: N encoder cards, EC over a link
"""
from __future__ import annotations

from core.registry import ParamError
from core.serving.multimodal.encoder import ENCODER_MFU
from core.serving.multimodal.images import VISION_MODEL
from core.serving.simulate_keys import MM_PARAMS, MM_TEXT_KEYS
from core.serving.traces.images import parse_size

MM_KEYS = tuple(p.name for p in MM_PARAMS) + tuple(MM_TEXT_KEYS)


def is_multimodal(raw: dict) -> bool:
    """Whether raw names an image key."""
    return any(k in raw for k in MM_KEYS)


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
