"""The Serving panel's replicas view: hidden for one engine; with replicas > 1 one small
plot per replica, drawing that replica's own queue and KV series."""
from __future__ import annotations

import numpy as np

from core.serving import figures as F
from core.serving import replay as rp
from widgets.kit.jobs import jobs


def _edit(form, name, text):
    field = form.field(name)
    field.edit.setText(text)
    field.edit.editingFinished.emit()


def test_view_draws_each_replicas_series(qtbot):
    from widgets.serving.replicas_view import MAX_SHOWN, ReplicasView

    view = ReplicasView()
    qtbot.addWidget(view)
    view.show()
    one = F.replay_side(rp.REPLAY.resolve())["figure"]
    view.draw({"A": one, "B": None})
    assert view.isHidden() and view.shown == 0
    three = F.replay_side(rp.REPLAY.resolve({"replicas": "3", "router": "least_kv"}))["figure"]
    view.draw({"A": three, "B": one})
    assert not view.isHidden() and view.shown == 3
    entries = three.result.extras["replicas"]
    for item, entry in zip(view.plots, entries):
        queue, kv = item.listDataItems()
        x, y = queue.getData()
        assert np.array_equal(x, entry["series_t"]) and np.array_equal(y, entry["series_waiting"])
        assert np.allclose(kv.getData()[1], entry["series_kv_blocks"] / entry["num_blocks"] * 100)
    many = F.replay_side(rp.REPLAY.resolve({"replicas": str(MAX_SHOWN + 2)}))["figure"]
    view.draw({"A": many})
    assert view.shown == MAX_SHOWN and "2 more replicas" in view.note.text()


def test_panel_shows_replicas_when_the_form_asks(open_serving_panel, qtbot):
    panel = open_serving_panel(1600, 1000)
    assert panel.replicas_view.isHidden() and panel.replicas_view.shown == 0
    with qtbot.waitSignal(panel.replay_computed, timeout=60_000):
        _edit(panel.replay_form, "replicas", "2")
    qtbot.waitUntil(lambda: panel.replicas_view.shown == 4, timeout=30_000)  # A and B, two each
    assert panel.replicas_view.isVisible()
    assert panel.state.replay("A").result["figure"].result.num_blocks == 2 * rp.config_from(
        panel.state.replay("A").inputs).num_blocks
    jobs().wait_idle()
