"""The Voice panel while its load slider is dragged: runs that come back during the drag are
drawn live (data only, one figure per frame); once the drag is over the last run is drawn in
full, and the panel then shows exactly what a fresh panel at that load shows: every
figure's data, ranges, marks and labels. Waits are on signals and conditions."""

import numpy as np
import pytest
from PySide6 import QtWidgets

pytest.importorskip("core.voice", reason="core.voice (issue 13's model) is not in this checkout yet")

from core.voice.state import RATE_STEP_PER_S, VoiceState
from widgets.kit.jobs import jobs
from widgets.voice import LIVE_FIGURES, VoicePanel
from widgets.voice.live_ranges import LIVE_GROWTH, LIVE_SHRINK, live_range

WAIT_MS = 60_000
TURNS = 40


def _panel(qtbot, engine, rate_step: int | None = None) -> VoicePanel:
    state = VoiceState()
    state.set_view("turns", TURNS)
    if rate_step is not None:
        state.set_view("rate_per_s", round(rate_step * RATE_STEP_PER_S, 6))
    w = VoicePanel(state=state, engine=engine)
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    qtbot.waitUntil(lambda: w.is_ready() and not jobs().busy_keys(), timeout=WAIT_MS)
    return w


def _curve(item) -> tuple:
    x, y = item.getData()
    return (np.asarray(x if x is not None else []), np.asarray(y if y is not None else []))


def _line(line) -> tuple:
    label = getattr(line, "label", None)
    return (line.isVisible(), float(line.value()),
            None if label is None else (label.isVisible(), label.toPlainText()))


def _text(item) -> tuple:
    # Qt keeps an item where it is when the new position compares fuzzy-equal (QPointF's ==,
    # about 1e-12 relative): a drag can leave a label 1e-14 ms off a fresh panel's. To 1e-6 ms.
    return item.isVisible(), item.textItem.toPlainText(), (round(item.pos().x(), 6), round(item.pos().y(), 6))


def _laid_out() -> None:
    """Deliver the layout and resize events already posted (a fresh panel's lane labels widen
    the swimlane's axis, and the background, linked to it on screen, follows)."""
    for _ in range(5):
        QtWidgets.QApplication.sendPostedEvents()
        QtWidgets.QApplication.processEvents()


def figures(w: VoicePanel) -> dict:
    """Everything the three figures and the captions show."""
    _laid_out()
    tl, hist = w.timeline, w.histogram
    out = {
        "bars": {k: np.asarray(tl.bars.opts[k]) for k in ("x0", "x1", "y")},
        "bar_brushes": [b.color().name(b.color().NameFormat.HexArgb) for b in tl.bars.opts["brushes"]],
        "stalls": {k: np.asarray(tl.stall_bars.opts[k]) for k in ("x0", "x1", "y")},
        "arrivals": _curve(tl.arrivals), "tokens": _curve(tl.tokens), "silence": _curve(tl.silence_curve),
        "queue": _curve(tl.queue_curve), "kv": _curve(tl.kv_curve),
        "silence_text": _text(tl.silence_text), "lane_texts": [_text(t) for t in tl.lane_texts],
        "lanes": list(tl.lanes), "lane_ticks": tl.swimlane.plot.getAxis("left")._tickLevels,
        "audible": _line(tl.audible_line), "barge": _line(tl.barge_line), "user": _line(tl.user_line),
        "swim_range": tl.swimlane.plot.viewRange(), "bg_range": tl.background.plot.viewRange(),
        "hist": _curve(hist.bars), "hist_range": hist.card.plot.viewRange(),
        "marks": {k: _line(line) for k, line in hist.lines.items()}, "book_text": _text(hist.book_text),
        "summary": w.summary_label.text(), "breakdown": w.breakdown_label.text(), "load": w.load_label.text(),
        "slider": w.load_slider.value(), "error": w.error_label.isVisible(),
        "captions_enabled": (w.summary_label.isEnabled(), w.breakdown_label.isEnabled()),
    }
    cache = QtWidgets.QGraphicsItem.CacheMode.NoCache
    out["axes_cached"] = [name for card in (tl.background, tl.swimlane, hist.card)
                          for name, axis in card.plot.axes.items() if axis["item"].cacheMode() != cache]
    return out


def assert_same(a, b, path="") -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            assert_same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, (list, tuple)) and not (a and isinstance(a[0], float)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}[{i}]")
    elif isinstance(a, np.ndarray) or isinstance(a, (list, tuple)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=path)
    else:
        assert a == b, path


def test_after_a_drag_the_panel_shows_what_a_fresh_panel_at_that_load_shows(qtbot, engine):
    w = _panel(qtbot, engine)
    live = []
    full = []
    w.live_drawn.connect(live.append)
    w.run_drawn.connect(full.append)
    slider = w.load_slider
    last = slider.maximum() * 3 // 4
    slider.setSliderDown(True)  # a mouse drag: the handle is held
    for v in range(0, last + 1):
        slider.setValue(v)
        if v % 5 == 0:  # let replays come back and be drawn while the handle is held
            seen = len(live)
            qtbot.waitUntil(lambda seen=seen: len(live) > seen, timeout=WAIT_MS)
    # Held: nothing was drawn in full, every figure was drawn live, and the panel is not done.
    assert full == []
    assert {d["figure"] for d in live} == set(LIVE_FIGURES)
    assert not w.is_ready()
    qtbot.waitUntil(lambda: not jobs().busy(w._key) and not w._stale, timeout=WAIT_MS)
    assert not w.is_ready()  # the last run is back but the handle is still held
    with qtbot.waitSignal(w.run_drawn, timeout=WAIT_MS,
                          check_params_cb=lambda d: d["values"]["rate"] == f"{last * RATE_STEP_PER_S:g}"):
        slider.setSliderDown(False)  # released: the full draw
    qtbot.waitUntil(w.is_ready, timeout=WAIT_MS)
    dragged = figures(w)
    assert dragged["axes_cached"] == []
    fresh = _panel(qtbot, engine, rate_step=last)
    assert fresh.run_values == w.run_values
    assert_same(figures(fresh), dragged)
    assert_same({k: v for k, v in fresh.drawn.items() if k != "run"}, {k: v for k, v in w.drawn.items() if k != "run"})
    fresh.close()
    w.close()
    jobs().wait_idle()


def test_a_drag_up_and_back_leaves_nothing_of_the_way_it_went(qtbot, engine):
    """Up to a load whose queue has two-digit ticks (a wider axis) and back to one where it
    has one: what the panel shows after the release depends on where the handle stopped, not
    on where it went (an axis sized to its labels narrows only by more than 10 px)."""
    w = _panel(qtbot, engine)
    live = []
    w.live_drawn.connect(live.append)
    slider = w.load_slider
    top, last = round(slider.maximum() * 0.8), slider.maximum() // 5
    slider.setSliderDown(True)
    for v in [*range(0, top + 1, 4), *range(top, last - 1, -4), last]:
        slider.setValue(v)
        seen = len(live)
        qtbot.waitUntil(lambda seen=seen: len(live) > seen or w.load_slider.value() == 0, timeout=WAIT_MS)
    with qtbot.waitSignal(w.run_drawn, timeout=WAIT_MS,
                          check_params_cb=lambda d: d["values"]["rate"] == f"{last * RATE_STEP_PER_S:g}"):
        slider.setSliderDown(False)
    _shows_what_a_fresh_panel_shows(qtbot, engine, w, last)


def test_a_drag_by_steps_ends_drawn_in_full_without_a_release(qtbot, engine):
    """Keys or a wheel move the slider without holding it: the drag is over when the edits
    stop and the last replay is back."""
    w = _panel(qtbot, engine)
    last = 7
    with qtbot.waitSignal(w.run_drawn, timeout=WAIT_MS,
                          check_params_cb=lambda d: d["values"]["rate"] == f"{last * RATE_STEP_PER_S:g}"):
        for v in range(1, last + 1):
            w.load_slider.setValue(v)
    _shows_what_a_fresh_panel_shows(qtbot, engine, w, last)


def _shows_what_a_fresh_panel_shows(qtbot, engine, w: VoicePanel, rate_step: int) -> None:
    qtbot.waitUntil(w.is_ready, timeout=WAIT_MS)
    fresh = _panel(qtbot, engine, rate_step=rate_step)
    assert_same(figures(fresh), figures(w))
    fresh.close()
    w.close()
    jobs().wait_idle()


def test_live_ranges_change_seldom_and_always_hold_the_data():
    assert live_range((0.0, 100.0), (10.0, 60.0)) is None  # fits, fills half: kept
    lo, hi = live_range((0.0, 100.0), (0.0, 150.0))  # overflows: twice the data's span
    assert (lo, hi) == (0.0, LIVE_GROWTH * 150.0)
    lo, hi = live_range((0.0, 1000.0), (0.0, 1000.0 / LIVE_SHRINK - 1))  # the data fills too little
    assert lo == 0.0 and hi == pytest.approx(LIVE_GROWTH * (1000.0 / LIVE_SHRINK - 1))
    lo, hi = live_range((0.0, 100.0), (-10.0, 90.0), low_pad=0.3)  # a low end that moved down
    assert lo == pytest.approx(-10.0 - 30.0) and hi == pytest.approx(-10.0 + LIVE_GROWTH * 100.0)
    # Any range it sets holds the data, and a range it keeps does too.
    rng = np.random.default_rng(0)
    now = (0.0, 1.0)
    for _ in range(500):
        a = float(rng.uniform(-5, 5))
        need = (a, a + float(rng.uniform(0.01, 50)))
        new = live_range(now, need, low_pad=0.3)
        now = now if new is None else new
        assert now[0] <= need[0] and need[1] <= now[1]
