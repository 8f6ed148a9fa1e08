"""The Serving panel's prefill/decode pools (issue 15 in the window): a 1P1D run shows both
pools with the numbers `lab simulate serving` prints for the same keys; a bad kv_link shows
its error next to the field; the pools' sums are their instances' series."""
from __future__ import annotations

import json

import numpy as np
import pytest

from core.serving.disagg.report import build
from core.serving.disagg.run import replay_disagg
from lab.cli import main
from widgets.kit.jobs import jobs
from widgets.serving.pools_run import inflight, pool_series
from widgets.serving.pools_view import WAITS, ms_text

# Replay A with a shorter workload (a P/D run of the book's 480 requests takes seconds).
SMALL = {"durations_s": "20,20", "rates_per_s": "2,2"}


def _edit(form, name, text):
    field = form.field(name)
    field.edit.setText(text)
    field.edit.editingFinished.emit()


def _small_panel(open_serving_panel, qtbot):
    panel = open_serving_panel(1280, 720)
    with qtbot.waitSignal(panel.replay_computed, timeout=60_000):
        panel.state.replay("A").update({"durations_s": (20.0, 20.0), "rates_per_s": (2.0, 2.0)})
    return panel


def test_1p1d_shows_both_pools_with_the_clis_numbers(open_serving_panel, qtbot, capsys):
    panel = _small_panel(open_serving_panel, qtbot)
    section = panel.pools_section
    assert section.view.isHidden()
    with qtbot.waitSignal(section.drawn, timeout=60_000) as got:
        section.form.set_values("1P1D", "rdma-400g")
    fig = got.args[0]
    assert fig.raw == {**SMALL, "pools": "1P1D", "kv_link": "rdma-400g"}  # replay A's keys off their defaults
    assert section.view.isVisible()
    capsys.readouterr()
    assert main(["simulate", "serving", *(f"{k}={v}" for k, v in fig.raw.items()), "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    d, shown = cli["disaggregation"], fig.block
    assert shown == d  # the whole P/D block, bit for bit
    assert d["prefill"]["requests"] == d["decode"]["requests"] == 80
    view = section.view
    for side in ("prefill", "decode"):
        line = view.lines[side].text()
        assert f"{d[side]['requests']:,} requests" in line and f"{d[side]['engine_steps']:,} steps" in line
    assert ms_text(d["prefill"]["ttft_ms"]["p50"]) in view.lines["prefill"].text()
    assert ms_text(d["decode"]["tpot_from_landing_ms"]["p95"]) in view.lines["decode"].text()
    for key, _label in WAITS:
        p50, p95 = view.wait_cells[key]
        assert (p50.text(), p95.text()) == (ms_text(d["waits"][key]["p50"]), ms_text(d["waits"][key]["p95"]))
    assert f"{d['transfer']['bytes_total'] / 1e9:,.3f} GB" in view.transfer_label.text()
    assert view.command.text() == "<code>lab simulate serving durations_s=20,20 rates_per_s=2,2 pools=1P1D " \
                                  "kv_link=rdma-400g</code>"
    # The plots are the run's series: the prefill pool's one instance, as the engine gave it
    cfg, work, *_ = build(fig.raw)
    run = replay_disagg(work, cfg)
    entry = run.result.extras["replicas"][0]
    x, y = view.queue_cards["prefill"].curves["waiting"].getData()
    assert np.array_equal(x, entry["series_t"]) and np.array_equal(y, entry["series_waiting"])
    x, y = view.inflight_card.curves["inflight"].getData()
    assert np.array_equal(y, inflight(run.result.kv_alloc_s, run.result.kv_ready_s)[1])
    # Back to one pool: the view goes away
    section.form.set_values("")
    assert view.isHidden() and not section.raw
    jobs().wait_idle()


def test_a_bad_kv_link_shows_next_to_the_field(open_serving_panel, qtbot):
    panel = _small_panel(open_serving_panel, qtbot)
    section = panel.pools_section
    with qtbot.waitSignal(section.refused, timeout=60_000) as got:
        section.form.set_values("1P1D", "warp-9")
    assert got.args[0] == "kv_link"
    error = section.form.fields["kv_link"].error
    assert error.isVisible() and error.text().startswith("got 'warp-9'; valid: one of nvlink")
    assert section.form.fields["pools"].error.isHidden() and section.view.isHidden()
    with qtbot.waitSignal(section.refused, timeout=60_000) as got:
        section.form.set_values("1Q1D")
    assert got.args[0] == "pools" and section.form.fields["pools"].error.text().startswith("got '1Q1D'")
    assert section.form.fields["kv_link"].error.isHidden()
    with qtbot.waitSignal(section.drawn, timeout=60_000):  # fixed: the error goes, the pools show
        section.form.set_values("1P2D", "25")
    assert section.form.fields["kv_link"].error.isHidden() and section.view.isVisible()
    jobs().wait_idle()


def test_pool_series_sums_its_instances_step_by_step():
    a = {"series_t": np.array([0.0, 2.0]), "series_waiting": np.array([3, 1]), "series_running": np.array([1, 2]),
         "series_kv_blocks": np.array([10, 20]), "num_blocks": 100}
    b = {"series_t": np.array([1.0, 3.0]), "series_waiting": np.array([5, 0]), "series_running": np.array([4, 0]),
         "series_kv_blocks": np.array([30, 0]), "num_blocks": 100}
    s = pool_series([a, b])
    assert s.t.tolist() == [0.0, 1.0, 2.0, 3.0] and s.instances == 2
    assert s.waiting.tolist() == [3, 8, 6, 1]  # b is 0 before its first sample
    assert s.running.tolist() == [1, 5, 6, 2]
    assert s.kv_percent == pytest.approx([5.0, 20.0, 25.0, 10.0])  # of the pool's 200 blocks


def test_inflight_counts_started_and_not_landed():
    t, n = inflight(np.array([1.0, 2.0, np.nan]), np.array([3.0, 2.5, np.nan]))
    assert t.tolist() == [0.0, 1.0, 2.0, 2.5, 3.0] and n.tolist() == [0, 1, 2, 1, 0]
