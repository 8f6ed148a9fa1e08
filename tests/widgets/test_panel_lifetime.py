"""A panel that is closed is freed: building and closing a panel again and again leaves no
widget, no panel object and no memory behind (issue 14). Before, each cycle kept the whole
panel (4-43 MiB): its children's signals held closures that held the panel."""
from __future__ import annotations

import gc
import os
import weakref

import pytest
from PySide6 import QtWidgets

from widgets.kit.jobs import jobs
from widgets.kit.lifetime import live_widget_count
from widgets.kit.panels import discover_panels, panel_class

WARM_UP = 2  # first builds fill caches (fonts, catalogs, compiled engines) for good
CYCLES = 3   # measured after the warm-up
RSS_SLACK_MIB = 12.0  # allocator noise over all measured cycles; a kept panel is more per cycle


def _rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


def _build_and_close(qtbot, factory) -> weakref.ref:
    panel = factory()
    panel.resize(1280, 720)
    panel.show()
    qtbot.waitUntil(getattr(panel, "is_ready", lambda: True), timeout=120_000)
    jobs().wait_idle()
    ref = weakref.ref(panel)
    panel.close()
    del panel

    def gone() -> bool:
        gc.collect()
        return ref() is None

    qtbot.waitUntil(gone, timeout=10_000)  # the deferred delete runs in the event loop
    jobs().wait_idle()
    return ref


@pytest.mark.parametrize("key", [p.key for p in discover_panels()])
def test_a_closed_panel_is_freed_and_memory_stays_flat(qtbot, key):
    info = next(p for p in discover_panels() if p.key == key)
    factory = panel_class(info)
    for _ in range(WARM_UP):
        _build_and_close(qtbot, factory)
    before = live_widget_count()  # an earlier test's widgets may still be going: not more
    start = _rss_mib()
    for _ in range(CYCLES):
        _build_and_close(qtbot, factory)
        assert live_widget_count() <= before  # nothing of the panel is left as a widget
    grown = _rss_mib() - start
    assert grown < RSS_SLACK_MIB, f"{key}: {grown:.1f} MiB more after {CYCLES} build/close cycles"


def test_a_panel_inside_a_window_is_kept_until_the_window_closes(qtbot):
    """Switching panels hides them; only a close frees one."""
    factory = panel_class(next(p for p in discover_panels() if p.key == "scaling"))
    holder = QtWidgets.QStackedWidget()
    panel = factory(parent=holder)
    other = QtWidgets.QLabel("other")
    holder.addWidget(panel)
    holder.addWidget(other)
    holder.show()
    holder.setCurrentWidget(other)
    ref = weakref.ref(panel)
    del panel
    qtbot.wait(10)
    gc.collect()
    assert ref() is not None and ref().isHidden()
    holder.deleteLater()  # the window goes: its panels with it

    def gone() -> bool:
        gc.collect()
        return ref() is None

    qtbot.waitUntil(gone, timeout=10_000)
