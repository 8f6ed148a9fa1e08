"""The Serving panel: banner, backlog presets, the replay side by side, playback; its binding
to ServingState both ways; replays and the band on the job runner (GUI free, cancel,
latest edit wins)."""
import threading

import numpy as np
import pytest
from PySide6 import QtCore

from core.serving import figures as F
from core.serving import replay as rp
from core.serving.decode_rate import DECODE_RATE
from core.serving.mix import MIX
from core.serving.state import ServingState
from widgets.kit.jobs import jobs
from widgets.kit.panels import discover_panels
from widgets.serving import ServingPanel

GANTT_BINS = F.GANTT_BINS


def ready(panel) -> bool:
    """Built, and both replays computed for the state's current inputs."""
    return panel.is_ready() and not jobs().busy_keys()


@pytest.fixture
def panel(open_serving_panel):
    return open_serving_panel(1600, 1000)


def edit(form, name, text):
    field = form.field(name)
    field.edit.setText(text)
    field.edit.editingFinished.emit()


def _bar_heights(item):
    return np.asarray(item.opts["height"], dtype=float)


def side(panel, s):
    return panel.state.replay(s).result["figure"]


def test_panel_is_discovered():
    info = {p.key: p for p in discover_panels()}["serving"]
    assert info.section == "3.1.3"


def test_panel_shows_at_once_and_fills_in(qtbot):
    w = ServingPanel()
    qtbot.addWidget(w)
    assert not w.is_built()  # the constructor returns before the plots are made
    assert w.state.replay("A").result is None  # and before the replays are run
    with qtbot.waitSignal(w.built, timeout=60_000):
        w.show()
    qtbot.waitUntil(lambda: ready(w), timeout=60_000)
    assert w.compare_table.item(0, 0).text() != ""
    w.close()


def test_banner_shows_demand_against_capacity(panel):
    capacity = DECODE_RATE.run()["steps_per_s"]
    expected = [MIX.run({"share_long_input": s})["decode_steps_per_s"] / capacity * 100 for s in (0.5, 0.9, 0.1)]
    shown = _bar_heights(panel.banner_bars) + _bar_heights(panel.banner_over)
    assert np.allclose(shown, expected)
    assert _bar_heights(panel.banner_over)[2] > 30  # the last minute overshoots the dashed line
    assert panel.capacity_line.value() == 100
    assert "5,591" in panel.capacity_label.toPlainText()  # the backlog card's capacity, one value


def test_more_cards_bring_every_segment_under_the_line(panel, qtbot):
    with qtbot.waitSignal(panel.rate_card.computed):
        edit(panel.rate_card.form, "cards", "3")
    assert panel.state.card("rate").inputs["cards"] == 3  # widget -> model
    assert np.all(_bar_heights(panel.banner_over) == 0)
    assert _bar_heights(panel.banner_bars).max() < 100


def test_model_edits_show_in_the_widgets(panel):
    panel.state.card("rate").update({"cards": 3})  # model -> widget
    assert panel.rate_card.form.field("cards").edit.text() == "3"
    assert np.all(_bar_heights(panel.banner_over) == 0)
    panel.state.set_view("backlog_preset", "burst_2cards")
    assert panel.preset_box.currentData() == "burst_2cards"
    assert panel.backlog_card.result["peak_backlog_steps"] == pytest.approx(56396.4)
    panel.state.set_player("banner", 90.0)
    assert panel.banner_player.position == 90.0 and panel.banner_cursor.value() == 90.0
    panel.state.set_player("replay", 100.0)
    assert panel.replay_player.position == 100.0
    assert all(c.value() == 100.0 for c in panel.cursors)


def test_banner_playback_moves_the_cursor_and_reports_backlog(panel, qtbot):
    panel.banner_player.seek(150.0)
    assert panel.state.player("banner") == 150.0  # widget -> model
    assert panel.banner_cursor.value() == 150.0
    assert panel.backlog_cursor.value() == 90.0  # preset ② starts at the banner's second minute
    text = panel.banner_status.toPlainText()
    # 30 s into the over-capacity minute: (λw − μ)·30 with μ the bound of the rate card.
    expected = 30 * (MIX.run({"share_long_input": 0.1})["decode_steps_per_s"] - DECODE_RATE.run()["steps_per_s"])
    assert "后一分钟 1:9" in text
    shown = float(text.split("积压 ")[1].split(" 步")[0].replace(",", ""))
    assert shown == pytest.approx(expected, rel=1e-3)  # sampled every 0.1 s
    with qtbot.waitSignal(panel.banner_player.position_changed, timeout=2000):
        panel.banner_player.play()
    panel.banner_player.pause()


def test_backlog_presets_fill_the_card_and_plot(panel, qtbot):
    x, y = panel.backlog_plot.curves["shift"].getData()
    assert y.max() == pytest.approx(112792.8)
    index = panel.preset_box.findData("burst_2cards")
    with qtbot.waitSignal(panel.backlog_card.computed):
        panel.preset_box.setCurrentIndex(index)
    assert panel.state.view("backlog_preset") == "burst_2cards"
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
    assert panel.state.view("backlog_preset") == ""
    assert panel.backlog_card.result["peak_backlog_steps"] == 0


def test_slow_cards_drain_in_bounded_work(panel, qtbot):
    with qtbot.waitSignal(panel.backlog_card.computed):
        edit(panel.backlog_card.form, "steps_per_s_per_card", "0.01")
    result = panel.backlog_card.result
    assert result["drain_s"] > 1e6 and len(result["t_s"]) < 5000
    x, y = panel.backlog_plot.curves["current"].getData()
    assert x[-1] > result["drain_s"] and y[-1] == 0


def test_replay_table_has_book_beside_simulated(panel):
    table = panel.compare_table
    row = list(F.COMPARE_ROWS).index("ttft_p95_s")
    assert table.item(row, 1).text() == "242.9 s"
    assert table.item(row, 4).text() == "258.9 s"
    sim_a = panel.state.replay("A").result["ttft_p95_s"]
    assert table.item(row, 0).text() == rp.REPLAY.format_output("ttft_p95_s", sim_a)
    assert "模拟" in table.horizontalHeaderItem(0).text()
    bound = list(F.COMPARE_ROWS).index("decode_bound_s")
    assert table.item(bound, 1).text() == rp.REPLAY.format_output("decode_bound_s", 197.6)


def test_replay_follows_the_form(panel, qtbot):
    with qtbot.waitSignal(panel.replay_computed, timeout=30_000) as blocker:
        edit(panel.replay_form, "max_num_seqs", "32")
    summary = blocker.args[0]
    assert set(summary) == {"A", "B"}
    assert panel.state.replay("A").inputs["max_num_seqs"] == 32
    assert panel.state.replay("B").inputs["max_num_seqs"] == 32  # B follows A but for its shares
    assert side(panel, "A").series_running.max() == 32
    # No longer the book's run: no observed value to compare with.
    assert panel.compare_table.item(0, 1).text() == "—"
    x, y = panel.queue_plots["A"].curves["running_all"].getData()
    assert y.max() == 32


def test_scenario_b_shares_validate_and_recompute(panel, qtbot):
    panel.b_shares_edit.setText("0.5, 2")
    panel.b_shares_edit.editingFinished.emit()
    assert "shares_long_input" in panel.state.replay("B").errors and "valid" in panel.b_error.text()
    with qtbot.waitSignal(panel.replay_computed, timeout=30_000):
        panel.b_shares_edit.setText("0.5, 0.5")
        panel.b_shares_edit.editingFinished.emit()
    assert panel.b_error.text() == ""
    a, b = panel.state.replay("A").result, panel.state.replay("B").result
    assert a["ttft_p95_s"] == b["ttft_p95_s"]  # B now equals A


def test_playback_reveals_series_cdf_and_gantt(panel, qtbot):
    t = 200.0
    panel.replay_player.seek(t)
    assert panel.state.player("replay") == t
    for s in ("A", "B"):
        fig = side(panel, s)
        x, _ = panel.queue_plots[s].curves["waiting"].getData()
        assert x.max() <= t and x.size == np.searchsorted(fig.disp_t, t, side="right")
        cx, cy = panel.cdf_plot.curves[s].getData()
        assert cx.size == np.count_nonzero(fig.first_token_by_ttft <= t)
        assert panel.gantt_masks[s].getRegion()[0] == pytest.approx(t)
        assert panel.gantt_images[s].image.shape == (480, GANTT_BINS)
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
    with qtbot.waitSignal(panel.band_computed, timeout=60_000):
        qtbot.mouseClick(panel.band_button, QtCore.Qt.MouseButton.LeftButton)
    assert panel.state.view("band") is True
    for s in ("A", "B"):
        lo, mid, hi = panel.band[s]["ttft_p95_s"]
        assert lo <= mid <= hi and lo < hi
    assert "TTFT p95" in panel.band_label.text() and "seeds 0–4" in panel.band_label.text()


def test_state_round_trips_into_a_new_panel(panel, qtbot):
    panel.state.card("mix").update({"rate_per_s": 5})
    panel.state.set_view("backlog_preset", "burst_3cards")
    saved = panel.state.to_json()
    state = ServingState()
    state.load_json(saved)
    other = ServingPanel(state=state)
    qtbot.addWidget(other)
    other.show()
    qtbot.waitUntil(lambda: ready(other), timeout=60_000)
    assert other.state is state and other.preset_box.currentData() == "burst_3cards"
    assert other.mix_card.form.field("rate_per_s").edit.text() == "5"
    other.close()


# ---- the job runner: off the GUI thread, cancel, latest edit wins --------------------
class Gate:
    """replay_side that waits for release (an event, no sleeping), checking cancel."""

    def __init__(self):
        self.release = threading.Event()
        self.started: list = []
        self.threads: list = []
        self.real = F.replay_side

    def __call__(self, inputs, cancel, **source):
        self.started.append(inputs)
        self.threads.append(threading.get_ident())
        while not self.release.wait(0.01):
            cancel.check()
        return self.real(inputs, cancel=cancel, **source)


@pytest.fixture
def gate(monkeypatch):
    g = Gate()
    monkeypatch.setattr(F, "replay_side", g)
    yield g
    g.release.set()
    jobs().wait_idle()


def test_a_replay_runs_off_the_gui_thread_with_a_busy_badge(panel, qtbot, gate):
    ticks = []
    timer = QtCore.QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(5)
    edit(panel.replay_form, "max_num_seqs", "48")
    assert panel.state.replay("A").stale
    qtbot.waitUntil(lambda: len(gate.started) == 2, timeout=30_000)
    qtbot.waitUntil(lambda: panel.controls.busy.isVisible(), timeout=30_000)  # the card doing the work says so
    qtbot.waitUntil(lambda: len(ticks) >= 5, timeout=30_000)  # the GUI thread keeps running
    assert threading.get_ident() not in gate.threads
    with qtbot.waitSignal(panel.replay_computed, timeout=60_000):
        gate.release.set()
    timer.stop()
    assert panel.state.replay("A").result["figure"].series_running.max() == 48
    assert not panel.state.replay("A").stale
    qtbot.waitUntil(lambda: not panel.controls.busy.isVisible(), timeout=30_000)


def test_a_long_replay_leaves_the_gui_free(panel, qtbot):
    """A real replay of 4,000 requests: the 10 ms timer keeps ticking while it runs."""
    ticks = []
    timer = QtCore.QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(10)
    panel.replay_form.set_values({"durations_s": "1000", "rates_per_s": "4", "shares_long_input": "0.5"})
    assert jobs().busy(panel._keys["A"])
    start = len(ticks)
    qtbot.waitUntil(lambda: not jobs().busy(panel._keys["A"]), timeout=120_000)
    timer.stop()
    assert len(ticks) > start  # the timer fired while the replay ran
    assert panel.state.replay("A").result["requests"] == 4_000


def test_cancel_drops_the_result(panel, qtbot, gate):
    before = panel.state.replay("A").result
    edit(panel.replay_form, "max_num_seqs", "40")
    qtbot.waitUntil(lambda: len(gate.started) >= 1, timeout=30_000)
    panel.controls.busy.cancel()  # the ✕ of the busy badge
    gate.release.set()
    assert jobs().wait_idle()
    assert panel.state.replay("A").result is before  # dropped: the old result, marked stale
    assert panel.state.replay("A").stale


def test_a_newer_edit_drops_the_stale_result(panel, qtbot, gate):
    edit(panel.replay_form, "max_num_seqs", "40")
    qtbot.waitUntil(lambda: len(gate.started) >= 1, timeout=30_000)
    edit(panel.replay_form, "max_num_seqs", "24")
    gate.release.set()
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    result = panel.state.replay("A").result
    assert result["figure"].inputs["max_num_seqs"] == 24
    assert side(panel, "A").series_running.max() == 24
