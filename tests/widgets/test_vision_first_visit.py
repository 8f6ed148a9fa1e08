"""The Vision panel's first visit (issue 14, the window answers at once): built inside a
running event loop, as the window builds it, the panel comes back with its header and empty
tabs; the picture's column, the tab on screen (a piece a turn) and the first drawing follow
on later turns, and what is on screen then is what a panel built at once shows. Waits are on
conditions."""
from PySide6 import QtCore

from widgets.kit.jobs import jobs
from widgets.vision import VisionPanel

WAIT_MS = 60_000


def _table(panel) -> list[list[str]]:
    t = panel.volumes.table
    return [[t.item(r, c).text() for c in range(t.columnCount())] for r in range(t.rowCount())]


def test_a_panel_built_in_a_running_loop_builds_its_pieces_in_later_turns(qtbot):
    made = {}

    def build():
        panel = VisionPanel()
        made["panel"] = panel
        made["column_at_return"] = panel.column
        made["pages_at_return"] = dict(panel._sections)
        made["ready_at_return"] = panel.is_ready()
        made["drops_at_return"] = panel.acceptDrops()

    QtCore.QTimer.singleShot(0, build)
    qtbot.waitUntil(lambda: "panel" in made, timeout=WAIT_MS)
    panel = made["panel"]
    qtbot.addWidget(panel)
    panel.resize(1280, 720)
    panel.show()
    assert made["column_at_return"] is None and made["pages_at_return"] == {}
    assert not made["ready_at_return"] and not made["drops_at_return"]
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
    made = {}

    def build_and_ask():
        panel = VisionPanel()
        made["panel"] = panel
        made["compare"] = panel.compare  # a test or a talk reaching for a tab at once
        made["ready"] = panel.is_ready()

    QtCore.QTimer.singleShot(0, build_and_ask)
    qtbot.waitUntil(lambda: "panel" in made, timeout=WAIT_MS)
    panel = made["panel"]
    qtbot.addWidget(panel)
    assert made["ready"] and panel.column is not None
    assert set(panel._sections) == {"volumes", "compare"}
    panel.close()
    jobs().wait_idle()


def test_a_panel_closed_before_its_pieces_are_built_stops_building(qtbot):
    made = {}

    def build_and_close():
        panel = VisionPanel()
        made["panel"] = panel
        panel.close()  # in the same turn of the loop: the pieces are still to come

    QtCore.QTimer.singleShot(0, build_and_close)
    qtbot.waitUntil(lambda: "panel" in made, timeout=WAIT_MS)
    panel = made["panel"]
    qtbot.addWidget(panel)
    assert panel._build.stopped
    later = []  # a timer due after the next step's (1 ms): once it fires, that step would have run
    QtCore.QTimer.singleShot(20, lambda: later.append(True))
    qtbot.waitUntil(lambda: bool(later), timeout=WAIT_MS)
    assert panel.column is None and not panel.is_ready()
    jobs().wait_idle()
