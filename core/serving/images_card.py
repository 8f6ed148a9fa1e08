"""The Serving panel's image fields as state: image_share=, image_size=, image_ids=,
encoder_cache_size=, epd_encoders= and ec_link_gb_s= as `lab simulate serving` takes them
(their Params: core/serving/simulate_keys.py's image block). A card of
core.serving.state.ServingState, so sessions, talks, reset and undo carry them;
widgets/serving/images_section.py runs replay A's workload with them. image_share=0 (the
default) is no image run. No Qt here."""
from __future__ import annotations

from core.registry import BookRef, Calculator
from core.serving.simulate_keys import MM_PARAMS, MM_TEXT_KEYS
from core.serving.text_param import TextParam
from core.serving.traces.images import parse_size

HEADING = "图片请求 · image requests"
_MM = {p.name: p for p in MM_PARAMS}


def _size(text: str) -> str:
    h, w = parse_size(text)
    return f"{h}x{w}"


def _cache_size(text: str) -> str:
    return str(_MM["encoder_cache_size"].parse(text))


PARAMS = (
    _MM["image_share"],
    TextParam("image_size", "", "640x640", MM_TEXT_KEYS["image_size"], empty_ok=False, check=_size),
    _MM["image_ids"],
    # '' leaves the key out: vLLM's default, the encoder budget
    TextParam("encoder_cache_size", "", "", "'' (vLLM's default: the encoder budget) or visual tokens kept, "
              + _MM["encoder_cache_size"].range_text(), check=_cache_size),
    _MM["epd_encoders"],
    _MM["ec_link_gb_s"],
)
NAMES = tuple(p.name for p in PARAMS)


def _calculator() -> Calculator:
    """The image fields as a card (not a registered calculator: the images section's form)."""
    return Calculator(name="serving.images", title=HEADING, ref=BookRef("3.3"), params=PARAMS, outputs=(),
                      compute=lambda **_: {})


IMAGES = _calculator()


def image_keys(inputs) -> dict[str, str]:
    """The CLI's image keys of the card's inputs ({}: no image run). Each key off its
    default, image_share always (it makes the run one with images)."""
    if not inputs["image_share"]:
        return {}
    raw = {"image_share": _text(inputs["image_share"])}
    for p in PARAMS[1:]:
        value = inputs[p.name]
        if value != p.parse(p.default) and value != "":
            raw[p.name] = _text(value)
    return raw


def _text(value) -> str:
    """A value as the CLI reads it back exactly (repr: every digit of a float)."""
    return value if isinstance(value, str) else str(value) if isinstance(value, int) else repr(float(value))
