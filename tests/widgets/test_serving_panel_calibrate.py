"""Calibrate in the Serving panel: a measured run (here a replay written as a vllm bench
result) fitted by core.calibrate on the job runner, with progress and ✕; the result is the
one core.calibrate gives for the same keys, drawn (measured, before, after), tabled, and
saved as a profile whole or not at all; a saved profile sets the pickers' card and the
replays' coefficients, replaying as `lab simulate serving profile=` does. Bad input, a
fit that does not converge and a failed save are said next to their control."""
import json
import os
import threading

import pytest

from core.calibrate import fit
from core.calibrate.profile import load_profile
from core.calibrate.synthetic import bench_result
from core.serving.headless import serving_report
from widgets.kit.jobs import jobs
from widgets.serving.calibrate import CANCELLED
from widgets.serving.calibrate_glue import calibration_keys
from widgets.serving.calibrate_rows import coefficient_rows

HARDWARE = "h100-sxm"
COMPARED = ("ttft_p95_s", "request_p95_s", "last_completion_s", "preemptions", "engine_steps", "kv_pool_blocks")


def ready(panel) -> bool:
    return panel.is_ready() and not jobs().busy_keys()


@pytest.fixture(scope="module")
def measured_run(tmp_path_factory):
    """60 requests replayed with a slower step than the default, written as vllm bench
    writes a result (per-request ttfts, itls, start times)."""
    raw = {"model": "qwen3-8b", "hardware": HARDWARE, "dataset": "random", "num_prompts": "60",
           "random_input_len": "512", "random_output_len": "64", "random_range_ratio": "0.5", "request_rate": "20",
           "coef_step_s": "0.0018"}
    _, (result, work) = serving_report(raw)
    path = tmp_path_factory.mktemp("runs") / "measured.json"
    path.write_text(json.dumps(bench_result(result, work, model_id="qwen3-8b", request_rate=20, start_times=True)))
    return str(path)


@pytest.fixture
def panel(open_serving_panel, qtbot):
    w = open_serving_panel(1280, 720)
    field = w.model_section.hardware_field
    field.edit.setCurrentText(HARDWARE)
    field.edit.lineEdit().editingFinished.emit()
    qtbot.waitUntil(lambda: ready(w), timeout=60_000)
    return w


def calibrated(panel, qtbot, paths):
    section = panel.calibrate_section
    section.set_runs(paths)
    values = []
    section.progress_bar.valueChanged.connect(values.append)
    with qtbot.waitSignal(section.finished, timeout=120_000) as blocker:
        section.calibrate_button.click()
        assert section.is_running() and section.progress_row.isVisibleTo(panel)
    return blocker.args[0], values


def test_calibrate_shows_what_core_calibrate_gives(panel, qtbot, measured_run):
    section = panel.calibrate_section
    assert not section.view.isVisible() and not section.save_button.isEnabled()
    outcome, progress = calibrated(panel, qtbot, [measured_run])
    assert outcome is not None and max(progress) > 0  # progress came from the worker
    assert calibration_keys(panel) == {"model": "qwen3-8b", "hardware": HARDWARE}
    direct = fit.calibrate([measured_run], calibration_keys(panel))
    cal = outcome.calibration
    assert cal.converged and cal.coefficients == direct.coefficients and cal.bands == direct.bands
    # The table: each fitted key with its default, fitted value and band.
    rows = coefficient_rows(cal.defaults, {k: cal.coefficients[k] for k in cal.fit_keys}, cal.bands)
    table = section.view.coefs
    assert table.rowCount() == len(rows) == len(cal.fit_keys) > 0
    for r, (name, cells) in enumerate(rows):
        assert table.verticalHeaderItem(r).text() == name
        assert [table.item(r, c).text() for c in range(4)] == list(cells)
    assert section.view.metrics.rowCount() == 6
    # The keys the fit left at their defaults are named under the table (why: its tooltip).
    assert all(k in section.view.frozen.text() and k in section.view.frozen.toolTip() for k in cal.frozen)
    assert bool(section.view.frozen.text()) == bool(cal.frozen)
    assert section.view.metrics.item(0, 0).text() == f"{cal.per_run[0]['before']['median_ttft_ms']['measured']:,.1f}"
    # Measured, before and after on each plot; every request's TTFT counted.
    for card in section.view.cards.values():
        assert card.isVisibleTo(panel)
        assert all(len(curve.getData()[0]) > 1 for curve in card.curves.values())
    assert outcome.figure.ttft["measured"].n == 60
    assert section.use_button.isEnabled() and section.save_button.isEnabled()
    assert not section.message.isVisible()


def test_save_writes_the_profile_and_a_failed_save_is_said_beside_the_button(panel, qtbot, measured_run, tmp_path):
    section = panel.calibrate_section
    outcome, _ = calibrated(panel, qtbot, [measured_run])
    path = tmp_path / "p.toml"
    assert section.save(str(path))
    assert load_profile(path).coefficients == outcome.calibration.coefficients
    bad = tmp_path / "missing" / "p.toml"
    assert not section.save(str(bad))
    assert section.profile_message.isVisibleTo(panel) and "could not save" in section.profile_message.text()
    assert not bad.exists() and not bad.parent.exists()
    assert panel.isVisible() and ready(panel)  # the app keeps running


def test_a_loaded_profile_replays_as_the_cli_s_profile_key(panel, qtbot, measured_run, tmp_path):
    section = panel.calibrate_section
    calibrated(panel, qtbot, [measured_run])
    path = tmp_path / "p.toml"
    assert section.save(str(path))
    panel.model_section.hardware_field.edit.setCurrentText("a100-80gb")  # elsewhere first
    panel.model_section.hardware_field.edit.lineEdit().editingFinished.emit()
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    assert section.load(str(path))
    assert panel.state.card("model_choice").inputs["hardware"] == HARDWARE
    assert panel.deployed.active
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    report, _ = serving_report({"profile": str(path)})
    assert {k: panel.state.replay("A").result[k] for k in COMPARED} == {k: report[k] for k in COMPARED}


def test_cancel_stops_the_worker_and_keeps_the_coefficients(panel, qtbot, monkeypatch, measured_run):
    started, saw_cancel = threading.Event(), threading.Event()

    def slow(paths, raw, *, progress=None, cancel=None, **_):
        started.set()
        while not cancel():
            progress(0.1, "fitting")
            saw_cancel.wait(0.01)  # a worker's poll, not the test's wait
        saw_cancel.set()
        raise fit.ParamError("cancel", "stopped")

    monkeypatch.setattr(fit, "calibrate", slow)
    section = panel.calibrate_section
    section.set_runs([measured_run])
    section.calibrate_button.click()
    qtbot.waitUntil(started.is_set, timeout=10_000)
    with qtbot.waitSignal(section.finished, timeout=10_000) as blocker:
        section.cancel_button.click()
    assert blocker.args == [None]
    qtbot.waitUntil(saw_cancel.is_set, timeout=10_000)
    qtbot.waitUntil(lambda: not jobs().busy(section.key), timeout=10_000)
    assert section.message.text() == CANCELLED and section.calibrate_button.isEnabled()
    assert not panel.deployed.active


def test_a_result_that_is_not_vllm_bench_s_is_refused_by_name(panel, qtbot, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"model_id": "x", "ttfts": [0.1]}))
    outcome, _ = calibrated(panel, qtbot, [str(bad)])
    section = panel.calibrate_section
    assert outcome is None and section.message.isVisibleTo(panel)
    text = section.message.text()
    assert any(key in text for key in ("input_lens", "output_lens", "itls")), text
    assert not section.save_button.isEnabled() and section.calibrate_button.isEnabled()


def test_a_fit_that_does_not_converge_says_so_and_saves_nothing(panel, qtbot, monkeypatch, measured_run):
    real = fit.calibrate

    def unconverged(paths, raw, **kw):
        cal = real(paths, raw, bootstrap=0, progress=kw.get("progress"), cancel=kw.get("cancel"))
        cal.converged, cal.message = False, "did not converge (test); kept the defaults"
        cal.coefficients = dict(cal.defaults)
        return cal

    monkeypatch.setattr(fit, "calibrate", unconverged)
    outcome, _ = calibrated(panel, qtbot, [measured_run])
    section = panel.calibrate_section
    assert outcome is not None and "did not converge" in section.message.text()
    assert section.message.isVisibleTo(panel)
    assert not section.save_button.isEnabled() and not section.use_button.isEnabled()


def test_a_measured_trace_is_offered_as_the_run(panel, qtbot, measured_run):
    panel.trace_section.open_path(measured_run)
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    assert panel.calibrate_section.paths == [measured_run]
    assert "measured.json" in panel.calibrate_section.runs_label.text()
    panel.trace_section.clear()  # back to the book's windows: no run to offer
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    assert panel.calibrate_section.paths == [] and not panel.calibrate_section.calibrate_button.isEnabled()


def test_runs_opened_by_hand_stay_when_a_trace_opens(panel, qtbot, measured_run, tmp_path):
    mine = str(tmp_path / "mine.json")
    panel.calibrate_section.set_runs([mine])
    panel.trace_section.open_path(measured_run)
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    assert panel.calibrate_section.paths == [mine]


def test_use_in_replays_replays_with_the_fitted_coefficients(panel, qtbot, measured_run):
    outcome, _ = calibrated(panel, qtbot, [measured_run])
    section = panel.calibrate_section
    with qtbot.waitSignal(section.applied, timeout=10_000):
        section.use_button.click()
    cal = outcome.calibration
    assert panel.deployment_section.coefficients == cal.coefficients
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    raw = {"model": "qwen3-8b", "hardware": HARDWARE, **{k: repr(v) for k, v in cal.coefficients.items()}}
    report, _ = serving_report(raw)
    assert {k: panel.state.replay("A").result[k] for k in COMPARED} == {k: report[k] for k in COMPARED}


def test_the_calibration_reads_in_each_language(panel, qtbot, measured_run):
    from tests.widgets.test_i18n import shown_texts
    from widgets.kit.i18n import english_words, has_cjk, set_language

    calibrated(panel, qtbot, [measured_run])
    sections = (panel.calibrate_section, panel.deployment_section)
    try:
        set_language("en")
        left = [t for s in sections for t in shown_texts(s) if has_cjk(t)]
        assert not left, left
        set_language("zh")
        left = [t for s in sections for t in shown_texts(s) if english_words(t)]
        assert not left, left
    finally:
        set_language("both")


CPU_RUNS = os.path.join(os.path.dirname(__file__), "..", "data", "vllm_cpu")
CPU_CARD = "core/data/hardware/cpu-2core.toml"


@pytest.mark.skipif(not os.path.isfile(os.path.join(CPU_RUNS, "low.json")),
                    reason="the recorded real-server runs (tests/data/vllm_cpu, brief V) are not in this checkout")
def test_a_real_cpu_vllm_run_calibrates_in_the_panel_and_the_error_falls(open_serving_panel, qtbot):
    """Two runs recorded from the CPU vLLM server (tiny-llama-cpu): the first opened as the
    replays' trace, both calibrated; the fit lowers the median |error| of their metrics
    and the leave-one-run-out error is reported."""
    from widgets.serving.calibrate_rows import median_abs_error

    w = open_serving_panel(1280, 720)
    for field, value in ((w.model_section.model_field, "tiny-llama-cpu"), (w.model_section.hardware_field, CPU_CARD)):
        field.edit.setCurrentText(value)
        field.edit.lineEdit().editingFinished.emit()
    assert not w.model_section.model_field.error_label.isVisible()
    low, medium = (os.path.abspath(os.path.join(CPU_RUNS, f)) for f in ("low.json", "medium.json"))
    w.trace_section.open_path(low)
    qtbot.waitUntil(lambda: ready(w), timeout=60_000)
    assert w.calibrate_section.paths == [low]
    outcome, _ = calibrated(w, qtbot, [low, medium])
    cal = outcome.calibration
    assert cal.converged, cal.message
    before, after = median_abs_error(cal.per_run, "before"), median_abs_error(cal.per_run, "after")
    assert after < before
    assert len(cal.loo) == 2 and "leave-one-run-out" in w.calibrate_section.view.summary.text()
    assert w.calibrate_section.view.metrics.rowCount() == 12  # six metrics of each run
