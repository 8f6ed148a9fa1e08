"""The Audio panel's first visit (issue 14, the window answers at once): built inside a
running event loop, as the window builds it, the panel comes back with its header and
controls; each plot and each exercise card follows on a later turn of the loop, and once
built it draws what a panel built at once draws. Waits are on conditions."""
from tests.widgets.first_visit import WAIT_MS, built_in_a_turn
from widgets.audio import AudioPanel
from widgets.kit.jobs import jobs


def test_a_panel_built_in_a_running_loop_builds_its_plots_and_cards_in_later_turns(qtbot):
    panel, seen = built_in_a_turn(qtbot, AudioPanel, lambda panel: {
        "controls": hasattr(panel, "controls"),
        "plots": [hasattr(panel.plots, n) for n in ("timeline_plot", "level_plot", "wave_plot")],
        "cards": [hasattr(panel.exercises, n) for n in ("compare_card", "drain_card", "frames_card")],
        "ready": panel.is_ready()})
    assert seen["controls"]
    assert seen["plots"] == [False] * 3 and seen["cards"] == [False] * 3
    assert not seen["ready"]
    qtbot.waitUntil(panel.is_ready, timeout=WAIT_MS)
    at_once = AudioPanel()  # no event loop running here: built in one go
    qtbot.addWidget(at_once)
    qtbot.waitUntil(at_once.is_ready, timeout=WAIT_MS)
    for name in ("timeline", "compare"):
        assert panel._drawn[name] == at_once._drawn[name]
    assert panel.plots.model_bars.opts["x0"] is not None
    assert list(panel.plots.model_bars.opts["x0"]) == list(at_once.plots.model_bars.opts["x0"])
    assert list(panel.exercises.drain_arrived.getData()[1]) == list(at_once.exercises.drain_arrived.getData()[1])
    for p in (panel, at_once):
        p.close()
    jobs().wait_idle()
