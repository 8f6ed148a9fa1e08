"""The Vision & multimodal panel: real files loaded off the GUI thread, the overlay data,
the volumes table and bars, question position, handoff, 练习 3-5 and image generation; the
panel as a view of its VisionState, loads on the job runner (cancel, latest wins, close).
Every wait is on a signal or condition with a generous limit, never a wall clock."""
import threading

import numpy as np
import pytest
import shiboken6
from PIL import Image
from PySide6 import QtCore

import widgets.vision as vision_widgets
import widgets.vision.loads as vision_loads
from core.cancel import Cancelled
from core.vision import calculator as vm
from core.vision.state import ImageEntry, VisionState
from widgets.kit.jobs import jobs
from widgets.kit.panels import discover_panels
from widgets.vision import VisionPanel

MIB = 1024 ** 2


@pytest.fixture
def panel(qtbot):
    w = VisionPanel()
    qtbot.addWidget(w)
    w.resize(1400, 900)
    yield w
    w.close()


def _table_row(panel, label):
    for row in range(panel.volumes.table.rowCount()):
        if panel.volumes.table.item(row, 0).text() == label:
            return [panel.volumes.table.item(row, c).text() for c in range(panel.volumes.table.columnCount())]
    raise AssertionError(f"no row {label}")


def _save(path, w, h, mode="RGB", **kw):
    yy, xx = np.mgrid[0:h, 0:w]
    arr = np.dstack([xx % 256, yy % 256, (xx + yy) % 256]).astype(np.uint8)
    Image.fromarray(arr).convert(mode).save(path, **kw)
    return path


def test_discovered_with_its_key():
    info = {p.key: p for p in discover_panels()}["vision"]
    assert info.section == "3.3.1"


def test_sample_shows_the_books_figure_at_once(panel):
    assert len(panel.images) == 1 and panel.images[0].path is None
    assert "1,600 个 patch" in panel.column.token_label.text()
    assert "400 个视觉 token" in panel.column.token_label.text()
    row = _table_row(panel, "图 1")
    assert row[3] == "400" and row[4] == "800 kB" and row[5] == "7.8125 MiB" and row[6] == "56.25 MiB"
    # The overlay: 41 vertical + 41 horizontal patch lines, 21 + 21 token lines, in image pixels.
    x, y = panel.view.patch_overlay.getData()
    assert len(x) == 2 * 82 and x.max() == 640 and y.max() == 640
    tx, _ = panel.view.token_overlay.getData()
    assert len(tx) == 2 * 42
    assert sorted(set(tx.tolist())) == [32.0 * i for i in range(21)]
    h = panel.volumes.handoff.values
    assert (h["raw"], h["ec"], h["kv"]) == (800_000, 8_192_000, (400 + 400) * 147456)


def test_book_example_four_images(panel, qtbot):
    with qtbot.waitSignal(panel.refreshed, timeout=60_000):
        panel.book_button.click()
    total = _table_row(panel, "整个请求")
    assert total[5] == "31.25 MiB" and total[6] == "281.25 MiB"
    labels, values = panel.volume_groups()
    assert labels[-1] == "整个请求" and len(labels) == 5
    heights = panel.volumes.volume_bars["kv"].opts["height"]
    assert heights[-1] == pytest.approx(np.log10(281.25 * MIB) - 3)
    assert heights[0] == pytest.approx(np.log10(56.25 * MIB) - 3)


def test_load_real_file_off_the_gui_thread(panel, qtbot, tmp_path):
    path = _save(tmp_path / "photo.jpg", 1000, 750, quality=85)
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
    row = _table_row(panel, "图 1")
    assert row[3] == "713"
    assert panel.request_result["per_image_raw_bytes"] == [path.stat().st_size]


def test_more_files_add_in_order_and_exif_is_applied(panel, qtbot, tmp_path):
    first = _save(tmp_path / "a.png", 640, 640)
    exif = Image.Exif()
    exif[0x0112] = 6
    rotated = _save(tmp_path / "b.jpg", 1280, 640, exif=exif.tobytes())
    with qtbot.waitSignal(panel.images_changed, timeout=60_000):
        panel.load_files([first])
    with qtbot.waitSignal(panel.images_changed, timeout=60_000):
        panel.load_files([rotated, _save(tmp_path / "c.gif", 64, 64, mode="P")])
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
    path = _save(tmp_path / "big.png", 2000, 1500)
    panel.column.pixel_limit.setValue(2.0)  # 2 MP < 3 MP
    with qtbot.waitSignal(panel.load_failed, timeout=60_000) as blocker:
        panel.load_files([path])
    assert "pixel limit" in blocker.args[1]


def test_toggles_hide_the_grids(panel):
    panel.column.patch_toggle.setChecked(False)
    assert not panel.view.patch_overlay.isVisible()
    assert panel.view.token_overlay.isVisible()
    panel.column.token_toggle.setChecked(False)
    assert not panel.view.token_overlay.isVisible()
    panel.column.patch_toggle.setChecked(True)
    assert panel.view.patch_overlay.isVisible()


def test_hover_shows_the_tokens_patches(panel, qtbot):
    with qtbot.waitSignal(panel.view.token_hovered, timeout=60_000) as blocker:
        token = panel.view.hover_at(100, 40)
    assert token == blocker.args[0] == 23
    rect = panel.view.hover_rect.rect()
    assert (rect.x(), rect.y(), rect.width(), rect.height()) == (96, 32, 32, 32)
    x, y = panel.view.hover_patches.getData()
    assert len(x) == 4 * 8 and x.min() > 96 and x.max() < 128 and y.min() > 32 and y.max() < 64
    assert "(2,6), (2,7), (3,6), (3,7)" in panel.column.hover_label.text()
    panel.view.hover_at(-50, -50)
    assert not panel.view.hover_rect.isVisible()


def test_mouse_move_over_the_view_hovers(panel, qtbot):
    panel.show()
    qtbot.waitExposed(panel, timeout=60_000)
    scene_pos = panel.view.view.mapViewToScene(QtCore.QPointF(330, 330))
    with qtbot.waitSignal(panel.view.token_hovered, timeout=60_000) as blocker:
        panel.view.scene().sigMouseMoved.emit(scene_pos)
    assert blocker.args[0] == 10 * 20 + 10


def test_question_position_changes_reusable_kv(panel, qtbot):
    assert panel.request_result["reusable_kv_bytes"] == 400 * vm.KV_BYTES_PER_TOKEN
    with qtbot.waitSignal(panel.refreshed, timeout=60_000):
        panel.set_request(question="before")
    assert panel.request_result["reusable_kv_bytes"] == 0
    assert "保留 <b>0 B</b>" in panel.volumes.reuse_label.text()
    layouts = panel.question_layouts()
    assert [s[0] for s in layouts["before"]] == ["question", "image"]
    x0 = panel.volumes.question_stale.opts["x0"]
    assert list(x0) == [400, 0]  # after: stale from the question on; before: everything


def test_text_tokens_move_the_bars(panel, qtbot):
    before = panel.volumes.volume_bars["kv"].opts["height"][-1]
    with qtbot.waitSignal(panel.refreshed, timeout=60_000):
        panel.set_request(text_tokens=4000)
    assert panel.volumes.volume_bars["kv"].opts["height"][-1] > before
    assert _table_row(panel, "整个请求")[6] == f"{(400 + 4000) * 147456 / MIB:g} MiB"


def test_invalid_field_shows_error_and_keeps_numbers(panel):
    field = panel.column.shape_form.field("merge")
    field.edit.setText("0")
    field.edit.editingFinished.emit()
    assert field.error_label.isVisibleTo(panel) and "valid" in field.error_label.text()
    assert "400 个视觉 token" in panel.column.token_label.text()


def test_model_and_resize_change_the_grid(panel, qtbot):
    with qtbot.waitSignal(panel.refreshed, timeout=60_000):
        panel.column.shape_form.set_value("patch", 14)
    # 640 → rounded to multiples of 28: 644 → 46×46 patches, 23×23 tokens.
    assert "46×46 = 2,116 个 patch" in panel.column.token_label.text()
    x, _ = panel.view.token_overlay.getData()
    assert len(x) == 2 * 2 * 24


def test_compare_tab_bars(panel):
    heights = list(panel.compare.compare_bars.opts["height"])
    assert heights[:3] == [4, 4, 4]
    assert heights[3] > 4
    panel.compare.compare_card.set_value("side_b", 1920)
    assert list(panel.compare.compare_bars.opts["height"])[:3] == [9, 9, 9]
    assert panel.compare.compare_line.value() == pytest.approx(9)


def test_generation_view_follows_the_card(panel):
    x, y = panel.generation.diffusion_point.getOriginalDataset()
    assert y[0] == pytest.approx(7.830e15, rel=1e-4)
    assert panel.generation.loop_diagram.result["dit_forwards"] == 100
    _, curve_before = panel.generation.diffusion_curve.getOriginalDataset()
    panel.generation.diffusion_card.set_value("steps", 100)
    _, y2 = panel.generation.diffusion_point.getOriginalDataset()
    assert y2[0] == pytest.approx(2 * y[0])
    _, curve_after = panel.generation.diffusion_curve.getOriginalDataset()
    assert np.allclose(curve_after, 2 * curve_before)
    panel.generation.diffusion_card.set_value("height", 2048)
    panel.generation.diffusion_card.set_value("width", 2048)
    assert panel.generation.loop_diagram.result["latent_positions"] == 16384


def test_clear_brings_the_sample_back(panel, qtbot, tmp_path):
    with qtbot.waitSignal(panel.images_changed, timeout=60_000):
        panel.load_files([_save(tmp_path / "x.png", 300, 200)])
    assert panel.images[0].name == "x.png"
    panel.clear_button.click()
    assert panel.images[0].path is None and "400 个视觉 token" in panel.column.token_label.text()


def test_snapshot_renders(panel, tmp_path):
    panel.show()
    image = panel.grab().toImage()
    assert image.width() > 1000
    # Not blank: the sample's colours are on screen.
    out = tmp_path / "v.png"
    assert image.save(str(out))
    assert out.stat().st_size > 20_000


def test_drop_files_loads_them(panel, qtbot, tmp_path):
    from PySide6 import QtGui

    paths = [_save(tmp_path / "d1.webp", 320, 320), _save(tmp_path / "d2.bmp", 640, 320)]
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


def test_delete_key_removes_the_selected_image(panel, qtbot):
    panel.show_book_example()
    panel.column.image_list.setCurrentRow(2)
    panel.column.image_list.setFocus()
    panel.remove_current()
    assert len(panel.images) == 3
    assert panel.request_result["ec_bytes"] == 3 * 8_192_000
    for _ in range(3):
        panel.remove_current()
    assert len(panel.images) == 1 and panel.images[0].path is None


# ---- state binding, the job runner, cancel, close (issue 9) ---------------------------

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


def test_panel_takes_a_state_and_holds_none_of_its_own(qtbot):
    state = VisionState()
    state.set_view("token_grid", False)
    state.set_view("tab", "generation")
    state.card("request").update({"text_tokens": 1000})
    panel = VisionPanel(state=state)
    qtbot.addWidget(panel)
    assert panel.state is state
    assert not panel.column.token_toggle.isChecked() and not panel.view.token_overlay.isVisible()
    assert panel.tabs.currentIndex() == 2
    assert panel.volumes.request_forms["text_tokens"].field("text_tokens").edit.text() == "1000"
    assert _table_row(panel, "文本 text")[3] == "1,000"
    panel.close()
    # The state outlives the panel: nothing of the closed panel listens to it any more.
    assert len(state.changed) == 0 and all(len(card.changed) == 1 for card in state.cards.values())
    state.card("request").update({"text_tokens": 5})
    assert panel.volumes.request_forms["text_tokens"].field("text_tokens").edit.text() == "1000"


def test_model_edits_redraw_the_widgets(panel, qtbot):
    s = panel.state
    s.set_view("patch_grid", False)
    assert not panel.column.patch_toggle.isChecked() and not panel.view.patch_overlay.isVisible()
    s.set_view("tab", "compare")
    assert panel.tabs.currentIndex() == 1
    s.set_view("pixel_limit_mp", 12.3)
    assert panel.column.pixel_limit.value() == pytest.approx(12.3)
    with qtbot.waitSignal(panel.refreshed, timeout=60_000):
        s.card("request").update({"merge": 4})
    assert panel.column.shape_form.field("merge").edit.text() == "4"
    assert "10×10 = 100 个视觉 token" in panel.column.token_label.text()
    s.card("diffusion").update({"steps": 100})
    assert panel.generation.loop_diagram.result["dit_forwards"] == 200
    s.book_example()
    assert panel.column.image_list.count() == 4


def test_widget_edits_go_to_the_model(panel):
    s = panel.state
    panel.column.token_toggle.setChecked(False)
    assert s.view("token_grid") is False
    panel.tabs.setCurrentIndex(2)
    assert s.view("tab") == "generation"
    panel.column.pixel_limit.setValue(45.5)
    assert s.view("pixel_limit_mp") == 45.5 and s.pixel_limit() == 45_500_000
    field = panel.volumes.request_forms["prefix_tokens"].field("prefix_tokens")
    field.edit.setText("64")
    field.edit.editingFinished.emit()
    assert s.card("request").inputs["prefix_tokens"] == 64
    panel.show_book_example()
    panel.column.image_list.setCurrentRow(2)
    assert panel.current == 2 and s.view("image") == ""


def test_an_error_shows_once_next_to_its_field(panel):
    field = panel.column.shape_form.field("merge")
    field.edit.setText("0")
    field.edit.editingFinished.emit()
    assert field.has_error
    others = [panel.column.shape_form.field("patch"), panel.column.resize_form.field("resize")] + [
        f.field(n) for n, f in panel.volumes.request_forms.items()]
    assert not any(f.has_error for f in others)


def test_pixel_limit_spinner_max_is_a_limit_the_loader_takes(panel, qtbot, tmp_path):
    from vision.loading import HARD_MAX_PIXELS

    spin = panel.column.pixel_limit
    assert spin.maximum() * 1e6 <= HARD_MAX_PIXELS  # was 179.0 MP: above it, every load failed
    spin.setValue(spin.maximum())
    with qtbot.waitSignal(panel.images_changed, timeout=60_000):
        panel.load_files([_save(tmp_path / "ok.png", 64, 64)])
    assert panel.images[0].name == "ok.png"


def test_state_round_trips_through_json_with_the_files(panel, qtbot, tmp_path):
    path = _save(tmp_path / "photo.png", 1000, 750)
    with qtbot.waitSignal(panel.images_changed, timeout=60_000):
        panel.load_files([path])
    panel.state.set_view("tab", "compare")
    panel.state.card("request").update({"question": "before"})
    data = panel.state.to_json()
    other_state = VisionState()
    other_state.load_json(data)
    other = VisionPanel(state=other_state)
    qtbot.addWidget(other)
    # The numbers come from the state at once; the pixels load on the runner.
    assert other.request_result == panel.request_result
    assert "31×23 = 713 个视觉 token" in other.column.token_label.text()
    qtbot.waitUntil(lambda: other.images[0].format == "PNG", timeout=60_000)
    assert other.images[0].pixels.shape == panel.images[0].pixels.shape
    assert other.tabs.currentIndex() == 1
    other.close()


def test_restored_file_that_is_gone_keeps_its_numbers(qtbot, tmp_path):
    state = VisionState()
    state.set_images([ImageEntry(str(tmp_path / "gone.jpg"), 750, 1000, 5000)])
    panel = VisionPanel(state=state)
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: not jobs().busy(vision_widgets.PIXELS_KEY), timeout=60_000)
    assert "cannot read" in panel.column.notes_label.text()
    assert panel.request_result["per_image_tokens"] == [713]
    panel.close()


def test_load_runs_on_the_job_runner_with_a_busy_badge(panel, qtbot, gate, tmp_path):
    panel.show()
    panel.load_files([_save(tmp_path / "a.png", 320, 320)])
    assert panel.loading and jobs().busy(vision_widgets.LOAD_KEY)
    qtbot.waitUntil(lambda: panel.busy.isVisible(), timeout=60_000)
    with qtbot.waitSignal(panel.images_changed, timeout=60_000):
        gate.release.set()
    assert not panel.loading and not panel.busy.isVisible()
    assert panel.state.sources == (str(tmp_path / "a.png"),)


def test_cancel_drops_the_load(panel, qtbot, gate, tmp_path):
    before = panel.state.to_json()
    panel.load_files([_save(tmp_path / "a.png", 320, 320)])
    assert gate.started.wait(60)
    panel.busy.cancel_button.click()
    assert gate.finished.wait(60)  # the decode saw the cancel and stopped
    jobs().wait_idle()
    assert not panel.loading and panel.state.to_json() == before
    assert "cancelled" in panel.column.status_label.text()


def test_latest_load_wins(panel, qtbot, gate, tmp_path):
    first, second = _save(tmp_path / "first.png", 320, 320), _save(tmp_path / "second.png", 640, 320)
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
    panel.load_files([_save(tmp_path / "a.png", 320, 320)])
    assert gate.started.wait(60)
    panel.close()  # returns while the decode still runs
    assert not gate.finished.is_set()
    panel.deleteLater()
    qtbot.waitUntil(lambda: not shiboken6.isValid(panel), timeout=60_000)
    gate.release.set()  # the decode ends after the widget is gone: its result is dropped
    assert gate.finished.wait(60)
    jobs().wait_idle()
    assert state.to_json() == before


def test_loading_a_saved_state_into_a_live_panel(panel, qtbot, tmp_path):
    saved = VisionState()
    saved.set_images([ImageEntry(str(_save(tmp_path / "b.png", 640, 320)), 320, 640, 1234)])
    saved.set_view("patch_grid", False)
    panel.state.load_json(saved.to_json())
    assert panel.column.image_list.count() == 1 and not panel.column.patch_toggle.isChecked()
    assert panel.request_result["per_image_tokens"] == [200]
    qtbot.waitUntil(lambda: panel.images[0].format == "PNG", timeout=60_000)  # pixels fetched
    assert panel.view.pixels.shape == (320, 640, 3)


def test_too_many_images_for_one_request_are_refused(panel, qtbot, tmp_path):
    panel.state.set_images([ImageEntry(f"/x/{i}.png", 64, 64, 10) for i in range(256)])
    with qtbot.waitSignal(panel.load_failed, timeout=60_000) as blocker:
        panel.load_files([_save(tmp_path / "one_more.png", 64, 64)])
    assert "heights" in blocker.args[1]
    assert len(panel.state.sources) == 256


def test_zoom_is_state_both_ways(panel, qtbot, tmp_path):
    with qtbot.waitSignal(panel.images_changed, timeout=60_000):
        panel.load_files([_save(tmp_path / "wide.png", 4000, 1000)])  # shown at 1280×320
    img = panel.images[0]
    assert img.display_scale == pytest.approx(0.32)
    panel.state.set_view("zoom", (1000, 200, 2000, 700))  # image pixels
    (x0, x1), (y0, y1) = panel.view.view.viewRange()
    assert x0 <= 320 + 1 and x1 >= 640 - 1 and y0 <= 64 + 1 and y1 >= 224 - 1  # display pixels
    # A user's zoom goes to the state, in image pixels.
    panel.view.view.setRange(QtCore.QRectF(128, 32, 256, 64), padding=0)
    panel.view.view.sigRangeChangedManually.emit([True, True])
    box = panel.state.view("zoom")
    assert box[0] == pytest.approx(400, abs=40) and box[2] == pytest.approx(1200, abs=40)
    # Another picture is shown whole.
    panel.clear_images()
    assert panel.state.view("zoom") == ()
