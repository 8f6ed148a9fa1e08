"""Loading real files: formats, modes, orientation, and the safety rules."""
import numpy as np
import pytest
from PIL import Image

from core.registry import ParamError
from vision.loading import ImageLoadError, load_full_rgb, load_image


@pytest.mark.parametrize("key,fmt", [("png_rgb", "PNG"), ("jpeg", "JPEG"), ("webp", "WEBP"), ("bmp", "BMP"),
                                     ("tiff", "TIFF")])
def test_formats_load_with_size_and_file_bytes(images, key, fmt):
    img = load_image(images[key])
    assert img.format == fmt
    assert (img.width, img.height) == (320, 200)
    assert img.pixels.shape == (200, 320, 3) and img.pixels.dtype == np.uint8
    assert img.file_bytes == images[key].stat().st_size
    # The gradient survives: red grows to the right, green downwards.
    assert img.pixels[100, 300, 0] > img.pixels[100, 20, 0] + 150
    assert img.pixels[190, 100, 1] > img.pixels[10, 100, 1] + 150


@pytest.mark.parametrize("key,mode,note", [("rgba", "RGBA", "checkerboard"), ("la", "LA", "checkerboard"),
                                           ("palette", "P", ""), ("cmyk", "CMYK", "CMYK"),
                                           ("gray16", "I;16", "16-bit")])
def test_modes_become_rgb_for_display(images, key, mode, note):
    img = load_image(images[key])
    assert img.mode == mode
    assert img.pixels.ndim == 3 and img.pixels.shape[2] == 3
    if note:
        assert any(note in n for n in img.notes)


def test_transparent_half_shows_checkerboard(images):
    img = load_image(images["rgba"])
    left = img.pixels[:, :160]
    # Fully transparent: only the two checker greys remain, none of the gradient's blue 90.
    assert set(np.unique(left[..., 2])) <= {160, 205}
    assert np.all(img.pixels[:, 170:, 2] == 90)


def test_16bit_is_scaled_not_clipped(images):
    img = load_image(images["gray16"])
    assert img.pixels[:, -1, 0].max() == round(89 * 700 / 257)
    assert img.pixels[:, 0, 0].max() == 0


def test_gif_first_frame_said_so(images):
    img = load_image(images["gif"])
    assert img.frames == 3
    assert tuple(img.pixels[10, 10]) == (255, 0, 0)
    assert any("first frame" in n for n in img.notes)


def test_exif_orientation_applied(images):
    img = load_image(images["exif6"])
    assert img.orientation == 6
    assert (img.width, img.height) == (200, 320)
    assert img.pixels.shape == (320, 200, 3)
    # Rotated 90° clockwise: the stored top row (green = 0) is now the right column.
    assert img.pixels[:, -3, 1].mean() < 40
    assert img.pixels[:, 2, 1].mean() > 200
    full = load_full_rgb(images["exif6"])
    assert full.shape == (320, 200, 3)


@pytest.mark.parametrize("key,words", [("truncated_png", "truncated"), ("truncated_jpeg", "truncated"),
                                       ("text", "not an image"), ("empty", "empty"),
                                       ("bomb", "decompression bomb")])
def test_bad_files_give_one_clear_error(images, key, words):
    # An error, never a hang (a hang would trip pytest's faulthandler_timeout, not a clock here).
    with pytest.raises(ImageLoadError) as err:
        load_image(images[key])
    assert isinstance(err.value, ParamError) and err.value.param == "image"
    assert images[key].name in str(err.value)
    assert words in str(err.value).lower()


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")  # Pillow warns at open; we refuse
def test_pixel_limit_is_configurable(images):
    with pytest.raises(ImageLoadError) as err:
        load_image(images["big_claim"], max_pixels=100_000_000)
    assert "144.0 MP" in str(err.value) and "pixel limit" in str(err.value)
    with pytest.raises(ImageLoadError):
        load_image(images["png_rgb"], max_pixels=320 * 200 - 1)
    assert load_image(images["png_rgb"], max_pixels=320 * 200).width == 320
    with pytest.raises(ParamError) as err:
        load_image(images["png_rgb"], max_pixels=0)
    assert err.value.param == "max_pixels"


def test_missing_file(tmp_path):
    with pytest.raises(ImageLoadError) as err:
        load_image(tmp_path / "nope.png")
    assert "cannot read" in str(err.value)


def test_large_image_shown_downsampled_figures_unchanged(tmp_path):
    path = tmp_path / "wide.jpg"
    Image.fromarray(np.full((1500, 4000, 3), 128, np.uint8)).save(path, quality=80)
    img = load_image(path, display_max_side=1000)
    assert (img.width, img.height) == (4000, 1500)  # the model's figures use these
    assert max(img.pixels.shape[:2]) <= 1000
    assert img.display_scale == pytest.approx(img.pixels.shape[1] / 4000)
    assert any("full 4000×1500" in n for n in img.notes)


def test_big_jpeg_is_decoded_at_display_size_and_measured_at_full_size(tmp_path):
    """Issue 10: a photo is shown from a reduced decode (JPEG draft mode) that looks like
    the full picture shrunk, while its size, and so every figure, is the full one."""
    from vision.sample import write_photo

    path = tmp_path / "photo6mp.jpg"
    write_photo(path, 3000, 2000, orientation=6)  # taken sideways: 2000 wide, 3000 high upright
    shown = load_image(path, display_max_side=800)
    assert max(shown.pixels.shape[:2]) == 800 and (shown.width, shown.height) == (2000, 3000)
    full = load_full_rgb(path)
    assert full.shape[:2] == (shown.height, shown.width)
    shrunk = np.asarray(Image.fromarray(full).resize(shown.pixels.shape[1::-1], Image.Resampling.BOX), dtype=int)
    assert np.abs(shrunk - shown.pixels).mean() < 6  # the same picture, upright
