"""§3.3.2 image generation: 4,096 latent positions, 100 DiT forwards, about 7.830e15 FLOPs."""
import numpy as np
import pytest

from core.registry import ParamError, get
from core.verify import verify_calculator
from core.vision import image_gen


def test_book_rows_pass():
    rows = verify_calculator(get("image.diffusion"))
    assert rows and all(r.ok for r in rows), [(r.output, r.book_value, r.computed) for r in rows if not r.ok]


def test_book_defaults():
    out = get("image.diffusion").run()
    assert out["latent_positions"] == 4096
    assert (out["latent_height"], out["latent_width"]) == (64, 64)
    assert out["dit_forwards"] == 100
    assert f"{out['flops']:.3e}" == "7.830e+15"
    assert out["flops"] == pytest.approx(out["flops_per_forward"] * 100)


def test_steps_linear_cfg_halves():
    base = get("image.diffusion").run()
    double = get("image.diffusion").run({"steps": 100})
    no_cfg = get("image.diffusion").run({"cfg": "false"})
    assert double["flops"] == pytest.approx(2 * base["flops"])
    assert no_cfg["dit_forwards"] == 50
    assert no_cfg["flops"] == pytest.approx(base["flops"] / 2)


def test_resolution_is_not_linear():
    base = get("image.diffusion").run()
    big = get("image.diffusion").run({"height": 2048, "width": 2048})
    assert big["latent_positions"] == 4 * base["latent_positions"]
    assert big["flops"] > 4 * base["flops"]
    assert big["flops_per_position"] > base["flops_per_position"]
    assert big["attention_share"] > base["attention_share"]


def test_sweep_matches_calculator_and_bends_up():
    sweep = image_gen.sweep_sides("qwen-image-dit", [512, 1024, 2048, 4096], 50, True, 512)
    assert sweep["positions"].tolist() == [1024, 4096, 16384, 65536]
    assert sweep["flops"][1] == pytest.approx(get("image.diffusion").run()["flops"])
    assert sweep["linear_flops"][1] == pytest.approx(sweep["flops"][1])
    # Above the book's 1024² the curve rises faster than per-pixel scaling, and more so
    # the larger the image.
    gap = sweep["flops"][2:] / sweep["linear_flops"][2:]
    assert np.all(gap > 1) and gap[1] > gap[0]


def test_size_must_fit_latent_patches():
    with pytest.raises(ParamError) as err:
        get("image.diffusion").run({"height": 1000})
    assert err.value.param == "height" and "multiple of 16" in str(err.value)
