"""Hostile and unusual files (issue 9): wide 16-bit images, float images with NaN, files that
cannot be read, special files, and cancelling a decode."""
import errno
import os
import threading

import numpy as np
import pytest
from PIL import Image

from core.cancel import Cancelled, CancelToken
from core.vision.pixel_limit import PIXEL_LIMIT_MAX_MP, pixel_limit
from vision import loading
from vision.loading import HARD_MAX_PIXELS, ImageLoadError, load_full_rgb, load_image, load_images


def test_wide_16bit_grayscale_loads(tmp_path):
    """Above ~8192 px Pillow cannot shrink I;16 by reduction: it used to read as 'damaged'."""
    path = tmp_path / "wide16.png"
    values = (np.arange(9000)[None, :] * 7 % 65536).astype(np.uint16).repeat(300, axis=0)
    Image.fromarray(values).save(path)
    img = load_image(path)
    assert img.mode.startswith("I;16")
    assert (img.width, img.height) == (9000, 300)
    assert max(img.pixels.shape[:2]) <= loading.DISPLAY_MAX_SIDE
    assert any("16-bit" in n for n in img.notes)
    assert img.pixels.max() > 200 and img.pixels.min() < 20  # scaled, not clipped or blank
    assert load_full_rgb(path).shape == (300, 9000, 3)


def test_one_nan_does_not_blacken_a_float_image(tmp_path):
    path = tmp_path / "float.tiff"
    data = np.tile(np.linspace(0.0, 1.0, 200, dtype=np.float32), (100, 1))
    data[50, 100] = np.nan
    data[10, 10] = np.inf
    Image.fromarray(data, mode="F").save(path)
    img = load_image(path)
    gray = img.pixels[..., 0]
    assert gray[:, -1].min() == 255 and gray[:, 0].max() == 0  # stretched over the finite range
    assert gray[50, 100] == 0 and gray[10, 10] == 0  # non-finite pixels shown black
    assert gray[20, 150] == round(150 / 199 * 255)
    assert any("2 non-finite pixels ignored" in n for n in img.notes)


def test_all_nan_float_image_is_black_not_an_error(tmp_path):
    path = tmp_path / "nan.tiff"
    Image.fromarray(np.full((20, 30), np.nan, np.float32), mode="F").save(path)
    assert load_image(path).pixels.max() == 0


def test_permission_error_says_so(tmp_path, monkeypatch):
    path = tmp_path / "secret.png"
    Image.new("RGB", (10, 10)).save(path)
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):  # root reads anything: simulate the refusal instead
            real_open = os.open

            def refuse(p, *args, **kwargs):
                if os.fspath(p) == str(path):
                    raise PermissionError(errno.EACCES, "Permission denied", str(p))
                return real_open(p, *args, **kwargs)

            monkeypatch.setattr(loading.os, "open", refuse)
        with pytest.raises(ImageLoadError) as err:
            load_image(path)
    finally:
        path.chmod(0o644)
    assert str(err.value) == "image: secret.png: cannot read: permission denied"
    assert "damaged" not in str(err.value)


def test_missing_file_and_a_folder(tmp_path):
    with pytest.raises(ImageLoadError, match="nope.png: cannot read: no such file"):
        load_image(tmp_path / "nope.png")
    with pytest.raises(ImageLoadError, match="not a regular file"):
        load_image(tmp_path)


@pytest.mark.skipif(not hasattr(os, "mkfifo") or not os.path.exists("/dev/zero"), reason="POSIX special files")
def test_special_files_are_refused_without_reading(tmp_path):
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    with pytest.raises(ImageLoadError, match="not a regular file"):  # refused, never blocks
        load_image(fifo)
    link = tmp_path / "zero.png"
    link.symlink_to("/dev/zero")
    with pytest.raises(ImageLoadError, match="not a regular file"):
        load_image(link)


def test_the_largest_limit_the_panel_shows_is_accepted(tmp_path):
    path = tmp_path / "small.png"
    Image.new("RGB", (32, 32)).save(path)
    limit = pixel_limit(PIXEL_LIMIT_MAX_MP)
    assert limit <= HARD_MAX_PIXELS
    assert load_image(path, max_pixels=limit).width == 32


class _CancelAfter(CancelToken):
    """Cancels itself at the n-th check: a decode stopped half-way, deterministically."""

    def __init__(self, n):
        super().__init__()
        self.n, self.checks = n, 0

    def check(self):
        self.checks += 1
        if self.checks >= self.n:
            self.cancel()
        super().check()


def test_cancel_stops_a_decode_between_blocks(tmp_path):
    path = tmp_path / "noise.png"
    rng = np.random.default_rng(0)
    Image.fromarray(rng.integers(0, 255, (1000, 1000, 3), dtype=np.uint8)).save(path, compress_level=1)
    token = _CancelAfter(8)
    with pytest.raises(Cancelled):
        load_image(path, cancel=token)
    assert token.checks < 12  # stopped at once: the file is ~45 blocks of 64 kB
    done = CancelToken()
    done.cancel()
    with pytest.raises(Cancelled):
        load_images([path], cancel=done)
    assert load_image(path, cancel=CancelToken()).width == 1000


def test_batch_keeps_each_files_outcome(tmp_path):
    good = tmp_path / "good.png"
    Image.new("RGB", (64, 32)).save(good)
    bad = tmp_path / "bad.png"
    bad.write_text("not an image")
    out = load_images([good, bad, tmp_path / "gone.png"])
    assert [o.path for o in out] == [str(good), str(bad), str(tmp_path / "gone.png")]
    assert out[0].image.width == 64 and not out[0].error
    assert out[1].image is None and "bad.png: not an image" in out[1].error
    assert "gone.png: cannot read" in out[2].error


def test_loads_run_side_by_side(tmp_path):
    """No global state in the loader: two threads load at once (the runner has a pool)."""
    path = tmp_path / "pic.jpg"
    Image.new("RGB", (500, 300), (10, 200, 30)).save(path)
    results = []
    threads = [threading.Thread(target=lambda: results.append(load_image(path).width)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results == [500] * 4
