"""The RL tab's live loop is the Training state's: a session saves and opens it (the same
loop on screen, bit for bit, its split sweep and its ▶ position too), undo takes each edit
back (the form, the mode switch and the figure follow), ↺ puts the window's loop back, a
talk scene sets its mode, and a saved loop the form would refuse is refused whole."""
from pathlib import Path

import numpy as np
import pytest

from core import session as core_session
from core.registry import ParamError
from core.rl.loop_card import MAX_STEPS
from core.talk import load_talk
from core.training_state import TrainingState
from tests.hostile.bounds import bounded
from widgets.kit.jobs import jobs

CHAPTER3 = Path(__file__).resolve().parents[2] / "talks" / "chapter3.toml"

UNTIMED = ("wall_s", "wall_time_s", "us_per_sequence")  # the run's own clock, not the loop


def _settled(window, panel):
    section = panel.rl_loop
    return (window.is_ready("training") and window.undo_recorder.is_settled("training") and section.built
            and section.view.figure is not None and section.split.result is not None and not jobs().busy_keys())


def _open(qtbot, window):
    window.show_panel("training")
    panel = window.panel("training")
    panel.state.set_view("tab", "rl")
    qtbot.waitUntil(lambda: _settled(window, panel), timeout=90_000)
    window.undo_recorder.flush()
    return panel


def _drawn(qtbot, panel, what="rl_split"):
    """The loop, then its split sweep (the sweep follows each loop drawn)."""
    return qtbot.waitSignal(panel.figure_drawn, timeout=90_000, check_params_cb=lambda k: k == what)


def _type(field, text):
    field.edit.setText(text)
    field.edit.editingFinished.emit()


def _steps(qtbot, window, count):
    qtbot.waitUntil(lambda: window.undo_stack.count() == window.undo_stack.index() == count, timeout=10_000)


def _shown(section):
    """What the loop on screen is: its params, summary, every bar and the split's rows."""
    fig = section.view.figure
    bars = {kind: (np.asarray(item.opts["x0"], float).tolist(), np.asarray(item.opts["width"], float).tolist())
            for kind, item in section.view.bars.items()}
    rows = [{k: v for k, v in r.items() if k not in UNTIMED} for r in section.split.result["rows"]]
    summary = {k: v for k, v in fig.summary.items() if k not in UNTIMED}
    return fig.params, summary, bars, rows, section.summary.text()


def test_the_state_round_trips_the_loop_and_refuses_what_the_form_refuses():
    s = TrainingState()
    assert s.to_json()["cards"]["rl_loop"] == {}  # the window's loop: nothing to save
    assert s.card("rl_loop").update({"mode": "async", "steps": "6", "sigma": "1.5"})
    data = s.to_json()
    assert data["cards"]["rl_loop"] == {"mode": "async", "steps": 6, "sigma": 1.5}
    other = TrainingState()
    other.load_json(data)
    assert other.to_json() == data and other.card("rl_loop").inputs == s.card("rl_loop").inputs
    # The same refusals as a typed edit, naming the field; nothing changes.
    for bad, field in (({"mode": "junk"}, "mode"), ({"steps": MAX_STEPS + 1}, "steps"), ({"steps": 0}, "steps"),
                       ({"rollout_replicas": 9}, "rollout_replicas"), ({"staleness": -1}, "staleness"),
                       ({"placement": "colocated"}, "placement")):  # a key the window does not set
        with pytest.raises(ParamError) as err:
            other.load_json({**data, "cards": {"rl_loop": bad}})
        assert err.value.param == field, bad
        typed = TrainingState()
        assert not typed.card("rl_loop").update(bad)  # the form's own edit refuses it alike
        assert field in typed.card("rl_loop").errors or bad == {"placement": "colocated"}
        assert other.to_json() == data
    other.reset()
    assert other.card("rl_loop").to_json() == {} and other.player("rl_loop") == 0.0


def test_a_hostile_session_of_the_loop_is_refused_whole(tmp_path):
    window = {"x": 0, "y": 0, "width": 1280, "height": 720, "maximized": False}
    for bad, phrase in (({"mode": "junk"}, "panels.training.cards.rl_loop.mode: got 'junk'"),
                        ({"steps": 1e9}, "panels.training.cards.rl_loop.steps"),
                        ({"steps": 13}, "panels.training.cards.rl_loop.steps: got 13; valid: <= 12"),
                        ({"steps": -5}, "panels.training.cards.rl_loop.steps"),
                        ({"group": 4096, "prompts": 65536}, "panels.training.cards.rl_loop.")):
        data = core_session.make_session("training", window, 1.0, "light", "en", {})
        data["panels"] = {"training": {"panel": "training", "cards": {"rl_loop": bad}}}
        path = tmp_path / "s.lab.json"
        path.write_text(core_session.dumps(data), encoding="utf-8")
        with bounded(), pytest.raises(core_session.SessionError) as err:  # the hostile corpus's bound
            read = core_session.read_session(str(path))
            core_session.check_panels(read["panels"], core_session.panel_model_classes())
        assert phrase in str(err.value), (bad, str(err.value))
    data["panels"] = {"training": {"panel": "training", "cards": {"rl_loop": {"mode": "partial", "steps": 12}}}}
    checked = core_session.check_panels(data["panels"], core_session.panel_model_classes())
    assert checked["training"]["cards"]["rl_loop"] == {"mode": "partial", "steps": 12}


def test_session_saves_and_opens_the_same_loop_bit_for_bit(qtbot, window, tmp_path):
    panel = _open(qtbot, window)
    section = panel.rl_loop
    with _drawn(qtbot, panel):
        section.mode_buttons["async"].click()
    with _drawn(qtbot, panel):
        _type(section.form.field("sigma"), "1.5")
    qtbot.waitUntil(lambda: _settled(window, panel), timeout=90_000)
    section.player.seek(section.view.figure.end_s / 3)
    saved_position = panel.state.player("rl_loop")
    assert saved_position == pytest.approx(section.view.figure.end_s / 3) and saved_position > 0
    shown = _shown(section)
    assert shown[0].mode == "async" and shown[0].sigma == 1.5
    path = str(tmp_path / "rl.lab.json")
    assert window.session.save_path(path)
    saved = core_session.read_session(path)["panels"]["training"]
    assert saved["cards"]["rl_loop"] == {"mode": "async", "sigma": 1.5}
    assert saved["players"]["rl_loop"] == saved_position

    with window.undo_recorder.paused(), _drawn(qtbot, panel):
        panel.state.reset()
        panel.state.set_view("tab", "rl")
    qtbot.waitUntil(lambda: _settled(window, panel), timeout=90_000)
    assert section.view.figure.params.mode == "synchronous" and section.mode_buttons["synchronous"].isChecked()
    assert _shown(section)[1] != shown[1]

    with qtbot.waitSignal(window.session.opened, timeout=30_000) as opened, _drawn(qtbot, panel):
        window.session.open_path(path)
    assert opened.args[1]
    qtbot.waitUntil(lambda: _settled(window, panel), timeout=90_000)
    assert _shown(section) == shown  # the same loop, the same numbers, the same split
    assert section.mode_buttons["async"].isChecked() and not section.mode_buttons["synchronous"].isChecked()
    assert section.form.field("sigma").edit.text() == "1.5"
    assert section.player.position == saved_position == panel.state.player("rl_loop")
    assert window.undo_stack.count() == 0  # opening is not an edit


def test_undo_takes_back_a_field_and_the_mode_and_the_figure_follows(qtbot, window, monkeypatch):
    import lab.undo

    # Two edits of one card within the merge window are one step (a held arrow key); a
    # warm engine draws the loop faster than that, and here each edit is its own step.
    monkeypatch.setattr(lab.undo, "MERGE_WINDOW_S", -1.0)
    panel = _open(qtbot, window)
    section = panel.rl_loop
    start = window.undo_stack.count()
    with _drawn(qtbot, panel):
        _type(section.form.field("steps"), "3")
    _steps(qtbot, window, start + 1)
    with _drawn(qtbot, panel):
        section.mode_buttons["partial"].click()
    _steps(qtbot, window, start + 2)
    assert window.undo_stack.text(start + 1) == "training: cards.rl_loop"
    qtbot.waitUntil(lambda: _settled(window, panel), timeout=90_000)
    partial = _shown(section)

    with _drawn(qtbot, panel):
        window.session.undo_action.trigger()
    assert section.mode_buttons["synchronous"].isChecked() and section.mode == "synchronous"
    assert (section.view.figure.params.mode, section.view.figure.params.steps) == ("synchronous", 3)
    with _drawn(qtbot, panel):
        window.session.undo_action.trigger()
    assert section.form.field("steps").edit.text() == "4" and section.view.figure.params.steps == 4
    assert panel.state.card("rl_loop").to_json() == {}
    with _drawn(qtbot, panel):
        window.session.redo_action.trigger()
    with _drawn(qtbot, panel):
        window.session.redo_action.trigger()
    qtbot.waitUntil(lambda: _settled(window, panel), timeout=90_000)
    assert _shown(section) == partial and section.mode_buttons["partial"].isChecked()
    assert window.undo_stack.count() == window.undo_stack.index() == start + 2  # undo and redo pushed nothing


def test_a_refused_edit_is_no_undo_step_and_reset_brings_the_windows_loop_back(qtbot, window):
    panel = _open(qtbot, window)
    section = panel.rl_loop
    book = _shown(section)
    start = window.undo_stack.count()
    _type(section.form.field("rollout_replicas"), "9")
    assert section.form.field("rollout_replicas").has_error and not jobs().busy(section.job_key)
    window.undo_recorder.flush()
    assert window.undo_stack.count() == start  # nothing changed: nothing to undo
    with _drawn(qtbot, panel):
        _type(section.form.field("rollout_replicas"), "3")
    with _drawn(qtbot, panel):
        section.mode_buttons["one_step"].click()
    qtbot.waitUntil(lambda: _settled(window, panel), timeout=90_000)
    assert section.view.lane_count() == 6  # three replicas, reference, update, sync
    with _drawn(qtbot, panel):
        window.session.reset_action.trigger()  # ↺: the whole panel, one step
        panel.state.set_view("tab", "rl")
    qtbot.waitUntil(lambda: _settled(window, panel), timeout=90_000)
    assert panel.state.card("rl_loop").to_json() == {} and section.mode_buttons["synchronous"].isChecked()
    assert section.form.field("rollout_replicas").edit.text() == "2"
    assert _shown(section)[:4] == book[:4]


def test_the_talk_scene_sets_mode_async():
    talk = load_talk(CHAPTER3)
    scene = next(s for s in talk.scenes if s.panel == "training" and s.state["cards"]["rl_loop"])
    assert scene.state["cards"]["rl_loop"] == {"mode": "async"} and scene.state["view"]["tab"] == "rl"
    assert scene.autoplay == "rl_loop"
    state = TrainingState()
    state.load_json(scene.state)
    assert state.card("rl_loop").inputs["mode"] == "async"
