"""The Serving panel's P/D fields are its state's pools card: a session saves and opens them
(the P/D run comes back the same), undo takes an edit back (the fields and the run follow),
reset clears them, and a bad saved value is refused naming its field with nothing changed."""
import pytest

from core import session as core_session
from core.registry import ParamError
from core.serving.state import ServingState
from widgets.kit.jobs import jobs

SMALL = {"durations_s": (20.0, 20.0), "rates_per_s": (2.0, 2.0)}  # a P/D run of the book's 480 takes seconds


def _open_small(qtbot, window):
    window.show_panel("serving")
    qtbot.waitUntil(lambda: window.is_ready("serving") and window.undo_recorder.is_settled("serving"),
                    timeout=60_000)
    panel = window.panel("serving")
    with window.undo_recorder.paused():
        with qtbot.waitSignal(panel.replay_computed, timeout=60_000):
            panel.state.replay("A").update(SMALL)
    _ready(qtbot, window, panel)
    return panel


def _ready(qtbot, window, panel):
    qtbot.waitUntil(lambda: panel.is_ready() and not jobs().busy_keys(), timeout=60_000)
    window.undo_recorder.flush()


def _shown(section):
    form = section.form
    return form.pools_edit.text(), form.link_box.currentText(), form.transfer_box.currentText()


def test_state_round_trip_and_refusal():
    s = ServingState()
    assert s.to_json()["cards"]["pools"] == {}  # no P/D run: nothing saved
    assert s.card("pools").update({"pools": "2P4D", "kv_link": "pcie", "kv_transfer": "layerwise"})
    data = s.to_json()
    assert data["cards"]["pools"] == {"pools": "2P4D", "kv_link": "pcie", "kv_transfer": "layerwise"}
    other = ServingState()
    other.load_json(data)
    assert other.to_json() == data
    for bad, field in (({"pools": "2Q4D"}, "pools"), ({"kv_link": "warp-9"}, "kv_link"), ({"kv_link": ""}, "kv_link"),
                       ({"kv_transfer": "bits"}, "kv_transfer"), ({"pools": ["1P1D"]}, "pools"),
                       ({"pools": "cheapest:99x1"}, "pools"), ({"kv_link": "0"}, "kv_link")):
        with pytest.raises(ParamError) as err:
            other.load_json({**data, "cards": {**data["cards"], "pools": bad}})
        assert err.value.param == field
        assert other.to_json() == data  # a bad state changes nothing
    with pytest.raises(core_session.SessionError, match=r"panels.serving.cards.pools.kv_link: got .warp-9."):
        core_session.check_panels({"serving": {**data, "cards": {"pools": {"kv_link": "warp-9"}}}},
                                  {"serving": ServingState})
    # The forms the CLI takes: cheapest[:XxY], a number of GB/s, inf
    assert other.card("pools").update({"pools": "cheapest:3x3", "kv_link": "25"})
    assert other.card("pools").update({"pools": "1p1d", "kv_link": "INF"})
    assert other.card("pools").inputs["kv_link"] == "inf"
    other.reset()
    assert other.card("pools").to_json() == {}


def test_session_saves_and_opens_the_pools(qtbot, window, tmp_path):
    panel = _open_small(qtbot, window)
    section = panel.pools_section
    with qtbot.waitSignal(section.drawn, timeout=60_000) as got:
        section.form.set_values("1P2D", "rdma-200g", "layerwise")
    block = got.args[0].block
    _ready(qtbot, window, panel)
    path = str(tmp_path / "pools.lab.json")
    assert window.session.save_path(path)
    saved = core_session.read_session(path)["panels"]["serving"]
    assert saved["cards"]["pools"] == {"pools": "1P2D", "kv_link": "rdma-200g", "kv_transfer": "layerwise"}

    with window.undo_recorder.paused():
        panel.state.reset()  # ↺: back to one pool, the fields at their defaults
    _ready(qtbot, window, panel)
    assert _shown(section) == ("", "rdma-400g", "whole") and section.view.isHidden() and not section.raw
    with qtbot.waitSignal(section.drawn, timeout=60_000) as drawn:
        with qtbot.waitSignal(window.session.opened, timeout=30_000) as opened:
            window.session.open_path(path)
    assert opened.args[1]
    assert _shown(section) == ("1P2D", "rdma-200g", "layerwise")
    assert drawn.args[0].block == block  # the same P/D run as before the save
    assert section.view.isVisible()


def test_undo_takes_back_a_pools_edit(qtbot, window):
    panel = _open_small(qtbot, window)
    section = panel.pools_section
    start = window.undo_stack.count()
    with qtbot.waitSignal(section.drawn, timeout=60_000) as got:
        section.form.set_values("1P1D", "pcie", "layerwise")  # the book's card has PCIe
    assert got.args[0].raw["kv_link"] == "pcie"
    qtbot.waitUntil(lambda: window.undo_stack.count() == start + 1, timeout=5_000)
    assert window.undo_stack.text(start) == "serving: cards.pools"
    _ready(qtbot, window, panel)

    window.session.undo_action.trigger()  # back to one pool: no run, the fields at their defaults
    assert _shown(section) == ("", "rdma-400g", "whole") and section.view.isHidden() and not section.raw
    assert panel.state.card("pools").to_json() == {}
    _ready(qtbot, window, panel)
    with qtbot.waitSignal(section.drawn, timeout=60_000) as got:
        window.session.redo_action.trigger()
    assert got.args[0].raw == {**got.args[0].raw, "pools": "1P1D", "kv_link": "pcie", "kv_transfer": "layerwise"}
    assert _shown(section) == ("1P1D", "pcie", "layerwise")
    _ready(qtbot, window, panel)
    assert window.undo_stack.count() == start + 1  # undo and redo pushed nothing


def test_a_client_limit_is_said_to_be_left_out(open_serving_panel, qtbot):
    panel = open_serving_panel(1280, 720)
    with qtbot.waitSignal(panel.replay_computed, timeout=60_000):
        panel.state.replay("A").update(SMALL)
    section = panel.pools_section
    panel.state.card("deployment").update({"max_concurrency": "4"})
    with qtbot.waitSignal(section.drawn, timeout=60_000) as got:
        section.form.set_values("1P1D")
    assert "max_concurrency" not in got.args[0].raw  # the CLI refuses it for a P/D run
    assert section.form.note.isVisible() and "max_concurrency=4" in section.form.note.text()
    panel.state.card("deployment").update({"max_concurrency": "0"})
    qtbot.waitUntil(lambda: section.form.note.isHidden(), timeout=30_000)
    jobs().wait_idle()
