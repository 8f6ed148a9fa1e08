"""The Vision & multimodal panel as drawn: the book's sample at once, the overlay data and
hover, the volumes table and bars, question position, 练习 3-5 and image generation. Every
wait is on a signal or condition with a generous limit, never a wall clock."""

import numpy as np
import pytest
from PySide6 import QtCore

from core.vision import calculator as vm
from tests.widgets.vision_testkit import MIB, open_panel, table_row
from widgets.kit.panels import discover_panels


@pytest.fixture
def panel(qtbot):
    yield from open_panel(qtbot)


def test_discovered_with_its_key():
    info = {p.key: p for p in discover_panels()}["vision"]
    assert info.section == "3.3.1"


def test_sample_shows_the_books_figure_at_once(panel):
    assert len(panel.images) == 1 and panel.images[0].path is None
    assert "1,600 个 patch" in panel.column.token_label.text()
    assert "400 个视觉 token" in panel.column.token_label.text()
    row = table_row(panel, "图 1")
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
    total = table_row(panel, "整个请求")
    assert total[5] == "31.25 MiB" and total[6] == "281.25 MiB"
    labels, values = panel.volume_groups()
    assert labels[-1] == "整个请求" and len(labels) == 5
    heights = panel.volumes.volume_bars["kv"].opts["height"]
    assert heights[-1] == pytest.approx(np.log10(281.25 * MIB) - 3)
    assert heights[0] == pytest.approx(np.log10(56.25 * MIB) - 3)


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
    assert table_row(panel, "整个请求")[6] == f"{(400 + 4000) * 147456 / MIB:g} MiB"


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


def test_snapshot_renders(panel, tmp_path):
    panel.show()
    image = panel.grab().toImage()
    assert image.width() > 1000
    # Not blank: the sample's colours are on screen.
    out = tmp_path / "v.png"
    assert image.save(str(out))
    assert out.stat().st_size > 20_000


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
