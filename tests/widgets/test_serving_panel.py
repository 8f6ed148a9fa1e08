"""The Serving panel: banner, backlog presets, the replay side by side, playback."""
import numpy as np
import pytest
from PySide6 import QtCore

from core.serving import replay as rp
from core.serving.decode_rate import DECODE_RATE
from core.serving.mix import MIX
from widgets.panels import discover_panels
from widgets.serving_panel import GANTT_BINS, ServingPanel


@pytest.fixture
def panel(qtbot):
    w = ServingPanel()
    qtbot.addWidget(w)
    w.resize(1600, 1000)
    w.show()
    yield w
    w.close()


def edit(form, name, text):
    field = form.field(name)
    field.edit.setText(text)
    field.edit.editingFinished.emit()


def _bar_heights(item):
    return np.asarray(item.opts["height"], dtype=float)


def test_panel_is_discovered():
    info = {p.key: p for p in discover_panels()}["serving"]
    assert info.section == "3.1.3"


def test_banner_shows_demand_against_capacity(panel):
    capacity = DECODE_RATE.run()["steps_per_s"]
    expected = [MIX.run({"share_long_input": s})["decode_steps_per_s"] / capacity * 100 for s in (0.5, 0.9, 0.1)]
    shown = _bar_heights(panel.banner_bars) + _bar_heights(panel.banner_over)
    assert np.allclose(shown, expected)
    assert _bar_heights(panel.banner_over)[2] > 30  # the last minute overshoots the dashed line
    assert panel.capacity_line.value() == 100
    assert "5,592" in panel.capacity_label.toPlainText()


def test_more_cards_bring_every_segment_under_the_line(panel, qtbot):
    with qtbot.waitSignal(panel.rate_card.computed):
        edit(panel.rate_card.form, "cards", "3")
    assert np.all(_bar_heights(panel.banner_over) == 0)
    assert _bar_heights(panel.banner_bars).max() < 100


def test_banner_playback_moves_the_cursor_and_reports_backlog(panel, qtbot):
    panel.banner_player.seek(150.0)
    assert panel.banner_cursor.value() == 150.0
    assert panel.backlog_cursor.value() == 150.0
    text = panel.banner_status.toPlainText()
    # 30 s into the over-capacity minute: (λw − μ)·30 with μ the bound of the rate card.
    expected = 30 * (MIX.run({"share_long_input": 0.1})["decode_steps_per_s"] - DECODE_RATE.run()["steps_per_s"])
    assert "后一分钟 1:9" in text and f"积压 {expected:,.0f} 步" in text
    with qtbot.waitSignal(panel.banner_player.position_changed, timeout=2000):
        panel.banner_player.play()
    panel.banner_player.pause()


def test_backlog_presets_fill_the_card_and_plot(panel, qtbot):
    x, y = panel.backlog_plot.curves["shift"].getData()
    assert y.max() == pytest.approx(112792.8)
    index = panel.preset_box.findData("burst_2cards")
    with qtbot.waitSignal(panel.backlog_card.computed):
        panel.preset_box.setCurrentIndex(index)
    assert panel.backlog_card.result["peak_backlog_steps"] == pytest.approx(56396.4)
    x, y = panel.backlog_plot.curves["current"].getData()
    assert y.max() == pytest.approx(56396.4)
    with qtbot.waitSignal(panel.backlog_card.computed):
        panel.preset_box.setCurrentIndex(panel.preset_box.findData("burst_3cards"))
    assert panel.backlog_card.result["peak_backlog_steps"] == 0


def test_editing_the_backlog_switches_preset_to_custom(panel, qtbot):
    with qtbot.waitSignal(panel.backlog_card.computed):
        edit(panel.backlog_card.form, "cards", "5")
    assert panel.preset_box.currentData() == ""
    assert panel.backlog_card.result["peak_backlog_steps"] == 0


def test_replay_table_has_book_beside_simulated(panel):
    table = panel.compare_table
    row = rp_row = list(panel_rows()).index("ttft_p95_s")
    assert table.item(row, 1).text() == "242.9 s"
    assert table.item(row, 4).text() == "258.9 s"
    sim_a = panel._replay["A"]["summary"]["ttft_p95_s"]
    assert table.item(rp_row, 0).text() == rp.REPLAY.format_output("ttft_p95_s", sim_a)
    assert "模拟" in table.horizontalHeaderItem(0).text()


def panel_rows():
    from widgets.serving_panel import COMPARE_ROWS
    return COMPARE_ROWS


def test_replay_follows_the_form(panel, qtbot):
    with qtbot.waitSignal(panel.replay_computed, timeout=5000) as blocker:
        edit(panel.replay_form, "max_num_seqs", "32")
    summary = blocker.args[0]
    assert set(summary) == {"A", "B"}
    result = panel._replay["A"]["result"]
    assert result.series_running.max() == 32
    # No longer the book's run: no observed value to compare with.
    assert panel.compare_table.item(0, 1).text() == "—"
    x, y = panel.queue_plots["A"].curves["running_all"].getData()
    assert y.max() == 32


def test_scenario_b_shares_validate_and_recompute(panel, qtbot):
    panel.b_shares_edit.setText("0.5, 2")
    panel.b_shares_edit.editingFinished.emit()
    assert "shares_long_input" in panel.b_error.text()
    with qtbot.waitSignal(panel.replay_computed, timeout=5000):
        panel.b_shares_edit.setText("0.5, 0.5")
        panel.b_shares_edit.editingFinished.emit()
    assert panel.b_error.text() == ""
    a, b = panel._replay["A"]["summary"], panel._replay["B"]["summary"]
    assert a["ttft_p95_s"] == b["ttft_p95_s"]  # B now equals A


def test_playback_reveals_series_cdf_and_gantt(panel, qtbot):
    t = 200.0
    panel.replay_player.seek(t)
    for side in ("A", "B"):
        r = panel._replay[side]["result"]
        x, _ = panel.queue_plots[side].curves["waiting"].getData()
        assert x.max() <= t and x.size == np.searchsorted(r.series_t, t, side="right")
        cx, cy = panel.cdf_plot.curves[side].getData()
        assert cx.size == np.count_nonzero(r.first_token_s <= t)
        assert panel.gantt_masks[side].getRegion()[0] == pytest.approx(t)
        assert panel.gantt_images[side].image.shape == (480, GANTT_BINS)
    assert all(c.value() == t for c in panel.cursors)
    with qtbot.waitSignal(panel.replay_player.position_changed, timeout=2000):
        panel.replay_player.play()
    assert panel.replay_player.is_playing()
    panel.close()
    assert not panel.replay_player.is_playing()


def test_book_p95_markers_on_the_cdf(panel):
    assert panel.book_p95_lines["A"].value() == pytest.approx(242.9)
    assert panel.book_p95_lines["B"].value() == pytest.approx(258.9)


def test_band_over_seeds(panel, qtbot):
    qtbot.mouseClick(panel.band_button, QtCore.Qt.MouseButton.LeftButton)
    for side in ("A", "B"):
        lo, mid, hi = panel.band[side]["ttft_p95_s"]
        assert lo <= mid <= hi and lo < hi
    assert "TTFT p95" in panel.band_label.text() and "seeds 0–4" in panel.band_label.text()
