"""The Vision panel's loads: real files decoded off the GUI thread (EXIF, bad files, the
pixel limit, drops), on the job runner with a busy badge; cancel, latest wins, close mid
decode. Every wait is on a signal, an event or a condition with a generous limit."""
import threading

import pytest
import shiboken6
from PIL import Image
from PySide6 import QtCore

import widgets.vision as vision_widgets
import widgets.vision.loads as vision_loads
from core.cancel import Cancelled
from core.vision.state import ImageEntry
from tests.widgets.vision_testkit import open_panel, save_image, table_row
from widgets.kit.jobs import jobs
from widgets.vision import VisionPanel


@pytest.fixture
def panel(qtbot):
    yield from open_panel(qtbot)


def test_load_real_file_off_the_gui_thread(panel, qtbot, tmp_path):
    path = save_image(tmp_path / "photo.jpg", 1000, 750, quality=85)
    with qtbot.waitSignal(panel.images_changed, timeout=60_000):
        panel.load_files([path])
        assert panel.loading  # the call returned before the decode finished
    assert not panel.loading
    assert len(panel.images) == 1 and panel.images[0].name == "photo.jpg"
    # Qwen-style fit: 1000×750 → 992×736 → 31×23 tokens.
    assert "992×736" in panel.column.size_label.text()
    assert "31×23 = 713 个视觉 token" in panel.column.token_label.text()
    x, y = panel.view.patch_overlay.getData()
    assert x.max() == pytest.approx(1000) and y.max() == pytest.approx(750)
    row = table_row(panel, "图 1")
    assert row[3] == "713"
    assert panel.request_result["per_image_raw_bytes"] == [path.stat().st_size]


def test_more_files_add_in_order_and_exif_is_applied(panel, qtbot, tmp_path):
    first = save_image(tmp_path / "a.png", 640, 640)
    exif = Image.Exif()
    exif[0x0112] = 6
    rotated = save_image(tmp_path / "b.jpg", 1280, 640, exif=exif.tobytes())
    with qtbot.waitSignal(panel.images_changed, timeout=60_000):
        panel.load_files([first])
    with qtbot.waitSignal(panel.images_changed, timeout=60_000):
        panel.load_files([rotated, save_image(tmp_path / "c.gif", 64, 64, mode="P")])
    assert [i.name for i in panel.images] == ["a.png", "b.jpg", "c.gif"]
    assert (panel.images[1].width, panel.images[1].height) == (640, 1280)
    assert panel.request_result["per_image_tokens"][:2] == [400, 800]


def test_bad_files_report_and_keep_state(panel, qtbot, tmp_path):
    text = tmp_path / "notes.png"
    text.write_text("not an image", encoding="utf-8")
    with qtbot.waitSignal(panel.load_failed, timeout=60_000) as blocker:
        panel.load_files([text])
    assert blocker.args[0] == str(text)
    qtbot.waitUntil(lambda: not panel.loading, timeout=60_000)
    assert panel.column.error_label.isVisibleTo(panel)
    assert "notes.png" in panel.column.error_label.text() and "not an image" in panel.column.error_label.text()
    assert len(panel.images) == 1 and panel.images[0].path is None  # the sample is still there
    assert "400 个视觉 token" in panel.column.token_label.text()


def test_pixel_limit_refuses_large_file(panel, qtbot, tmp_path):
    path = save_image(tmp_path / "big.png", 2000, 1500)
    panel.column.pixel_limit.setValue(2.0)  # 2 MP < 3 MP
    with qtbot.waitSignal(panel.load_failed, timeout=60_000) as blocker:
        panel.load_files([path])
    assert "pixel limit" in blocker.args[1]


def test_clear_brings_the_sample_back(panel, qtbot, tmp_path):
    with qtbot.waitSignal(panel.images_changed, timeout=60_000):
        panel.load_files([save_image(tmp_path / "x.png", 300, 200)])
    assert panel.images[0].name == "x.png"
    panel.clear_button.click()
    assert panel.images[0].path is None and "400 个视觉 token" in panel.column.token_label.text()


def test_drop_files_loads_them(panel, qtbot, tmp_path):
    from PySide6 import QtGui

    paths = [save_image(tmp_path / "d1.webp", 320, 320), save_image(tmp_path / "d2.bmp", 640, 320)]
    mime = QtCore.QMimeData()
    mime.setUrls([QtCore.QUrl.fromLocalFile(str(p)) for p in paths])
    event = QtGui.QDropEvent(QtCore.QPointF(10, 10), QtCore.Qt.DropAction.CopyAction, mime,
                             QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(panel.images_changed, timeout=60_000):
        panel.dropEvent(event)
    assert [i.name for i in panel.images] == ["d1.webp", "d2.bmp"]
    assert panel.column.image_list.count() == 2
    # 320×320 → 10×10 tokens; 640×320 → 20×10.
    assert panel.request_result["per_image_tokens"] == [100, 200]


def test_pixel_limit_spinner_max_is_a_limit_the_loader_takes(panel, qtbot, tmp_path):
    from vision.loading import HARD_MAX_PIXELS

    spin = panel.column.pixel_limit
    assert spin.maximum() * 1e6 <= HARD_MAX_PIXELS  # was 179.0 MP: above it, every load failed
    spin.setValue(spin.maximum())
    with qtbot.waitSignal(panel.images_changed, timeout=60_000):
        panel.load_files([save_image(tmp_path / "ok.png", 64, 64)])
    assert panel.images[0].name == "ok.png"


def test_too_many_images_for_one_request_are_refused(panel, qtbot, tmp_path):
    panel.state.set_images([ImageEntry(f"/x/{i}.png", 64, 64, 10) for i in range(256)])
    with qtbot.waitSignal(panel.load_failed, timeout=60_000) as blocker:
        panel.load_files([save_image(tmp_path / "one_more.png", 64, 64)])
    assert "heights" in blocker.args[1]
    assert len(panel.state.sources) == 256


class _Gate:
    """A stand-in loader that holds its job until released (or cancelled): a decode of
    any length, without timing assumptions."""

    def __init__(self, real_load, honour_cancel=True):
        self.real_load = real_load
        self.release = threading.Event()
        self.started = threading.Event()
        self.finished = threading.Event()
        self.honour_cancel = honour_cancel
        self.calls = []

    def __call__(self, paths, max_pixels, display_side, cancel):
        self.calls.append(list(paths))
        self.started.set()
        try:
            while not self.release.wait(0.005):
                if self.honour_cancel and cancel.cancelled:
                    raise Cancelled()
            return self.real_load(paths, max_pixels, display_side)
        finally:
            self.finished.set()


@pytest.fixture
def gate(monkeypatch):
    g = _Gate(vision_loads.load_images)
    monkeypatch.setattr(vision_loads, "load_images", g)  # the runner hands it a CancelToken
    yield g
    g.release.set()
    jobs().wait_idle()


def test_load_runs_on_the_job_runner_with_a_busy_badge(panel, qtbot, gate, tmp_path):
    panel.show()
    panel.load_files([save_image(tmp_path / "a.png", 320, 320)])
    assert panel.loading and jobs().busy(vision_widgets.LOAD_KEY)
    qtbot.waitUntil(lambda: panel.busy.isVisible(), timeout=60_000)
    with qtbot.waitSignal(panel.images_changed, timeout=60_000):
        gate.release.set()
    assert not panel.loading and not panel.busy.isVisible()
    assert panel.state.sources == (str(tmp_path / "a.png"),)


def test_cancel_drops_the_load(panel, qtbot, gate, tmp_path):
    before = panel.state.to_json()
    panel.load_files([save_image(tmp_path / "a.png", 320, 320)])
    assert gate.started.wait(60)
    panel.busy.cancel_button.click()
    assert gate.finished.wait(60)  # the decode saw the cancel and stopped
    jobs().wait_idle()
    assert not panel.loading and panel.state.to_json() == before
    assert "cancelled" in panel.column.status_label.text()


def test_latest_load_wins(panel, qtbot, gate, tmp_path):
    first, second = save_image(tmp_path / "first.png", 320, 320), save_image(tmp_path / "second.png", 640, 320)
    panel.load_files([first])
    assert gate.started.wait(60)
    with qtbot.waitSignal(panel.images_changed, timeout=60_000):
        panel.load_files([second])
        gate.release.set()
    jobs().wait_idle()
    assert gate.calls == [[str(first)], [str(second)]]
    assert panel.state.sources == (str(second),)  # the first load's result was dropped


def test_close_mid_decode_does_not_wait(qtbot, gate, tmp_path):
    gate.honour_cancel = False  # a decoder that cannot be interrupted
    panel = VisionPanel()
    state = panel.state
    before = state.to_json()
    panel.load_files([save_image(tmp_path / "a.png", 320, 320)])
    assert gate.started.wait(60)
    panel.close()  # returns while the decode still runs
    assert not gate.finished.is_set()
    panel.deleteLater()
    qtbot.waitUntil(lambda: not shiboken6.isValid(panel), timeout=60_000)
    gate.release.set()  # the decode ends after the widget is gone: its result is dropped
    assert gate.finished.wait(60)
    jobs().wait_idle()
    assert state.to_json() == before
