"""The RL tab's live loop in session files, in pure core: a file written with the loop and
its ▶ position reads back and checks to the same state; a session saved before the loop
was the state's (commit cac96f6) opens with the window's loop at its start."""
from pathlib import Path

from core import session
from core.rl.loop_card import RL_LOOP
from core.training_state import TrainingState

WINDOW = {"x": 10, "y": 20, "width": 1280, "height": 720, "maximized": False}
OLD = Path(__file__).resolve().parents[1] / "data" / "sessions" / "cac96f6.lab.json"


def test_a_session_file_carries_the_loop_and_its_position(tmp_path):
    state = TrainingState()
    assert state.card("rl_loop").update({"mode": "one_step", "group": "16", "staleness": "2"})
    state.set_view("tab", "rl")
    state.set_player("rl_loop", 12.25)
    path = str(tmp_path / "rl.lab.json")
    session.write_session(path, session.make_session("training", WINDOW, 1.0, "light", "en",
                                                     {"training": state.to_json()}))
    back = session.read_session(path)["panels"]["training"]
    assert back["cards"]["rl_loop"] == {"mode": "one_step", "group": 16, "staleness": 2}
    assert back["players"]["rl_loop"] == 12.25
    checked = session.check_panels({"training": back}, session.panel_model_classes())["training"]
    assert checked == state.to_json()
    other = TrainingState()
    other.load_json(checked)
    assert other.card("rl_loop").inputs == state.card("rl_loop").inputs and other.player("rl_loop") == 12.25


def test_a_session_from_before_the_loop_opens_with_the_windows_loop():
    data = session.read_session(str(OLD))
    saved = data["panels"]["training"]
    assert "rl_loop" not in saved["cards"] and "rl_loop" not in saved["players"]
    checked = session.check_panels({"training": saved}, session.panel_model_classes())["training"]
    assert checked["cards"]["rl_loop"] == {} and checked["players"]["rl_loop"] == 0.0
    state = TrainingState()
    state.card("rl_loop").update({"mode": "async"})
    state.load_json(checked)  # opening it over an edited loop puts the window's back
    assert state.card("rl_loop").inputs == RL_LOOP.default_inputs
