"""The Vision panel's first visit (issue 14, the window answers at once): built inside a
running event loop, as the window builds it, the panel comes back with its header and empty
tabs; the picture's column, the tab on screen (a piece a turn) and the first drawing follow
on later turns, and what is on screen then is what a panel built at once shows. Waits are on
conditions."""
from PySide6 import QtCore

from tests.widgets.first_visit import WAIT_MS, built_in_a_turn
from widgets.kit.jobs import jobs
from widgets.vision import VisionPanel


def _table(panel) -> list[list[str]]:
    t = panel.volumes.table
    return [[t.item(r, c).text() for c in range(t.columnCount())] for r in range(t.rowCount())]


def test_a_panel_built_in_a_running_loop_builds_its_pieces_in_later_turns(qtbot):
    panel, seen = built_in_a_turn(qtbot, VisionPanel, lambda panel: {
        "column": panel.column, "pages": dict(panel._sections), "ready": panel.is_ready(),
        "drops": panel.acceptDrops()})
    assert seen["column"] is None and seen["pages"] == {}
    assert not seen["ready"] and not seen["drops"]
    qtbot.waitUntil(panel.is_ready, timeout=WAIT_MS)
    assert panel.acceptDrops()
    assert panel.view.property("lab_export_menu")  # the picture's right-click Export

    at_once = VisionPanel()  # no event loop running here: built in one go
    qtbot.addWidget(at_once)
    assert at_once.is_ready()
    at_once.resize(1280, 720)
    at_once.show()
    qtbot.waitUntil(lambda: at_once.split.orientation() == panel.split.orientation()
                    and at_once.column._split.sizes() == panel.column._split.sizes(), timeout=WAIT_MS)
    # The picture over its details as a panel built at once shares them (4:1), not all to the picture.
    picture, details = panel.column._split.sizes()
    assert picture > 2 * details > 0
    assert _table(panel) == _table(at_once) and len(_table(panel)) > 1
    for name in ("size_label", "token_label", "notes_label"):
        assert getattr(panel.column, name).text() == getattr(at_once.column, name).text() != ""
    assert panel.volumes.reuse_label.text() == at_once.volumes.reuse_label.text() != ""
    assert panel.tabs.currentIndex() == at_once.tabs.currentIndex()
    for p in (panel, at_once):
        p.close()
    jobs().wait_idle()


def test_a_section_asked_for_mid_build_finishes_the_build_first(qtbot):
    # a test or a talk reaching for a tab at once
    panel, seen = built_in_a_turn(qtbot, VisionPanel, lambda panel: {"compare": panel.compare,
                                                                    "ready": panel.is_ready()}, show=False)
    assert seen["ready"] and panel.column is not None
    assert set(panel._sections) == {"volumes", "compare"}
    panel.close()
    jobs().wait_idle()


def test_a_panel_closed_before_its_pieces_are_built_stops_building(qtbot):
    # closed in the same turn of the loop: the pieces are still to come
    panel, _ = built_in_a_turn(qtbot, VisionPanel, lambda panel: {"closed": panel.close()}, show=False)
    assert panel._build.stopped
    later = []  # a timer due after the next step's (1 ms): once it fires, that step would have run
    QtCore.QTimer.singleShot(20, lambda: later.append(True))
    qtbot.waitUntil(lambda: bool(later), timeout=WAIT_MS)
    assert panel.column is None and not panel.is_ready()
    jobs().wait_idle()
