"""Image figures, the encoder cache and the numbers that enter the engine (issue 15's checks)."""
import numpy as np
import pytest

from core.registry import get
from core.serving.engine import replay
from core.serving.multimodal import encoder as enc
from core.serving.multimodal import images as im
from core.serving.multimodal.lm import engine_config, with_images
from core.serving.workload import Workload

MIB = 1024 ** 2


def _work(n, text=0, out=1, gap=1.0):
    return Workload(arrival_s=np.arange(n) * gap, input_tokens=np.full(n, text, dtype=np.int64),
                    output_tokens=np.full(n, out, dtype=np.int64))


def _plan(table, capacity):
    return enc.plan(table, np.arange(table.requests), capacity, enc.encoder_flops_per_s())


def test_640_enters_the_engine_as_lab_verify_rows():
    """400 tokens, 7.8125 MiB EC, 56.25 MiB KV: the Vision panel's and `lab verify`'s rows."""
    row = get("vision.tokens").compute(**{p.name: p.default for p in get("vision.tokens").params})
    assert (row["visual_tokens"], row["ec_bytes"], row["kv_bytes"]) == (400, 7.8125 * MIB, 56.25 * MIB)
    table = im.table([[("a", 640, 640)]])
    plan = _plan(table, 0)
    assert int(plan.ec_bytes[0]) == row["ec_bytes"] == 8_192_000
    config = engine_config()
    work = with_images(_work(1), table, plan)
    assert int(work.input_tokens[0]) == row["visual_tokens"]
    result = replay(work, config)
    assert int(result.input_tokens[0]) == 400 and result.prefill_tokens == 400
    assert result.input_tokens[0] * config.cost.kv_bytes_per_token == row["kv_bytes"] == 56.25 * MIB


def test_1280_is_the_exercise_figures():
    f = im.figures(1280, 1280)
    assert (f.visual_tokens, f.ec_bytes) == (1600, 31.25 * MIB)
    assert f.encode_flops == get("vision.encode_flops").compute(model=im.VISION_MODEL, height=1280, width=1280,
                                                                 resize="fit", min_pixels=65_536,
                                                                 max_pixels=16_777_216)["encode_flops"]


def test_encoder_seconds_are_flops_over_card_times_mfu():
    table = im.table([[("a", 640, 640)]])
    plan = _plan(table, 0)
    assert plan.seconds[0] == im.figures(640, 640).encode_flops / (989.4e12 * 0.40)


def test_a_hit_skips_exactly_that_images_flops():
    x, z = im.figures(640, 640), im.figures(1280, 960)
    table = im.table([[("x", 640, 640), ("y", 320, 480)], [("x", 640, 640), ("z", 1280, 960)]])
    cold, warm = _plan(table, 0), _plan(table, 100_000)
    assert warm.hits.tolist() == [0, 1] and cold.hits.tolist() == [0, 0]
    assert warm.flops[1] == z.encode_flops
    assert cold.flops[1] - warm.flops[1] == x.encode_flops
    assert warm.flops[0] == cold.flops[0]
    assert cold.ec_bytes[1] - warm.ec_bytes[1] == x.ec_bytes
    assert warm.tokens[1] == z.visual_tokens
    # The hit still puts the image's tokens into the prompt.
    assert with_images(_work(2), table).input_tokens.tolist() == [400 + im.figures(320, 480).visual_tokens,
                                                                  400 + z.visual_tokens]


def test_one_image_id_encodes_once_per_cache_lifetime():
    table = im.table([[("same", 640, 640)]] * 50)
    plan = _plan(table, 400)
    assert int(plan.misses.sum()) == 1 and int(plan.hits.sum()) == 49
    assert plan.flops.sum() == im.figures(640, 640).encode_flops
    # No cache: every request encodes it.
    assert int(_plan(table, 0).misses.sum()) == 50


def test_lru_evicts_in_arrival_order():
    # Two 400-token images alternating: a 400-token cache holds one, so every request misses;
    # 800 holds both: each encodes once.
    table = im.table([[("a", 640, 640)], [("b", 640, 640)]] * 5)
    assert int(_plan(table, 400).misses.sum()) == 10
    assert int(_plan(table, 800).misses.sum()) == 2
    # An image bigger than the whole cache is never cached.
    big = im.table([[("big", 1280, 1280)]] * 3)
    assert int(_plan(big, 1000).misses.sum()) == 3


def test_an_image_twice_in_one_prompt_encodes_once():
    table = im.table([[("a", 640, 640), ("a", 640, 640)]])
    plan = _plan(table, 0)
    assert (int(plan.misses[0]), int(plan.hits[0])) == (1, 1)
    assert with_images(_work(1), table).input_tokens[0] == 800


def test_synthetic_share_and_distinct_ids():
    table = im.synthetic(10, 0.5, (1280, 1280), distinct=2)
    counts = np.diff(table.offsets)
    assert counts.tolist() == [0, 1] * 5
    assert table.ids == ("img0", "img1")
    assert im.synthetic(4, 1.0, (640, 640)).ids == ("img0", "img1", "img2", "img3")


def test_one_size_per_id_and_size_text():
    with pytest.raises(Exception, match="one size per image id"):
        im.table([[("a", 640, 640)], [("a", 320, 320)]])
    assert im.parse_size("1280x720") == (1280, 720)
    with pytest.raises(Exception, match="HxW"):
        im.parse_size("1280")
