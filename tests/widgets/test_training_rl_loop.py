"""The RL tab's live pipeline: `lab simulate rl`'s loop replayed on the job runner, drawn
as lanes from core/rl/gantt.py, the modes as a switch, refusals next to the field, ▶."""
import numpy as np
import pytest

from core.rl import simulate
from core.rl.gantt import figure_of
from widgets.kit.jobs import jobs
from widgets.training import TrainingPanel


@pytest.fixture
def panel(qtbot):
    w = TrainingPanel()
    w.state.set_view("tab", "rl")
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    qtbot.waitUntil(w.is_ready, timeout=60_000)  # the first replay loads the compiled engine
    yield w
    w.close()


def _drawn(qtbot, panel):
    return qtbot.waitSignal(panel.figure_drawn, timeout=60_000, check_params_cb=lambda k: k == "rl_loop")


def _opts(item, key):
    return np.asarray(item.opts[key], dtype=float)


def test_the_lanes_are_cores_run_of_the_forms_loop(panel):
    section = panel.rl_loop
    p = section.params()
    assert (p.mode, p.steps, p.rollout_replicas, p.lengths) == ("synchronous", 4, 2, "lognormal")
    run = simulate(p)
    fig = figure_of(run)
    shown = section.view.figure
    assert shown.lanes == ("r0", "r1", "reference", "update", "sync") == fig.lanes  # a rule reward: no lane
    for kind in ("generate", "tail", "update", "sync"):
        assert np.array_equal(_opts(section.view.bars[kind], "x0"), fig.bars[kind].x0), kind
        assert np.array_equal(_opts(section.view.bars[kind], "width"), fig.bars[kind].width), kind
    # The replica everyone waits for: its bar ends where the step's rollout ends, and the
    # update starts after it (synchronous: the trainer waited the whole rollout).
    ends = _opts(section.view.waited, "x0") + _opts(section.view.waited, "width")
    assert ends == pytest.approx(run.end["rollout"], rel=1e-12)
    assert np.all(run.start["update"] >= run.end["rollout"])
    assert shown.summary["step_time_s"] == pytest.approx(run.end["sync"][-1] / 4, rel=1e-12)
    assert "step " in section.summary.text() or "每步" in section.summary.text()


def test_the_mode_switch_replays_off_the_gui_thread(panel, qtbot):
    section = panel.rl_loop
    shown = section.figures_shown
    with _drawn(qtbot, panel):
        section.mode_buttons["async"].click()
        # The click returned with the replay still on the job runner: nothing drawn yet.
        assert jobs().busy(section.job_key) and section.figures_shown == shown
    fig = section.view.figure
    assert fig.params.mode == "async" and section.mode_buttons["async"].isChecked()
    assert fig.summary["staleness_max"] <= fig.params.staleness
    # Batches overlap on a replica: consecutive steps take the lane's two halves.
    heights = _opts(section.view.bars["generate"], "height")
    assert np.allclose(heights, 0.35)
    with _drawn(qtbot, panel):
        section.mode_buttons["partial"].click()
    assert section.view.figure.params.mode == "partial"


def test_a_refused_input_shows_next_to_its_field_and_runs_nothing(panel, qtbot):
    section = panel.rl_loop
    field = section.form.field("steps")
    field.edit.setText("13")
    field.edit.editingFinished.emit()
    assert field.has_error and "<= 12" in field.error_label.text()
    assert not jobs().busy(section.job_key)
    assert section.view.figure.params.steps == 4  # the figure on screen is the last valid loop
    with _drawn(qtbot, panel):  # fixed, it runs the loop it describes
        field.edit.setText("3")
        field.edit.editingFinished.emit()
    assert not field.has_error and section.view.figure.params.steps == 3
    group = section.form.field("group")
    group.edit.setText("0")
    group.edit.editingFinished.emit()
    assert group.has_error and "got 0; valid: a whole number [1, 4096]" == group.error_label.text()
    assert not jobs().busy(section.job_key) and section.view.figure.params.group == 8


def test_the_window_bounds_its_lanes_by_name(panel):
    section = panel.rl_loop
    field = section.form.field("rollout_replicas")
    field.edit.setText("9")
    field.edit.editingFinished.emit()
    assert field.has_error and "<= 8" in field.error_label.text()


def test_play_moves_the_cursor_and_the_status(panel, qtbot):
    section = panel.rl_loop
    player = section.player
    player.seek(0)
    first = section.view.status.text()
    assert "0/4" in first
    player.set_speed(100.0)
    with qtbot.waitSignal(player.position_changed, timeout=5_000):
        player.play()
    qtbot.waitUntil(lambda: player.position > section.view.figure.end_s / 2, timeout=10_000)
    player.pause()
    assert section.view.cursor.value() == pytest.approx(player.position)
    assert section.view.status.text() != first


def test_the_split_sweep_is_lab_sweep_rl_and_holds_the_loop_on_screen(panel, qtbot):
    section = panel.rl_loop
    if section.split.result is None:
        qtbot.waitSignal(panel.figure_drawn, timeout=60_000, check_params_cb=lambda k: k == "rl_split").wait()
    result = section.split.result
    rows = result["rows"]
    # 2 replicas + 4 trainer cards: a pool of 6 split 1..5 rollout cards (the trainer keeps one).
    assert [r["rollout_cards"] for r in rows] == [1, 2, 3, 4, 5]
    assert [r["trainer_cards"] for r in rows] == [5, 4, 3, 2, 1]
    assert "pool_cards=6 rollout_cards=1,2,3,4,5" in result["command"]
    on_screen = next(r for r in rows if r["rollout_cards"] == 2)
    assert on_screen["step_time_s"] == section.view.figure.summary["step_time_s"]  # the same loop, bit for bit
    x, y = section.split.curve.getData()
    assert list(x) == [1, 2, 3, 4, 5] and list(y) == [r["step_time_s"] for r in rows]
    best = min(rows, key=lambda r: r["gpu_hours_per_1000_steps"])
    assert result["best"]["rollout_cards"] == best["rollout_cards"]
    assert section.split.current.value() == 2


def test_other_tabs_never_wait_for_the_engine(qtbot):
    w = TrainingPanel()  # opens on the step tab
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(w.is_ready, timeout=60_000)
    section = w.rl_loop
    assert w.state.view("tab") == "step" and section.view.figure is None and not jobs().busy(section.job_key)
    with _drawn(qtbot, w):  # the RL tab shown: its loop runs then
        w.tabs.setCurrentIndex(2)
    assert w.state.view("tab") == "rl" and section.view.figure.params.steps == 4
    w.close()
