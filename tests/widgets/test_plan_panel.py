"""The Plan panel: a sweep's rows stream into the table and the plots as they finish (the
real core.sweep.run_sweep, in-process and on a local pool of one worker), the Pareto plot
holds exactly the front of the rows, cancel stops the sweep and leaves the GUI working,
bad input shows under its field and the engine is kept in the settings (a point opened in
Serving: test_plan_open_point.py)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lab"))  # the Ray head fixture lives there
from ray_fixtures import ray_cluster  # noqa: F401 (a fixture)

from tests.widgets.plan_testkit import MemorySettings, close_points, run_sweep
from widgets.kit.jobs import jobs
from widgets.plan import PlanPanel
from widgets.plan import figures as F
from widgets.plan.form import SETTING_ADDRESS, SETTING_ENGINE, SETTING_WORKERS


def test_a_small_sweep_streams_its_rows_into_the_table_and_plots(qtbot, panel):
    p = panel()
    arrived = []
    p.runner.row_arrived.connect(lambda row: arrived.append(p.table.rows_model.rowCount()))
    summary = run_sweep(qtbot, p)
    # Row by row: the table had grown by one each time a row arrived.
    assert arrived == [1, 2, 3, 4]
    assert {k: summary["points"][k] for k in ("total", "done", "reused", "left")} == \
        {"total": 4, "done": 4, "reused": 0, "left": 0}
    model = p.table.rows_model
    assert model.headers()[:3] == ["max_num_seqs", "token_budget", "seed"]
    got = {(model.cell(r, 0), model.cell(r, 1)) for r in range(model.rowCount())}
    assert got == {("32", "2048"), ("32", "8192"), ("64", "2048"), ("64", "8192")}
    for r, row in enumerate(model.rows):
        assert model.cell(r, 3) == F.cell_text(row["p99_ttft_ms"] / 1000)
    # Every row with a cost is a dot at (cost, p99 TTFT in s).
    xs, ys = p.plots.points.getData()
    rows = p.rows()
    assert close_points(zip(xs, 10 ** ys), [(r["cost_per_million_output_tokens"], r["p99_ttft_ms"] / 1000) for r in rows])
    assert p.form.run_button.isEnabled() and not p.form.cancel_button.isEnabled()
    assert p.form.progress.value() == p.form.progress.maximum() == 4
    assert p.table.isColumnHidden(model.headers().index("max req/s"))  # no search: no room for its column

@pytest.fixture
def panel(plan_panel):
    return plan_panel


def test_the_pareto_plot_holds_exactly_the_rows_front(qtbot, panel):
    p = panel()
    run_sweep(qtbot, p)
    rows = p.rows()
    pts = [(r["cost_per_million_output_tokens"], r["p99_ttft_ms"]) for r in rows]
    # Brute force: a point is on the front when no other is at least as good on both and better on one.
    expected = sorted(a for a in pts if not any(b != a and b[0] <= a[0] and b[1] <= a[1] for b in pts))
    xs, ys = p.plots.front_points.getData()
    assert close_points(zip(xs, 10 ** ys * 1000), expected)
    line_x, _ = p.plots.front_line.getData()
    assert list(line_x) == sorted(line_x)  # the front is drawn left to right
    # Each front point is labelled with its knobs' values (no two labels on top of each other).
    labels = [item.textItem.toPlainText() for item in p.plots.front_labels if item.isVisible()]
    by_key = {F.point_key(r): f"{r['param.max_num_seqs']} / {r['param.token_budget']}" for r in rows}
    assert labels and set(labels) <= {by_key[k] for k in p.plots.pareto["front_keys"]}
    front_keys = set(p.plots.pareto["front_keys"])
    bold = {F.point_key(r) for r in p.table.rows_model.rows if F.point_key(r) in p.table.rows_model.front}
    assert bold == front_keys and front_keys


def test_a_local_pool_of_one_worker_gives_the_same_rows(qtbot, panel):
    p = panel({"token_budget": ""})
    p.form.engine_box.setCurrentIndex(p.form.engine_box.findData("local"))
    p.form.workers_box.setValue(1)
    run_sweep(qtbot, p, engine="local", timeout=120_000)
    pool_rows = {r["point"]: r for r in p.rows()}
    run_sweep(qtbot, p, engine="inprocess")
    here = {r["point"]: r for r in p.rows()}
    assert set(pool_rows) == set(here) and len(here) == 2
    for key, row in here.items():
        other = pool_rows[key]
        assert {k: v for k, v in row.items() if k != "wall_s"} == {k: v for k, v in other.items() if k != "wall_s"}


def test_cancel_stops_the_sweep_and_the_gui_keeps_working(qtbot, panel, monkeypatch):
    import threading

    from core.sweep.serving import SERVING

    # After its first two points the sweep waits for the test (a point of the book's replay
    # takes a few ms: 128 of them could all be done before the click, and nothing to cancel).
    hold, real = threading.Event(), SERVING.evaluate
    evaluated = []

    def held(shared, payload):
        if len(evaluated) >= 2:
            hold.wait(60)
        evaluated.append(1)
        return real(shared, payload)

    monkeypatch.setattr(SERVING, "evaluate", held)
    p = panel({"max_num_seqs": "16:256:16", "token_budget": "2048,8192", "seeds": "0-3"})  # 128 points
    ticks = []
    timer = QtCore.QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start()
    try:
        with qtbot.waitSignal(p.runner.row_arrived, timeout=60_000):
            p.run("inprocess")
        assert p.form.cancel_button.isEnabled() and not p.form.run_button.isEnabled()
        before = len(ticks)
        qtbot.waitUntil(lambda: len(ticks) > before + 3, timeout=10_000)  # the event loop runs during the sweep
        with qtbot.waitSignal(p.runner.cancelled, timeout=5_000):
            qtbot.mouseClick(p.form.cancel_button, QtCore.Qt.MouseButton.LeftButton)
    finally:
        hold.set()  # the point in flight ends; its row is dropped
    kept = p.table.rows_model.rowCount()
    assert 1 <= kept < 128
    assert not p.runner.running and p.form.run_button.isEnabled()
    assert "cancelled" in p.form.status.text()
    jobs().wait_idle()
    QtWidgets.QApplication.processEvents()
    assert p.table.rows_model.rowCount() == kept  # no row in flight reached the table after the cancel
    timer.stop()
    # And the panel runs again.
    p.form.set_values({"max_num_seqs": "32,64", "token_budget": "", "seeds": ""})
    run_sweep(qtbot, p)
    assert p.table.rows_model.rowCount() == 2


@pytest.mark.parametrize("field,text,words", [
    ("max_num_seqs", "8:64:0", "step"),
    ("seeds", "7-0", "7-0"),
    ("max_num_seqs", "", None),  # (no error: an empty knob is left out)
    ("token_budget", "0,8192", "token_budget"),
])
def test_bad_input_shows_under_its_field(qtbot, panel, field, text, words):
    p = panel({field: text})
    if words is None:
        run_sweep(qtbot, p)
        assert not any(f.error_label.text() for f in p.form.fields.values())
        return
    with qtbot.waitSignal(p.runner.failed, timeout=30_000):
        p.run("inprocess")
    label = p.form.fields[field].error_label
    assert label.isVisible() and label.text()
    assert words in label.text() or "valid" in label.text()
    assert p.form.fields[field].edit.property("invalid") == "true"
    assert p.table.rows_model.rowCount() == 0 and p.form.run_button.isEnabled()
    p.form.fields[field].edit.setText("")
    qtbot.keyClicks(p.form.fields[field].edit, "64")  # an edit clears the message
    assert not label.isVisible()


def test_an_unknown_key_among_the_other_pairs_names_it(qtbot, panel):
    p = panel({"other": "no_such_key=3"})
    with qtbot.waitSignal(p.runner.failed, timeout=30_000):
        p.run("inprocess")
    text = p.form.fields["other"].error_label.text()
    assert "no_such_key" in text and "max_num_seqs" in text  # names the valid keys
    assert not p.form.fields["other"].edit.text() == ""


def test_the_engine_and_cluster_address_are_kept_in_settings(qtbot, panel):
    settings = MemorySettings()
    p = panel(settings=settings)
    form = p.form
    form.engine_box.setCurrentIndex(form.engine_box.findData("ray"))
    assert form.fields["--address"].isVisible() and not form.workers_box.isVisible()
    form.fields["--address"].edit.setText("10.0.0.5:6379")
    form.fields["--address"].edit.editingFinished.emit()
    form.engine_box.setCurrentIndex(form.engine_box.findData("local"))
    form.workers_box.setValue(3)
    form.engine_box.setCurrentIndex(form.engine_box.findData("ray"))
    assert settings.values == {SETTING_ENGINE: "ray", SETTING_WORKERS: 3, SETTING_ADDRESS: "10.0.0.5:6379"}
    again = panel(settings=settings).form
    assert again.engine() == "ray" and again.workers() == 3 and again.address() == "10.0.0.5:6379"


def test_pareto_figure_leaves_out_rows_without_a_cost():
    rows = [{"point": "a", "cost_per_million_output_tokens": 1.0, "p99_ttft_ms": 3000.0},
            {"point": "b", "cost_per_million_output_tokens": 2.0, "p99_ttft_ms": 1000.0},
            {"point": "c", "cost_per_million_output_tokens": 2.5, "p99_ttft_ms": 2000.0},
            {"point": "d", "cost_per_million_output_tokens": None, "p99_ttft_ms": 10.0},
            {"point": "e", "cost_per_million_output_tokens": 0.5, "p99_ttft_ms": float("nan")}]
    for r, knobs in zip(rows, [(4, 64), (8, 64), (8, 128), (1, 1), (1, 1)]):
        r.update({"param.replicas": knobs[0], "param.max_num_seqs": knobs[1]})
    fig = F.pareto_figure(rows, ["replicas", "max_num_seqs"])
    assert fig["keys"] == ["a", "b", "c"] and fig["front_labels"] == ["4 / 64", "8 / 64"]
    assert fig["front_keys"] == ["a", "b"] and fig["front_y"] == [3.0, 1.0]


def test_capacity_figure_takes_the_best_setting_per_replica_count():
    rows = [{"point": str(i), "param.replicas": n, "search.max_rate_per_s": rate}
            for i, (n, rate) in enumerate([(1, 1.3), (1, 1.1), (2, 2.3), (4, 4.7), (4, None)])]
    fig = F.capacity_figure(rows)
    assert fig["x"] == [1, 1, 2, 4] and fig["best_x"] == [1, 2, 4] and fig["best_y"] == [1.3, 2.3, 4.7]


def test_the_panel_opens_on_a_first_sweep(qtbot):
    p = PlanPanel()
    qtbot.addWidget(p)
    p.form.set_values({"replicas": "", "max_num_seqs": "32,64", "seeds": "", "other": ""})
    p.resize(1280, 720)
    assert not p.is_ready()
    p.show()
    qtbot.waitUntil(p.is_ready, timeout=60_000)
    assert p.table.rows_model.rowCount() == 2 and p.summary is not None
    if p.summary["cheapest_meeting_slo"] is not None:
        assert "cheapest meeting the SLOs" in p.summary_label.text() and "max_num_seqs=" in p.setting_label.text()
    else:
        assert "no setting meets the SLOs" in p.summary_label.text() and not p.setting_label.text()
    assert p.summary_label.toolTip() == p.summary["cheapest_note"]
    p.close()
    jobs().wait_idle()


def test_an_unreachable_cluster_address_is_refused_under_its_field(qtbot, panel):
    pytest.importorskip("ray", reason="ray is not installed (pip install '.[cluster]')")
    pytest.importorskip("core.sweep.ray_executor", reason="the Ray executor is not in this tree")
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = panel({"token_budget": ""})
    p.form.engine_box.setCurrentIndex(p.form.engine_box.findData("ray"))
    p.form.fields["--address"].edit.setText(f"127.0.0.1:{port}")
    with qtbot.waitSignal(p.runner.failed, timeout=15_000):  # the probe answers within 10 s
        p.run()
    label = p.form.fields["--address"].error_label
    assert label.isVisible() and f"127.0.0.1:{port}" in label.text()
    assert p.form.run_button.isEnabled() and p.table.rows_model.rowCount() == 0


def test_a_results_folder_is_written_resumed_and_kept_for_its_own_sweep(qtbot, panel, tmp_path):
    folder = tmp_path / "sweep"
    p = panel({"token_budget": "", "--out": str(folder)})
    first = run_sweep(qtbot, p)
    assert first["points"]["reused"] == 0 and (folder / "results.csv").exists() and (folder / "summary.json").exists()
    # One more value: the two finished points are reused (they stream in first), one is new.
    p.form.set_values({"max_num_seqs": "32,64,96"})
    again = run_sweep(qtbot, p)
    assert again["points"]["reused"] == 2 and again["points"]["done"] == 3
    assert p.table.rows_model.rowCount() == 3 and "2 reused" in p.form.status.text()
    # Another sweep (other fixed keys) is refused in that folder, under its field, unless --force.
    p.form.set_values({"scenario": "shift"})
    with qtbot.waitSignal(p.runner.failed, timeout=30_000):
        p.run("inprocess")
    assert "another sweep" in p.form.fields["--out"].error_label.text()
    p.form.force_box.setChecked(True)
    run_sweep(qtbot, p)


def test_on_a_ray_cluster_the_rows_equal_the_in_process_ones(qtbot, panel, ray_cluster):
    """The engine choice reaches the cluster: a real local head (tests/lab/ray_fixtures.py)."""
    address = ray_cluster
    p = panel({"token_budget": "", "--address": address})
    p.form.engine_box.setCurrentIndex(p.form.engine_box.findData("ray"))
    run_sweep(qtbot, p, engine="ray", timeout=240_000)
    on_ray = {r["point"]: r for r in p.rows()}
    run_sweep(qtbot, p, engine="inprocess")
    here = {r["point"]: r for r in p.rows()}
    assert set(on_ray) == set(here) and len(here) == 2
    for key, row in here.items():
        assert {k: v for k, v in row.items() if k != "wall_s"} == {k: v for k, v in on_ray[key].items() if k != "wall_s"}


def test_a_capacity_search_draws_capacity_against_replicas(qtbot, panel):
    p = panel({"replicas": "1,2", "max_num_seqs": "", "token_budget": "", "search": "max_rate"})
    assert p.form.search_box.isChecked()
    run_sweep(qtbot, p, timeout=120_000)
    rows = p.rows()
    assert len(rows) == 2 and all(r["search.max_rate_per_s"] > 0 for r in rows)
    xs, ys = p.plots.capacity_points.getData()
    assert sorted(zip(xs, ys)) == sorted((r["param.replicas"], r["search.max_rate_per_s"]) for r in rows)
    line_x, line_y = p.plots.capacity_line.getData()
    assert list(line_x) == [1, 2] and line_y[1] > line_y[0]  # two replicas carry more
    assert not p.plots.capacity_text.isVisible()
    model = p.table.rows_model
    column = model.headers().index("max req/s")
    assert not p.table.isColumnHidden(column)
    assert [model.cell(r, column) for r in range(2)] == [F.cell_text(r["search.max_rate_per_s"]) for r in rows]


def test_the_sweep_is_the_panels_state(qtbot, panel):
    from core.rl.plan_state import PlanState

    p = panel()
    state = p.state
    assert isinstance(state, PlanState) and state.view("max_num_seqs") == "32,64"  # SMALL, typed in
    qtbot.keyClicks(p.form.fields["seeds"].edit, "0-3")
    assert state.view("seeds") == "0-3"
    p.form.search_box.setChecked(True)
    assert state.view("search") is True
    saved = state.to_json()
    fresh = PlanState()  # a session opened: the fields show its sweep
    fresh.load_json(saved)
    state.reset()
    assert p.form.fields["max_num_seqs"].edit.text() == PlanState.VIEW["max_num_seqs"]
    assert not p.form.search_box.isChecked()
    state.load_json(saved)
    assert p.form.fields["seeds"].edit.text() == "0-3" and p.form.search_box.isChecked()
    assert p.form.raw()["seeds"] == "0-3" and p.form.raw()["search"] == "max_rate"
