"""The image keys of `lab simulate serving` (issue 15) and their check. Any of them, or a
trace with an `images` column, makes the run multimodal (core/serving/multimodal/report.py):

  image_share=0.5            the share of requests with one image (spread evenly)
  image_size=1280x1280       its size (HxW); image_ids=K: the images cycle through K ids
                             (0: every image its own), so an encoder cache can hit
  encoder_cache_size=8192    vLLM's encoder cache in visual tokens (0: none)
  max_num_encoder_input_tokens=   the per-step encoder budget (default: token_budget, vLLM's)
  encoder_mfu=0.4            the vision tower's share of the card's BF16 peak
  vision_model=              the vision tower: a catalog key or a Qwen3-VL config.json
  epd_encoders=N             EPD: N encoder cards in front of the engine (0: in the instance)
  ec_link_gb_s= ec_link_latency_s=   the link EC crosses to the prefill instance (EPD)
No Qt here.
"""
from __future__ import annotations

from core.registry import Param, ParamError
from core.serving.multimodal.encoder import ENCODER_MFU
from core.serving.multimodal.images import VISION_MODEL, parse_size

MAX_ENCODERS = 1024
# One ConnectX-7 at 400 Gbit/s: what an encoder node reaches a prefill node over.
EC_LINK_GB_S = 50.0

MM_PARAMS = (
    Param("image_share", "", 0.0, "share of requests carrying one image of image_size= (spread evenly)", 0, 1),
    Param("image_ids", "images", 0, "distinct image ids the images cycle through (0: every image its own; "
          "K: an encoder cache can hit)", 0, 1 << 30, kind="int"),
    Param("encoder_cache_size", "tokens", 0, "vLLM's encoder cache: visual tokens of encoder output kept across "
          "requests of the same image id (0: none); hits decided in arrival order", 0, 1 << 30, kind="int"),
    Param("max_num_encoder_input_tokens", "tokens", None, "encoder tokens one step may admit (vLLM's "
          "max_num_encoder_input_tokens; default: token_budget)", 1, 1 << 30, kind="int"),
    Param("encoder_mfu", "", ENCODER_MFU, "the vision tower's fraction of the card's BF16 dense peak (the "
          "chapter's 40%)", 0, 1, min_exclusive=True),
    Param("epd_encoders", "cards", 0, "EPD: encoder cards in front of the engine, first come first served, "
          "shipping EC over ec_link_gb_s= (0: the encoder runs in the instance, vLLM V1)", 0, MAX_ENCODERS,
          kind="int"),
    Param("ec_link_gb_s", "GB/s", EC_LINK_GB_S, "the link EC crosses from the encoders to the prefill instance "
          "(EPD; default a 400 Gbit/s NIC)", 0, 1e6, min_exclusive=True),
    Param("ec_link_latency_s", "s", 10e-6, "fixed time of one EC transfer (EPD)", 0, 10),
)
MM_TEXT_KEYS = {
    "image_size": "the size of image_share='s images, HxW pixels (default 640x640, the book's)",
    "vision_model": f"the vision tower: a catalog key ({VISION_MODEL}) or a Qwen3-VL config.json (its vision_config)",
}
MM_KEYS = tuple(p.name for p in MM_PARAMS) + tuple(MM_TEXT_KEYS)


def is_multimodal(raw: dict) -> bool:
    """Whether raw names an image key (a trace with an images column is found when read)."""
    return any(k in raw for k in MM_KEYS)


def pop_image_keys(raw: dict) -> dict:
    """Take the image keys out of raw (text values), each checked; name -> value."""
    got: dict = {p.name: p.parse(raw.pop(p.name)) if p.name in raw else p.default for p in MM_PARAMS}
    got["image_size"] = parse_size(raw.pop("image_size")) if "image_size" in raw else (640, 640)
    got["vision_model"] = str(raw.pop("vision_model", VISION_MODEL)).strip()
    if not got["vision_model"]:
        raise ParamError("vision_model", "got ''; valid: a catalog key or a config.json path")
    return got
