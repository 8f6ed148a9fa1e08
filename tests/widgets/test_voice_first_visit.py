"""The Voice panel's first visit (issue 14, the window answers at once): built inside a
running event loop, as the window builds it, the panel comes back with its header and
controls only; its plots follow one per turn of the loop, and the run that came back in
the meantime is drawn once the last one is in. Waits are on conditions."""
from PySide6 import QtCore

from tests.widgets.first_visit import WAIT_MS, built_in_a_turn
from widgets.kit.jobs import jobs
from widgets.voice import VoicePanel


def test_a_panel_built_in_a_running_loop_builds_its_plots_in_later_turns(qtbot, engine):
    # what the constructor left for later turns of the loop: every plot
    panel, seen = built_in_a_turn(qtbot, lambda: VoicePanel(engine=engine), lambda panel: {
        "plots": [hasattr(panel.timeline, name) for name in ("background", "swimlane")],
        "histogram": hasattr(panel, "histogram"), "ready": panel.is_ready()})
    assert seen["plots"] == [False, False]
    assert not seen["histogram"] and not seen["ready"]
    qtbot.waitUntil(panel.is_ready, timeout=WAIT_MS)
    # Drawn as a panel built at once draws it: the shown turn and every turn's silence.
    assert panel.drawn["shown"] == panel.state.view("shown")
    assert sum(panel.drawn["counts"]) == len(panel.run.turns)
    assert panel.summary_label.text()
    panel.close()
    jobs().wait_idle()


def test_a_panel_closed_before_its_plots_are_built_stops_building(qtbot, engine):
    made = {}

    def build_and_close():
        panel = VoicePanel(engine=engine)
        made["timeline"] = panel.timeline
        made["plots_at_close"] = hasattr(panel.timeline, "background")
        panel.close()  # in the same turn of the loop: the plots are still to come

    QtCore.QTimer.singleShot(0, build_and_close)
    qtbot.waitUntil(lambda: "timeline" in made, timeout=WAIT_MS)
    timeline = made["timeline"]
    assert not made["plots_at_close"]
    assert jobs().wait_idle()
    # A timer due after the step's (1 ms): once it fires, the step would have run.
    later = []
    QtCore.QTimer.singleShot(20, lambda: later.append(True))
    qtbot.waitUntil(lambda: bool(later), timeout=WAIT_MS)
    assert not hasattr(timeline, "background")
