"""Resize policy, patchify and the overlay grids as arrays."""
import numpy as np
import pytest

from core.registry import ParamError, get
from vision.grid import MIN_LINE_GAP_PX, PatchGrid, line_stride
from vision.resize import ResizePolicy, patchify, resize_for_model, token_mosaic
from vision.sample import sample_image


def test_sample_is_the_books_example():
    img = sample_image()
    lay = ResizePolicy().layout(img.height, img.width)
    assert (lay.patches, lay.visual_tokens) == (1600, 400)
    assert img.file_bytes == 800_000


def test_policy_matches_calculator():
    pol = ResizePolicy("fit")
    for h, w in ((1000, 750), (4000, 6000), (90, 120)):
        lay = pol.layout(h, w)
        out = get("vision.tokens").run({"height": h, "width": w, **pol.params()})
        assert (lay.model_height, lay.model_width, lay.visual_tokens) == (out["model_height"], out["model_width"],
                                                                          out["visual_tokens"])


def test_policy_rejects_bad_values():
    with pytest.raises(ParamError):
        ResizePolicy("stretch")
    with pytest.raises(ParamError):
        ResizePolicy(min_pixels=10, max_pixels=5)


def test_resize_for_model_fit_and_keep():
    pixels = np.random.default_rng(0).integers(0, 255, (500, 700, 3), dtype=np.uint8)
    fit = resize_for_model(pixels, ResizePolicy("fit"))
    assert fit.shape == (512, 704, 3)
    keep = resize_for_model(pixels, ResizePolicy("keep"))
    assert keep.shape == (512, 704, 3)
    assert np.array_equal(keep[:500, :700], pixels)
    assert not keep[500:].any() and not keep[:, 700:].any()


def test_patchify_is_exact_view():
    pixels = np.arange(64 * 96 * 3, dtype=np.int32).reshape(64, 96, 3)
    p = patchify(pixels, 16)
    assert p.shape == (4, 6, 16, 16, 3)
    assert np.array_equal(p[2, 3], pixels[32:48, 48:64])
    assert np.shares_memory(p, pixels)
    with pytest.raises(ParamError):
        patchify(pixels[:60], 16)


def test_token_mosaic_means():
    pixels = np.zeros((64, 64, 3), np.uint8)
    pixels[:32, 32:] = 200
    mos = token_mosaic(pixels, 16, 2)
    assert mos.shape == (2, 2, 3)
    assert mos[0, 1, 0] == 200 and mos[0, 0, 0] == 0


def test_grid_lines_at_640():
    lay = ResizePolicy().layout(640, 640)
    grid = PatchGrid(lay, 640, 640)
    x, y = grid.patch_lines()
    assert len(x) == len(y) == 2 * (41 + 41)
    assert sorted(set(x.tolist())) == [16.0 * i for i in range(41)]
    tx, ty = grid.token_lines()
    assert len(tx) == 2 * (21 + 21)
    assert tx.max() == 640 and ty.max() == 640


def test_grid_on_downsampled_display():
    lay = ResizePolicy().layout(3000, 4000)  # fits to multiples of 32
    grid = PatchGrid(lay, 1000, 750)
    x, _ = grid.patch_lines()
    assert x.max() == pytest.approx(1000)
    assert grid.patch_w == pytest.approx(1000 / lay.grid_w)


def test_token_hover_and_its_patches():
    lay = ResizePolicy().layout(640, 640)
    grid = PatchGrid(lay, 640, 640)
    idx = grid.token_index()
    assert idx.shape == (40, 40) and idx.max() == 399
    t = grid.token_at(100, 40)  # column 3 (96..128), row 1 (32..64)
    assert t == 1 * 20 + 3
    patches = grid.patches_of_token(t)
    assert patches.tolist() == [[2, 6], [2, 7], [3, 6], [3, 7]]
    assert all(idx[r, c] == t for r, c in patches)
    rects = grid.patch_rects(patches)
    assert rects[0].tolist() == [96, 32, 16, 16]
    assert grid.token_rect(t) == (96, 32, 32, 32)
    assert grid.token_at(-1, 5) is None and grid.token_at(641, 5) is None


def test_keep_grid_extends_past_the_image():
    lay = ResizePolicy("keep").layout(650, 641)
    grid = PatchGrid(lay, 641, 650, resize="keep")
    x, y = grid.token_lines()
    assert x.max() == pytest.approx(672) and y.max() == pytest.approx(672)


# ---- thinned grids (issue 10: a big photo's grid must not paint the picture over) ----

def test_line_stride_keeps_lines_apart():
    assert line_stride(20.0) == 1
    assert line_stride(MIN_LINE_GAP_PX) == 1
    assert line_stride(MIN_LINE_GAP_PX - 0.01) == 2
    assert line_stride(MIN_LINE_GAP_PX / 5) == 8
    assert line_stride(MIN_LINE_GAP_PX / 20) == 32
    for px in (0.05, 0.7, 2.9, 5.99):
        k = line_stride(px)
        assert k * px >= MIN_LINE_GAP_PX and (k // 2) * px < MIN_LINE_GAP_PX


def test_thinned_lines_are_every_kth_and_keep_the_outline():
    lay = ResizePolicy().layout(4000, 6000)  # 312 × 208 patches
    grid = PatchGrid(lay, 1280, 853)
    x, y = grid.patch_lines(stride=8)
    vertical = sorted(set(x[y == 0.0].tolist()))  # the x of every line touching the top edge
    full_x, _ = grid.patch_lines()
    assert len(full_x) // 2 == (lay.grid_w + 1) + (lay.grid_h + 1)
    assert len(x) // 2 == (lay.grid_w // 8 + 1) + (lay.grid_h // 8 + 1)  # both grids are multiples of 8
    assert vertical[0] == 0 and vertical[-1] == pytest.approx(1280)  # the outline stays
    assert np.allclose(np.diff(vertical), 8 * grid.patch_w)


def test_lines_only_in_the_box_and_clipped_to_it():
    lay = ResizePolicy().layout(4000, 6000)
    grid = PatchGrid(lay, 1280, 853)
    box = (100.0, 200.0, 300.0, 260.0)
    x, y = grid.patch_lines(box=box)
    assert len(x) and x.min() >= 100 and x.max() <= 300 and y.min() >= 200 and y.max() <= 260
    in_box = np.sum((np.arange(lay.grid_w + 1) * grid.patch_w >= 100) & (np.arange(lay.grid_w + 1) * grid.patch_w <= 300)) \
        + np.sum((np.arange(lay.grid_h + 1) * grid.patch_h >= 200) & (np.arange(lay.grid_h + 1) * grid.patch_h <= 260))
    assert len(x) // 2 == in_box
    tx, _ = grid.token_lines(stride=2, box=(-50.0, -50.0, -1.0, -1.0))  # outside the picture
    assert len(tx) == 0
