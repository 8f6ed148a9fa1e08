"""The Serving panel's prefill/decode pools (issue 15 in the window): a 1P1D run shows both
pools with the numbers `lab simulate serving` prints for the same keys; a bad kv_link shows
its error next to the field; the pools' sums are their instances' series."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore

from core.serving.disagg.report import build
from core.serving.disagg.run import replay_disagg
from core.serving.headless import serving_report
from lab.cli import main
from widgets.kit.jobs import jobs
from widgets.serving.pools_run import counts, inflight, pool_kv
from widgets.serving.pools_view import WAITS, ms_text, steps

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
    # The plots are the run's: the prefill pool's requests in each phase, the decode
    # instance's own KV series, the transfers in flight
    cfg, work, *_ = build(fig.raw)
    run = replay_disagg(work, cfg)
    r, cols = run.result, run.result.extras["request_columns"]
    x, y = view.queue_cards["prefill"].curves["waiting"].getData()
    t = view.figure.pools["prefill"].t
    assert np.array_equal(y, steps(t, counts(r.arrival_s, r.first_schedule_s, t))[1])
    x, y = view.queue_cards["prefill"].curves["running"].getData()
    assert np.array_equal(y, steps(t, counts(r.first_schedule_s, cols["prefill_done_s"], t))[1])
    assert y.max() == 1  # one instance prefills one 8,192-token prompt a step (budget 8,192)
    kv = view.figure.pools["prefill"].kv_percent  # the prompts' blocks while they prefill: the engine's peak
    assert kv.max() == pytest.approx(d["prefill"]["kv_peak_fraction"] * 100, rel=1e-12)
    entry = r.extras["replicas"][1]  # the decode instance
    x, y = view.kv_cards["decode"].curves["kv"].getData()
    kx, ky = steps(entry["series_t"], entry["series_kv_blocks"] / entry["num_blocks"] * 100)
    assert np.array_equal(x, kx) and np.allclose(y, ky)
    x, y = view.inflight_card.curves["inflight"].getData()
    assert np.array_equal(y, steps(*inflight(r.kv_alloc_s, r.kv_ready_s))[1])
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


def test_pool_kv_sums_its_instances_step_by_step():
    a = {"series_t": np.array([0.0, 2.0]), "series_kv_blocks": np.array([10, 20]), "num_blocks": 100}
    b = {"series_t": np.array([1.0, 3.0]), "series_kv_blocks": np.array([30, 0]), "num_blocks": 100}
    t, kv, n = pool_kv([a, b])
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0] and n == 2
    assert kv == pytest.approx([5.0, 20.0, 25.0, 10.0])  # of the pool's 200 blocks; b is 0 before its first sample


def test_inflight_counts_started_and_not_landed():
    t, n = inflight(np.array([1.0, 2.0, np.nan]), np.array([3.0, 2.5, np.nan]))
    assert t.tolist() == [0.0, 1.0, 2.0, 2.5, 3.0] and n.tolist() == [0, 1, 2, 1, 0]
    assert counts(np.array([0.0, 0.0]), np.array([1.0, 0.0]), np.array([0.0, 0.5, 1.0])).tolist() == [1, 1, 0]
    # weighted: 3 blocks over [0, 2), 5 over [1, 3)
    assert counts(np.array([0.0, 1.0]), np.array([2.0, 3.0]), np.array([0.0, 1.0, 2.0, 3.0]),
                  np.array([3, 5])).tolist() == [3, 8, 5, 0]
    x, y = steps(np.array([0.0, 1.0, 3.0]), np.array([2.0, 5.0, 0.0]))
    assert x.tolist() == [0, 1, 1, 3, 3] and y.tolist() == [2, 2, 5, 5, 0]


def test_the_drawn_pools_read_in_either_language(open_serving_panel, qtbot):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_i18n import shown_texts  # the language test's own walk (markup and <code> removed)

    from widgets.kit.i18n import english_words, has_cjk, set_language

    panel = _small_panel(open_serving_panel, qtbot)
    section = panel.pools_section
    with qtbot.waitSignal(section.drawn, timeout=60_000):
        section.form.set_values("2P2D", "pcie", "layerwise")
    both = shown_texts(section.view) + shown_texts(section.form)
    try:
        set_language("en")
        left = [t for t in shown_texts(section.view) + shown_texts(section.form) if has_cjk(t)]
        assert not left, left
        set_language("zh")
        left = [(t, english_words(t)) for t in shown_texts(section.view) + shown_texts(section.form)
                if english_words(t)]
        assert not left, left
    finally:
        set_language("both")
    assert shown_texts(section.view) + shown_texts(section.form) == both
    jobs().wait_idle()


def test_a_loaded_trace_runs_through_the_pools(open_serving_panel, qtbot, capsys):
    trace = Path(__file__).resolve().parents[1] / "data" / "traces" / "serving_azure_code_200.csv"
    panel = open_serving_panel(1280, 720)
    panel.trace_section.open_path(str(trace))
    qtbot.waitUntil(lambda: panel.state.trace_loaded is not None and panel.is_ready() and not jobs().busy_keys(),
                    timeout=60_000)
    section = panel.pools_section
    with qtbot.waitSignal(section.drawn, timeout=60_000) as got:
        section.form.set_values("1P2D", "rdma-200g")
    fig = got.args[0]
    assert fig.raw["trace"] == str(trace) and fig.report["source"] == f"trace {trace}"
    capsys.readouterr()
    assert main(["simulate", "serving", *(f"{k}={v}" for k, v in fig.raw.items()), "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert fig.block == cli["disaggregation"] and cli["requests"] == 200
    jobs().wait_idle()


def test_the_gui_answers_while_the_pools_run(open_serving_panel, qtbot):
    """The book's 480 requests on 2P4D: the P/D run is on the job runner, the GUI thread
    keeps running its timer meanwhile."""
    panel = open_serving_panel(1280, 720)
    section = panel.pools_section
    ticks = []  # whether the P/D job was busy, at each tick of a 5 ms GUI timer
    timer = QtCore.QTimer()
    timer.timeout.connect(lambda: ticks.append(jobs().busy(section.key)))
    timer.start(5)
    with qtbot.waitSignal(section.drawn, timeout=60_000) as got:
        section.form.set_values("2P4D")
    timer.stop()
    assert got.args[0].block["prefill"]["requests"] == 480
    assert any(ticks)
    jobs().wait_idle()


def test_the_deployment_and_the_card_go_to_both_pools(open_serving_panel, qtbot):
    panel = _small_panel(open_serving_panel, qtbot)
    hardware = panel.model_section.hardware_field.edit
    hardware.setCurrentText("h100-sxm")
    hardware.lineEdit().editingFinished.emit()
    qtbot.waitUntil(lambda: panel.is_ready() and not jobs().busy_keys(), timeout=60_000)
    tp = panel.deployment_section.field("tp").edit
    tp.setText("2")
    tp.editingFinished.emit()
    qtbot.waitUntil(lambda: panel.is_ready() and not jobs().busy_keys(), timeout=60_000)
    section = panel.pools_section
    with qtbot.waitSignal(section.drawn, timeout=60_000) as got:
        section.form.set_values("2P1D", "nvlink")
    fig = got.args[0]
    assert {k: fig.raw[k] for k in ("model", "hardware", "tp", "pools", "kv_link")} == {
        "model": "qwen3-8b", "hardware": "h100-sxm", "tp": "2", "pools": "2P1D", "kv_link": "nvlink"}
    report, _ = serving_report(dict(fig.raw))
    assert fig.block == report["disaggregation"]
    d = fig.block
    assert d["prefill"]["cards_per_instance"] == d["decode"]["cards_per_instance"] == 2 and d["cards"] == 6
    # Qwen3-8B's 8 KV heads over 2 ranks: each card's link carries half the prompt's KV
    assert d["transfer"]["kv_bytes_per_token_per_card"] == d["transfer"]["kv_bytes_per_token"] / 2
    jobs().wait_idle()
