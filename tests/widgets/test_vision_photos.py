"""Vision on real photos (issue 10): a 6 MP and a 24 MP JPEG, made here, shown at 1280×720.
The grid is thinned so the picture shows through, zooming in brings every line back, the
grid follows a pan, and the figures are those of the full-resolution picture."""
import numpy as np
import pytest
from PySide6 import QtCore, QtGui

from core.registry import get
from vision.grid import MIN_LINE_GAP_PX
from vision.loading import load_full_rgb
from vision.sample import write_photo
from widgets.kit.theme import color
from widgets.vision import VisionPanel

SIZES = {"6mp": (3000, 2000), "24mp": (6000, 4000)}


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    """The two photos, written once for the module (not committed: 2-8 MB each)."""
    folder = tmp_path_factory.mktemp("photos")
    made = {}
    for name, (w, h) in SIZES.items():
        made[name] = folder / f"{name}.jpg"
        write_photo(made[name], w, h)
    return made


@pytest.fixture
def panel(qtbot):
    w = VisionPanel()
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    qtbot.waitExposed(w, timeout=60_000)
    yield w
    w.close()


def _open(panel, qtbot, path):
    with qtbot.waitSignal(panel.images_changed, timeout=60_000):
        panel.load_files([path])
    qtbot.waitUntil(lambda: panel.view.pixels is panel.current_image().pixels, timeout=60_000)


def _grab_picture(view) -> np.ndarray:
    """The picture's rectangle of the view as rendered now, (rows, cols, 3) int."""
    shot = view.grab().toImage().convertToFormat(QtGui.QImage.Format.Format_RGB888)
    rows, cols = shot.height(), shot.width()
    pixels = np.frombuffer(shot.constBits(), np.uint8).reshape(rows, shot.bytesPerLine())[:, : 3 * cols]
    pixels = pixels.reshape(rows, cols, 3).astype(int)
    rect = view.view.mapViewToScene(QtCore.QRectF(0, 0, view.pixels.shape[1], view.pixels.shape[0])).boundingRect()
    x0, y0 = max(0, int(rect.left()) + 2), max(0, int(rect.top()) + 2)
    x1, y1 = min(cols, int(rect.right()) - 2), min(rows, int(rect.bottom()) - 2)
    return pixels[y0:y1, x0:x1]


def _grid_covered_share(panel) -> float:
    """The share of the picture's pixels on screen that the grids change visibly: the view
    rendered as it is against the same view with the grids hidden."""
    view = panel.view
    overlays = (view.patch_overlay, view.patch_shadow, view.token_overlay, view.legend)
    shown = [item.isVisible() for item in overlays]
    with_grid = _grab_picture(view)
    for item in overlays:
        item.setVisible(False)
    bare = _grab_picture(view)
    for item, on in zip(overlays, shown):
        item.setVisible(on)
    return float((np.abs(with_grid - bare).sum(axis=2) > 60).mean())


@pytest.mark.parametrize("name", list(SIZES))
def test_big_photo_grid_is_thinned_and_the_picture_shows(panel, qtbot, photos, name):
    _open(panel, qtbot, photos[name])
    view = panel.view
    width, height = view.view.width(), view.view.height()
    # Lines at least MIN_LINE_GAP_PX apart over at most three view spans each way.
    bound = 3 * (width + height) / MIN_LINE_GAP_PX + 4
    drawn = view.drawn_lines()
    assert 0 < drawn["token"] <= bound and drawn["patch"] <= bound
    lay = view.grid.layout
    assert drawn["token"] < lay.token_grid_w + lay.token_grid_h  # fewer than the whole grid
    assert view.token_stride > 1
    assert view.legend.isVisible() and f"= {view.token_stride} token" in view.legend.text()
    share = _grid_covered_share(panel)
    assert share < 0.35, f"the grid covers {share:.0%} of the picture"


def test_unthinned_grid_would_hide_the_photo(panel, qtbot, photos):
    """The check above can fail: every line of the 24 MP grids drawn covers the picture."""
    _open(panel, qtbot, photos["24mp"])
    view = panel.view
    view.patch_overlay.setData(*view.grid.patch_lines())
    view.patch_overlay.setVisible(True)
    view.token_overlay.setData(*view.grid.token_lines())
    view.token_overlay.setPen(QtGui.QPen(color("decode"), 1.8))
    assert _grid_covered_share(panel) > 0.9


def test_zoom_in_draws_a_finer_grid_and_fit_returns(panel, qtbot, photos):
    _open(panel, qtbot, photos["24mp"])
    view, column = panel.view, panel.column
    strides = [(view.patch_stride, view.token_stride)]
    for _ in range(4):
        column.zoom_in_button.click()
        strides.append((view.patch_stride, view.token_stride))
    assert strides[-1][1] < strides[0][1] and strides[-1][0] < strides[0][0]
    assert all(a >= b for a, b in zip([s[1] for s in strides], [s[1] for s in strides[1:]]))
    assert panel.state.view("zoom") != ()  # the zoom is the state's, in image pixels
    box = panel.state.view("zoom")
    assert box[2] - box[0] < 6000 / 4
    for _ in range(3):
        column.zoom_in_button.click()
    assert (view.patch_stride, view.token_stride) == (1, 1)  # every patch line at last
    assert not view.legend.isVisible()
    assert view.drawn_lines()["patch"] > 0
    column.zoom_fit_button.click()
    assert panel.state.view("zoom") == ()
    assert (view.patch_stride, view.token_stride) == strides[0]


def test_the_grid_follows_a_pan(panel, qtbot, photos):
    _open(panel, qtbot, photos["24mp"])
    view = panel.view
    for _ in range(6):
        view.zoom_by(view.ZOOM_STEP)
    (x0, x1), (y0, y1) = view.view.viewRange()
    view.view.translateBy(x=900 - (x0 + x1) / 2, y=600 - (y0 + y1) / 2)  # to the lower right
    (x0, x1), (y0, y1) = view.view.viewRange()
    xs, ys = view.token_overlay.getData()
    vertical = xs[::2][xs[::2] == xs[1::2]]
    gap = view.grid.patch_w * view.grid.layout.merge * view.token_stride
    assert vertical.min() <= x0 + gap and vertical.max() >= x1 - gap  # lines across the visible range
    assert len(xs) // 2 <= 3 * (view.view.width() + view.view.height()) / MIN_LINE_GAP_PX + 4


def test_figures_are_the_full_resolution_ones(panel, qtbot, photos):
    """Shown from a reduced decode; counted from the file's full size."""
    _open(panel, qtbot, photos["24mp"])
    img = panel.current_image()
    assert max(img.pixels.shape[:2]) <= 1280 < img.width  # the display array is small
    full = load_full_rgb(photos["24mp"])
    assert (img.height, img.width) == full.shape[:2]
    inputs = dict(panel.state.card("request").inputs)
    expected = get("vision.request").run({**inputs, "heights": [full.shape[0]], "widths": [full.shape[1]],
                                          "file_bytes": [photos["24mp"].stat().st_size]})
    result = panel.request_result
    for key in ("visual_tokens", "ec_bytes", "input_kv_bytes"):
        assert result[key] == expected[key], key
    assert "64,896 个 patch" in panel.column.token_label.text()
