"""The Vision panel as a view of its VisionState (issue 9): the model's edits redraw the
widgets and the widgets' edits go to the model, one error next to its field, JSON round trips
with the files, and the zoom held as state both ways."""

import pytest
from PySide6 import QtCore

import widgets.vision as vision_widgets
from core.vision.state import ImageEntry, VisionState
from tests.widgets.vision_testkit import open_panel, save_image, table_row
from widgets.kit.jobs import jobs
from widgets.vision import VisionPanel


@pytest.fixture
def panel(qtbot):
    yield from open_panel(qtbot)


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
    assert table_row(panel, "文本 text")[3] == "1,000"
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


def test_state_round_trips_through_json_with_the_files(panel, qtbot, tmp_path):
    path = save_image(tmp_path / "photo.png", 1000, 750)
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


def test_loading_a_saved_state_into_a_live_panel(panel, qtbot, tmp_path):
    saved = VisionState()
    saved.set_images([ImageEntry(str(save_image(tmp_path / "b.png", 640, 320)), 320, 640, 1234)])
    saved.set_view("patch_grid", False)
    panel.state.load_json(saved.to_json())
    assert panel.column.image_list.count() == 1 and not panel.column.patch_toggle.isChecked()
    assert panel.request_result["per_image_tokens"] == [200]
    qtbot.waitUntil(lambda: panel.images[0].format == "PNG", timeout=60_000)  # pixels fetched
    assert panel.view.pixels.shape == (320, 640, 3)


def test_zoom_is_state_both_ways(panel, qtbot, tmp_path):
    with qtbot.waitSignal(panel.images_changed, timeout=60_000):
        panel.load_files([save_image(tmp_path / "wide.png", 4000, 1000)])  # shown at 1280×320
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
