"""The Serving panel's deployment keys and step-time coefficients are its state's: a session
saves and opens them (the replays run with them again), undo takes each edit back (the
fields, the deployment and the replays follow), reset clears them, and a bad saved set is
refused naming its key with nothing changed."""
import pytest

from core import session as core_session
from core.registry import ParamError
from core.serving.state import ServingState
from widgets.kit.jobs import jobs

COEFS = {"coef_step_s": 0.002, "coef_seq_s": 3e-5}
UNCOMPARED = ("figure", "wall_s")  # the drawing, and the replay's own run time


def _open(qtbot, window):
    window.show_panel("serving")
    qtbot.waitUntil(lambda: window.is_ready("serving") and window.undo_recorder.is_settled("serving"),
                    timeout=60_000)
    return window.panel("serving")


def _ready(qtbot, window, panel):
    qtbot.waitUntil(lambda: panel.is_ready() and not jobs().busy_keys(), timeout=60_000)
    window.undo_recorder.flush()


def _type(field, text):
    field.edit.setCurrentText(text)  # a combo: its signal edits


def _steps(qtbot, window, count):
    qtbot.waitUntil(lambda: window.undo_stack.count() == window.undo_stack.index() == count, timeout=5_000)


def _coefs_of(panel):
    """The coefficients the replays run with (the deployment's key holds every key given)."""
    return {k: float(v) for k, v in panel.deployed.key if k.startswith("coef_")}


def test_state_round_trip_and_refusal():
    s = ServingState()
    assert s.to_json()["coefficients"] == {}  # always there: undo can take a set back to none
    s.card("deployment").update({"tp": "2", "quantization": "fp8", "max_concurrency": "4"})
    s.set_coefficients(COEFS)
    data = s.to_json()
    assert data["cards"]["deployment"] == {"tp": 2, "quantization": "fp8", "max_concurrency": 4}
    assert data["coefficients"] == COEFS
    other = ServingState()
    other.load_json(data)
    assert other.to_json() == data
    # A bad set names its key and changes nothing, the cards included.
    for bad, field in (({"coef_step_s": 5.0}, "coefficients.coef_step_s"), ({"coef_nope": 1.0}, "coefficients.coef_nope"),
                       ({"coef_step_s": float("nan")}, "coefficients.coef_step_s"), ([1, 2], "coefficients")):
        with pytest.raises(ParamError) as err:
            other.load_json({**ServingState().to_json(), "coefficients": bad})
        assert err.value.param == field
        assert other.to_json() == data
    # A session's dry run refuses it too, naming the panel and the key.
    with pytest.raises(core_session.SessionError, match=r"panels.serving: coefficients.coef_step_s"):
        core_session.check_panels({"serving": {**data, "coefficients": {"coef_step_s": -1.0}}},
                                  {"serving": ServingState})
    other.reset()
    assert other.coefficients == {} and other.card("deployment").to_json() == {}


def test_session_saves_and_opens_the_deployment_and_coefficients(qtbot, window, tmp_path):
    panel = _open(qtbot, window)
    book = dict(panel.state.replay("A").result)
    _type(panel.deployment_section.field("quantization"), "fp8")
    assert panel.deployment_section.set_coefficients(COEFS)
    _ready(qtbot, window, panel)
    deployed_key, a_inputs = panel.deployed.key, panel.state.replay("A").inputs
    result = {k: v for k, v in panel.state.replay("A").result.items() if k not in UNCOMPARED}
    assert panel.deployed.active and _coefs_of(panel) == COEFS
    assert result["ttft_p95_s"] != book["ttft_p95_s"]
    path = str(tmp_path / "deployed.lab.json")
    assert window.session.save_path(path)
    saved = core_session.read_session(path)["panels"]["serving"]
    assert saved["cards"]["deployment"] == {"quantization": "fp8"} and saved["coefficients"] == COEFS

    with window.undo_recorder.paused():
        panel.state.reset()
    _ready(qtbot, window, panel)
    assert not panel.deployed.active and panel.state.coefficients == {}
    with qtbot.waitSignal(window.session.opened, timeout=30_000) as opened:
        window.session.open_path(path)
    assert opened.args[1]
    _ready(qtbot, window, panel)
    assert panel.state.card("deployment").inputs["quantization"] == "fp8"
    assert panel.state.coefficients == COEFS
    assert panel.deployed.key == deployed_key and panel.state.replay("A").inputs == a_inputs
    assert panel.deployment_section.field("quantization").edit.currentText() == "fp8"
    got = {k: v for k, v in panel.state.replay("A").result.items() if k not in UNCOMPARED}
    assert got == result  # the same replay as before the save


def test_undo_takes_back_a_deployment_key_and_a_coefficient_set(qtbot, window):
    panel = _open(qtbot, window)
    section = panel.deployment_section
    start_a = panel.state.replay("A").inputs
    _type(section.field("quantization"), "fp8")
    _steps(qtbot, window, 1)
    fp8_a = panel.state.replay("A").inputs
    assert fp8_a != start_a  # the deployment set A's per-card figures (in the same step)
    assert section.set_coefficients(COEFS)
    _steps(qtbot, window, 2)
    assert window.undo_stack.text(1) == "serving: coefficients"
    _ready(qtbot, window, panel)

    window.session.undo_action.trigger()
    assert panel.state.coefficients == {} and _coefs_of(panel) == {}
    assert panel.deployed.active and panel.state.replay("A").inputs == fp8_a
    window.session.undo_action.trigger()
    assert panel.state.card("deployment").inputs["quantization"] == "bf16"
    assert section.field("quantization").edit.currentText() == "bf16"
    assert not panel.deployed.active and panel.state.replay("A").inputs == start_a
    _ready(qtbot, window, panel)
    window.session.redo_action.trigger()
    window.session.redo_action.trigger()
    assert panel.state.coefficients == COEFS and _coefs_of(panel) == COEFS
    assert panel.state.card("deployment").inputs["quantization"] == "fp8"
    _ready(qtbot, window, panel)
    assert window.undo_stack.count() == window.undo_stack.index() == 2  # undo and redo pushed nothing
