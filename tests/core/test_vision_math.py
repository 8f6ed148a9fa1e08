"""§3.3.1 calculators against the book's figures (图 3-15/3-16, 练习 3-5)."""
import math

import pytest

from core.registry import ParamError, get, registry
from core.verify import verify_calculator
from core.vision.layout import KV_BYTES_PER_TOKEN, MAX_PIXELS, MIN_PIXELS, fit_size, layout

MIB = 1024 ** 2
VISION_CALCS = ("vision.tokens", "vision.request", "vision.handoff", "vision.encode_flops", "vision.compare")


def test_registered_and_every_book_row_passes():
    names = registry().names()
    for name in VISION_CALCS:
        assert name in names
        rows = verify_calculator(get(name))
        assert rows, name
        bad = [(r.output, r.book_value, r.computed) for r in rows if not r.ok]
        assert not bad, (name, bad)


def test_tokens_book_figures_at_640():
    out = get("vision.tokens").run()
    assert out["patches"] == 1600
    assert out["visual_tokens"] == 400
    assert out["ec_single_bytes"] == 2_048_000
    assert out["ec_bytes"] == 8_192_000
    assert out["ec_bytes"] / MIB == 7.8125
    assert out["kv_bytes"] / MIB == 56.25
    assert (out["token_grid_h"], out["token_grid_w"]) == (20, 20)


def test_exercise_3_5_side_doubles_everything_four_times():
    small = get("vision.tokens").run()
    big = get("vision.tokens").run({"height": 1280, "width": 1280})
    for key in ("patches", "visual_tokens", "ec_single_bytes", "ec_bytes", "kv_bytes"):
        assert big[key] == 4 * small[key], key
    assert big["ec_bytes"] / MIB == 31.25
    assert big["kv_bytes"] / MIB == 225


def test_four_images_and_400_text_tokens():
    out = get("vision.request").run()
    assert out["ec_bytes"] / MIB == 31.25
    assert out["input_kv_bytes"] / MIB == 281.25
    assert out["input_tokens"] == 2000
    assert out["per_image_tokens"] == [400] * 4


def test_question_position_decides_which_kv_survives():
    after = get("vision.request").run({"question": "after"})
    before = get("vision.request").run({"question": "before"})
    assert after["reusable_kv_bytes"] == 1600 * KV_BYTES_PER_TOKEN
    assert before["reusable_kv_bytes"] == 0
    assert before["recomputed_kv_bytes"] == before["input_kv_bytes"]
    # The EC depends on the image only: it survives in both layouts.
    assert after["reusable_ec_bytes"] == before["reusable_ec_bytes"] == after["ec_bytes"]
    with_prefix = get("vision.request").run({"question": "before", "prefix_tokens": 100})
    assert with_prefix["reusable_kv_bytes"] == 100 * KV_BYTES_PER_TOKEN


def test_request_mixed_sizes_and_broadcast_lists():
    out = get("vision.request").run({"heights": "640,1280", "widths": "640,1280", "file_bytes": "1000,2000",
                                     "text_tokens": 0})
    assert out["per_image_tokens"] == [400, 1600]
    assert out["raw_bytes"] == 3000
    assert out["ec_bytes"] == 5 * 8_192_000
    with pytest.raises(ParamError) as err:
        get("vision.request").run({"heights": "640,640,640", "widths": "640,640"})
    assert err.value.param == "widths" and "3 images" in str(err.value)
    with pytest.raises(ParamError) as err:
        get("vision.request").run({"heights": "640.5"})
    assert err.value.param == "heights"


def test_handoff_points_grow_by_orders():
    out = get("vision.handoff").run()
    assert out["raw_bytes"] == 800_000
    assert out["ec_bytes"] == 8_192_000
    assert out["kv_bytes"] == 56.25 * MIB
    assert out["raw_bytes"] < out["ec_bytes"] < out["kv_bytes"]
    with_text = get("vision.handoff").run({"text_tokens": 400})
    assert with_text["ec_bytes"] == out["ec_bytes"]  # text joins the KV, never the EC
    assert with_text["kv_bytes"] == out["kv_bytes"] + 400 * KV_BYTES_PER_TOKEN
    zero = get("vision.handoff").run({"file_bytes": "0"})
    assert zero["ec_over_raw"] is None


def test_encode_flops_about_1_310_tflops_and_superlinear():
    out = get("vision.encode_flops").run()
    assert round(out["encode_flops"] / 1e12, 3) == 1.310
    parts = sum(out[k] for k in ("patch_embed_flops", "block_linear_flops", "attention_flops", "merger_flops"))
    assert parts == out["encode_flops"]
    big = get("vision.encode_flops").run({"height": 1280, "width": 1280})
    assert 4 < big["encode_flops"] / out["encode_flops"] < 16
    assert big["attention_flops"] == 16 * out["attention_flops"]
    assert big["attention_share"] > out["attention_share"]


def test_compare_matches_tokens_calculator():
    out = get("vision.compare").run()
    assert out["tokens_ratio"] == out["ec_ratio"] == out["kv_ratio"] == 4
    assert out["encode_flops_ratio"] > 4
    assert out["encode_flops_b"] == get("vision.encode_flops").run({"height": 1280, "width": 1280})["encode_flops"]


@pytest.mark.parametrize("h,w,expected", [
    (640, 640, (640, 640)),
    (1000, 750, (992, 736)),       # each side rounded to a multiple of 32
    (100, 100, (256, 256)),        # lifted to min_pixels
    (6000, 4000, (4992, 3328)),    # scaled under max_pixels, aspect kept
])
def test_fit_size_like_the_processor(h, w, expected):
    mh, mw = fit_size(h, w, 32, MIN_PIXELS, MAX_PIXELS)
    assert (mh, mw) == expected
    assert mh % 32 == 0 and mw % 32 == 0
    assert MIN_PIXELS <= mh * mw <= MAX_PIXELS


def test_fit_size_keeps_aspect_and_bounds_over_many_shapes():
    for h in (33, 97, 480, 1081, 3000, 7777):
        for w in (40, 333, 1920, 5000):
            mh, mw = fit_size(h, w, 32, MIN_PIXELS, MAX_PIXELS)
            assert mh % 32 == 0 and mw % 32 == 0
            assert mh * mw <= MAX_PIXELS
            assert mh * mw >= MIN_PIXELS or max(h, w) / min(h, w) > 20
            if min(mh, mw) >= 320:  # rounding to 32 px distorts only tiny sides much
                assert math.isclose(mh / mw, h / w, rel_tol=0.1)


def test_keep_pads_to_whole_tokens():
    lay = layout(650, 641, resize="keep")
    assert (lay.model_height, lay.model_width) == (672, 672)
    assert lay.visual_tokens == 21 * 21
    out = get("vision.tokens").run({"height": 650, "width": 641, "resize": "keep"})
    assert out["visual_tokens"] == 441


@pytest.mark.parametrize("overrides,param", [
    ({"height": 0}, "height"),
    ({"height": "nan"}, "height"),
    ({"patch": -16}, "patch"),
    ({"resize": "stretch"}, "resize"),
    ({"min_pixels": 20_000_000}, "min_pixels"),
    # Aspect beyond 200:1 names the side that is too long (issue 9: an error about width named height).
    ({"height": 10, "width": 5000}, "width"),
    ({"height": 5000, "width": 10}, "height"),
])
def test_invalid_input_names_the_field(overrides, param):
    with pytest.raises(ParamError) as err:
        get("vision.tokens").run(overrides)
    assert err.value.param == param
    assert "valid" in str(err.value)
