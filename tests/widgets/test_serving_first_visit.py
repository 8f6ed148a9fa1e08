"""Serving's first visit (issue 14, the window answers at once), built in a running event loop
as the window builds it: the replay plots stay off the page until the last of them is made,
the replay controls come in two turns (forms, then the table the panel draws into), the
measured overlay makes no plot until a trace brings measured values; once built, the page
is the one a panel built at once shows. Waits are on conditions."""
from PySide6 import QtCore

from tests.widgets.first_visit import WAIT_MS, built_in_a_turn
from widgets.serving import ServingPanel
from widgets.serving.overlay import OverlayPlots


def test_the_plots_join_hidden_and_the_controls_in_two_turns(qtbot):
    seen: list[tuple] = []
    panel, _ = built_in_a_turn(qtbot, ServingPanel, lambda panel: {})

    def look():  # what each later turn left: (plots made, plots hidden, controls whole)
        if not panel.is_built():
            seen.append((len(panel.plots.queue_plots) + len(panel.plots.kv_plots), panel.plots.isHidden(),
                         panel.controls is not None, hasattr(panel, "_controls")))

    timer = QtCore.QTimer()
    timer.setInterval(0)
    timer.timeout.connect(look)
    timer.start()
    qtbot.waitUntil(panel.is_built, timeout=WAIT_MS)
    timer.stop()
    assert any(made > 0 and hidden for made, hidden, _, _ in seen)  # plots made while off the page
    assert not panel.plots.isHidden() and len(panel.plots.gantt_plots) == 2
    assert any(forms and not whole for _, _, whole, forms in seen)  # the forms a turn before the table
    assert panel.controls.compare_table.rowCount() > 0
    qtbot.waitUntil(panel.is_ready, timeout=WAIT_MS)

    at_once = ServingPanel()  # no event loop running here
    qtbot.addWidget(at_once)
    qtbot.waitUntil(at_once.is_ready, timeout=WAIT_MS)
    table = lambda p: [[p.compare_table.item(r, c).text() for c in range(6)]  # noqa: E731
                       for r in range(p.compare_table.rowCount())]
    assert table(panel) == table(at_once) and table(panel)[0][0] != ""
    assert sorted(panel.plots.queue_plots) == sorted(at_once.plots.queue_plots) == ["A", "B"]


def test_the_overlay_makes_its_plots_at_its_first_measured_figure(qtbot):
    overlay = OverlayPlots("test.overlay")
    qtbot.addWidget(overlay)
    assert overlay.cards == {} and overlay.isHidden()
    overlay.draw(None)  # nothing measured: still nothing made
    assert overlay.cards == {}
    steps = ([0.0, 1.0, 2.0], [0.0, 0.5, 1.0])
    panel = {"measured_steps": steps, "simulated_steps": steps, "x_range": (0.0, 2.0), "measured_n": 3,
             "simulated_n": 3, "note": "p50"}
    overlay.draw({"ttft": panel, "itl": panel})
    assert sorted(overlay.cards) == ["itl", "ttft"] and not overlay.isHidden()
    x, y = overlay.cards["ttft"].curves["measured"].getData()
    assert list(x) == steps[0] and list(y) == steps[1]
