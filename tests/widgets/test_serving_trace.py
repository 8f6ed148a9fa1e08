"""The Serving panel's trace source: open or drop a trace file, load it on the job runner
with a progress bar and ✕, replay it in A and B (prefix caching A as set, B the other way),
the vLLM-named metrics under the plots with goodput under the SLO fields, the measured vs
simulated overlay of a vllm bench result; a bad or missing file leaves the last replay."""
import json
import threading
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from core.serving import figures as F
from core.serving import overlay_figures as OV
from core.serving import trace_source as ts
from core.serving import vllm_metrics
from widgets.kit.jobs import jobs
from widgets.serving import ServingPanel
from widgets.serving import trace_source as trace_widget

TRACES = Path(__file__).resolve().parents[1] / "data" / "traces"
AZURE_200 = TRACES / "serving_azure_code_200.csv"
MOONCAKE = TRACES / "mooncake_conversation_head.jsonl"


def ready(panel) -> bool:
    """Nothing pending: the trace loaded (or refused), replays, metrics and overlay drawn."""
    return panel.is_ready() and not jobs().busy_keys()


def shown_panel(qtbot, state=None, until=ready) -> ServingPanel:
    """A panel at 1280×720, shown, once until(panel) holds."""
    w = ServingPanel(state)
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    qtbot.waitUntil(lambda: until(w), timeout=60_000)
    return w


def closed(w: ServingPanel) -> None:
    w.close()
    jobs().wait_idle()


@pytest.fixture
def panel(qtbot):
    w = shown_panel(qtbot)
    yield w
    closed(w)


def figure(panel, side="A"):
    return panel.state.replay(side).result["figure"]


def open_trace(panel, qtbot, path, timeout=60_000):
    panel.trace_section.open_path(str(path))
    qtbot.waitUntil(lambda: panel.state.trace_loaded is not None and panel.state.trace_loaded.path == str(path)
                    and ready(panel), timeout=timeout)


def vllm_bench_result(n=40, rate=2.0, seed=0) -> dict:
    """A small `vllm bench serve --save-result` JSON, by hand, with vLLM's keys."""
    rng = np.random.default_rng(seed)
    p, g = rng.integers(200, 2000, n), rng.integers(20, 200, n)
    ttfts = (0.04 + p * 3e-5 + rng.exponential(0.02, n)).round(6)
    itls = [(0.012 + rng.exponential(0.004, int(k) - 1)).round(6).tolist() for k in g]
    duration = n / rate + 5.0
    return {"date": "20251130-120000", "backend": "vllm", "model_id": "Qwen/Qwen3-8B", "tokenizer_id": "Qwen/Qwen3-8B",
            "num_prompts": n, "request_rate": rate, "burstiness": 1.0, "max_concurrency": None, "duration": duration,
            "completed": n, "total_input_tokens": int(p.sum()), "total_output_tokens": int(g.sum()),
            "request_throughput": n / duration, "output_throughput": float(g.sum() / duration),
            "total_token_throughput": float((p.sum() + g.sum()) / duration),
            "input_lens": p.tolist(), "output_lens": g.tolist(), "ttfts": ttfts.tolist(), "itls": itls,
            "generated_texts": [""] * n, "errors": [""] * n}


def azure_trace(path: Path, rows: int) -> Path:
    """An Azure 2023 code trace of `rows` rows: the bundled excerpt repeated, later copies
    shifted in time (TIMESTAMP date-times as the dataset ships them)."""
    lines = AZURE_200.read_text().splitlines()
    header, body = lines[0], [line.split(",") for line in lines[1:]]
    start = np.datetime64(body[0][0][:26])
    span = np.datetime64(body[-1][0][:26]) - start + np.timedelta64(1, "s")
    out = [header]
    for i in range(rows):
        stamp, p, g = body[i % len(body)]
        t = np.datetime64(stamp[:26]) + span * (i // len(body))
        out.append(f"{str(t).replace('T', ' ')},{p},{g}")
    path.write_text("\n".join(out) + "\n")
    return path


def test_open_a_trace_file_replays_it_with_a_progress_bar(panel, qtbot, monkeypatch):
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName", lambda *a, **k: (str(AZURE_200), ""))
    book = figure(panel)
    shown = []
    panel.trace_section.loading_changed.connect(lambda on: shown.append((on, panel.trace_section.progress_row.isVisible())))
    qtbot.mouseClick(panel.trace_section.open_button, QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.state.trace_loaded is not None and ready(panel), timeout=60_000)
    assert shown == [(True, True), (False, False)]  # the progress bar shown while loading, then hidden
    a = figure(panel)
    assert a is not book and a.name == AZURE_200.name and a.summary["requests"] == 200
    assert "200 requests" in panel.trace_section.summary.text() and "format azure" in panel.trace_section.summary.text()
    assert panel.compare_table.horizontalHeaderItem(0).text() == "A 模拟 · A simulated · trace"
    assert panel.compare_table.isColumnHidden(1) and not panel.compare_table.isColumnHidden(3)  # no book run
    assert not panel.replay_form.field("durations_s").isEnabled()  # the trace replaces the windows
    m = vllm_metrics.bench_metrics(a.result, a.workload, cost=a.config.cost)
    table = panel.metrics_section.table
    assert table.item(0, 0).text() == F._ms(m["mean_ttft_ms"]) and table.item(2, 3).text() == F._ms(m["p99_itl_ms"])
    assert not panel.overlay.isVisible()  # nothing measured in an Azure trace
    # Clear: back to the book's windows.
    qtbot.mouseClick(panel.trace_section.clear_button, QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: ready(panel) and figure(panel).scenario == "uniform", timeout=60_000)
    assert panel.replay_form.field("durations_s").isEnabled() and panel.state.trace is None
    from widgets.serving.replay_controls import CAPTION

    assert panel.caption.text() == CAPTION  # the book's caption, its catalog entry (an Azure trace has no prefixes)


def _drop(panel, path: Path) -> tuple[bool, bool]:
    mime = QtCore.QMimeData()
    mime.setUrls([QtCore.QUrl.fromLocalFile(str(path))])
    pos = QtCore.QPointF(panel.width() / 2, panel.height() / 2)
    buttons, mods = QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier
    enter = QtGui.QDragEnterEvent(pos.toPoint(), QtCore.Qt.DropAction.CopyAction, mime, buttons, mods)
    QtWidgets.QApplication.sendEvent(panel, enter)
    drop = QtGui.QDropEvent(pos, QtCore.Qt.DropAction.CopyAction, mime, buttons, mods)
    QtWidgets.QApplication.sendEvent(panel, drop)
    return enter.isAccepted(), drop.isAccepted()


def test_a_dropped_mooncake_trace_replays_with_prefix_caching_on_and_off(panel, qtbot):
    assert _drop(panel, MOONCAKE) == (True, True)
    qtbot.waitUntil(lambda: panel.state.trace_loaded is not None and ready(panel), timeout=60_000)
    a, b = figure(panel, "A"), figure(panel, "B")
    assert "prefix cache on" in a.name and "prefix cache off" in b.name
    assert a.cached_share > 0 and b.cached_share is None
    assert panel.metrics_section.totals.item(0, 5).text() == f"{a.cached_share:.1%}"
    assert panel.metrics_section.totals.item(1, 5).text() == "—"  # B: prefix caching off
    # The box turns A's off, and B on.
    # The caption says which side caches (it said "prefix cache off" for both).
    assert "前缀缓存 A 开、B 关" in panel.caption.text() and "prefix cache A on, B off" in panel.caption.text()
    from widgets.kit.i18n import english_words, has_cjk, set_language, translate_tree

    try:  # the plots' titles name the file and the cache state in one language
        for lang, wrong, state in (("en", has_cjk, "prefix cache on"), ("zh", english_words, "前缀缓存开")):
            set_language(lang)
            translate_tree(panel)
            title = panel.queue_plots["A"].title_label.text()
            assert f"A · {MOONCAKE.name} · {state} · " in title and not wrong(title.replace(MOONCAKE.name, "")), title
    finally:
        set_language("both")
    panel.trace_section.prefix_box.setChecked(False)
    assert panel.state.replay("A").inputs["prefix_caching"] is False
    qtbot.waitUntil(lambda: ready(panel) and "prefix cache off" in figure(panel, "A").name, timeout=60_000)
    assert figure(panel, "B").cached_share == pytest.approx(a.cached_share)
    assert "prefix cache A off, B on" in panel.caption.text()
    # A drag without a local file is not taken.
    mime = QtCore.QMimeData()
    mime.setText("not a file")
    enter = QtGui.QDragEnterEvent(QtCore.QPoint(5, 5), QtCore.Qt.DropAction.CopyAction, mime,
                                  QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier)
    QtWidgets.QApplication.sendEvent(panel, enter)
    assert not enter.isAccepted()


def test_cancel_stops_the_load_and_keeps_the_replays(panel, qtbot, monkeypatch):
    started = threading.Event()

    def slow_load(source, max_request_tokens=None, progress=None, cancel=None):
        progress(0.25)
        started.set()
        while not cancel.cancelled:
            cancel._event.wait(0.01)  # the worker waits for ✕ (an event, not a test sleep)
        cancel.check()

    monkeypatch.setattr(ts, "load", slow_load)
    book = figure(panel)
    panel.trace_section.open_path(str(AZURE_200))
    qtbot.waitUntil(lambda: panel.trace_section.progress_bar.value() == 250, timeout=10_000)
    assert panel.trace_section.progress_row.isVisible() and not panel.is_ready()
    qtbot.mouseClick(panel.trace_section.cancel_button, QtCore.Qt.MouseButton.LeftButton)
    assert not panel.trace_section.progress_row.isVisible()
    assert panel.state.trace_message == trace_widget.CANCELLED and panel.trace_section.message.isVisible()
    qtbot.waitUntil(lambda: ready(panel), timeout=10_000)
    assert figure(panel) is book and panel.state.trace_workload is None


@pytest.mark.parametrize("bad", ["garbage", "directory", "missing_option_rows"])
def test_a_bad_file_shows_its_message_and_keeps_the_last_replay(panel, qtbot, tmp_path, bad):
    open_trace(panel, qtbot, AZURE_200)
    good = figure(panel)
    if bad == "garbage":
        path = tmp_path / "bad.csv"
        path.write_text("when,how many\nyesterday,lots\n")
    elif bad == "directory":
        path = tmp_path
    else:
        path = AZURE_200  # the good file with a window in which nothing arrives
    if bad == "missing_option_rows":
        panel.trace_section.fields["window_s"].edit.setText("1e6:2e6")
        panel.trace_section.fields["window_s"].edited.emit()
        qtbot.waitUntil(lambda: panel.trace_section.fields["window_s"].has_error and ready(panel), timeout=30_000)
        assert "window" in panel.trace_section.fields["window_s"].error_label.text()
    else:
        panel.trace_section.open_path(str(path))
        qtbot.waitUntil(lambda: bool(panel.state.trace_message) and ready(panel), timeout=30_000)
        text = panel.trace_section.message.text()
        assert panel.trace_section.message.isVisible() and path.name in text
    assert figure(panel) is good and panel.plots.figure("A") is good  # the last good replay stays on screen
    assert AZURE_200.name in panel.trace_section.summary.text()


def test_a_session_with_a_missing_trace_says_so_and_keeps_the_book(qtbot, tmp_path):
    from core.serving.state import ServingState

    state = ServingState()
    state.set_trace({"path": str(AZURE_200), "limit": "120", "time_scale": "2"})
    data = state.to_json()
    restored = ServingState()
    restored.load_json(data)
    w = shown_panel(qtbot, restored, until=lambda w: ready(w) and w.state.trace_workload is not None)
    a = figure(w)
    assert a.summary["requests"] == 120 and w.trace_section.fields["time_scale"].edit.text() == "2"
    assert a.workload.arrival_s[-1] == pytest.approx(ts.load(state.trace).arrival_s[-1])
    closed(w)
    missing = dict(data, trace=dict(data["trace"], path=str(tmp_path / "gone.csv")))
    restored = ServingState()
    restored.load_json(missing)
    w = shown_panel(qtbot, restored, until=lambda w: ready(w) and bool(w.state.trace_message))
    assert "gone.csv" in w.trace_section.message.text() and "book's run is kept" in w.trace_section.message.text()
    assert figure(w).scenario == "uniform" and w.state.to_json()["trace"]["path"].endswith("gone.csv")
    closed(w)


def test_a_vllm_bench_result_draws_measured_against_simulated(panel, qtbot, tmp_path):
    path = tmp_path / "bench.json"
    result = vllm_bench_result()
    path.write_text(json.dumps(result))
    open_trace(panel, qtbot, path)
    qtbot.waitUntil(lambda: panel.overlay.isVisible(), timeout=10_000)
    a = figure(panel)
    expected = OV.overlay_figure(a.workload.meta, a.result, a.config.cost)
    # Drawn as steps: flat between samples, a rise at each, from 0 at the first sample.
    x, y = panel.overlay.cards["ttft"].curves["measured"].getData()
    ttfts = np.sort(result["ttfts"]) * 1e3
    assert np.allclose(x, np.repeat(ttfts, 2)) and y[0] == 0.0 and y[-1] == 1.0
    assert np.allclose(y[1::2], np.arange(1, ttfts.size + 1) / ttfts.size) and np.allclose(y[2::2], y[1:-1:2])
    sx, _ = panel.overlay.cards["itl"].curves["simulated"].getData()
    assert np.allclose(sx, np.repeat(expected["itl"]["simulated"][0], 2))
    mx, my = panel.overlay.cards["itl"].curves["measured"].getData()
    gaps = np.sort(np.concatenate(result["itls"])) * 1e3
    assert mx.size == 2 * OV.CDF_POINTS and mx[0] == pytest.approx(gaps[0]) and mx[-1] == pytest.approx(gaps[-1])
    assert my[0] == 0.0 and my[-1] == 1.0 and np.all(np.diff(my) >= 0) and np.all(np.diff(mx) >= 0)
    # The legend sits in the top left corner, clear of curves that rise to the right.
    legend = panel.overlay.cards["ttft"].plot.legend
    assert legend.opts["offset"] == (10, 10)
    assert f"{gaps.size:,} measured vs" in panel.overlay.cards["itl"].subtitle_label.text()
    assert "p50" in panel.overlay.notes["ttft"].text()
    # The subtitle and the p50/p90/p99 lines read whole in either language.
    from widgets.kit.i18n import english_words, has_cjk, set_language, translate_tree

    try:
        for lang, wrong in (("en", has_cjk), ("zh", english_words)):
            set_language(lang)
            translate_tree(panel.overlay)
            texts = [panel.overlay.cards["ttft"].subtitle_label.text(), panel.overlay.notes["itl"].text()]
            assert not any(wrong(t.replace("<br>", " ")) for t in texts), (lang, texts)
        assert panel.overlay.notes["itl"].text().startswith(f"p50:实测 {OV._fmt(expected['itl']['quantiles']['measured'][0])}")
    finally:
        set_language("both")
    # Back to a trace without measured values: the overlay goes.
    open_trace(panel, qtbot, AZURE_200)
    assert not panel.overlay.isVisible()


def test_slo_fields_give_goodput_and_refuse_bad_values(panel, qtbot):
    open_trace(panel, qtbot, AZURE_200)
    a = figure(panel)
    slo = float(np.percentile(a.result.ttft_s, 50)) * 1e3
    field = panel.metrics_section.slo_fields["slo_ttft_ms"]
    field.edit.setText(f"{slo:.3f}")
    field.edited.emit()
    assert panel.state.view("slo_ttft_ms") == pytest.approx(slo, abs=1e-3)
    goodput = panel.metrics_section.totals.item(0, 4)
    qtbot.waitUntil(lambda: goodput.text() != "—" and ready(panel), timeout=30_000)
    good = vllm_metrics.goodput(a.result, slo_ttft_ms=round(slo, 3))
    assert goodput.text() == f"{good:.2f}" and "TTFT ≤" in panel.metrics_section.note.text()
    field.edit.setText("-5")
    field.edited.emit()
    assert field.has_error and panel.state.view("slo_ttft_ms") == pytest.approx(slo, abs=1e-3)


def test_gui_answers_while_a_large_trace_loads_and_replays(panel, qtbot, tmp_path):
    """8,819 Azure rows (the code trace's size) and 100,000 rows: the GUI thread keeps
    running its timers while the load and both replays run on the job runner."""
    rng = np.random.default_rng(0)
    big = tmp_path / "big.csv"
    n = 100_000
    t = np.cumsum(rng.exponential(1 / 25, n))
    rows = np.column_stack([t, rng.integers(100, 4000, n), rng.integers(5, 400, n)])
    np.savetxt(big, rows, fmt=["%.4f", "%d", "%d"], delimiter=",", header="arrival_s,input_tokens,output_tokens",
               comments="")
    for path, count in ((azure_trace(tmp_path / "azure_code.csv", 8819), 8819), (big, n)):
        ticks = []  # whether a job was busy, at each tick of a 5 ms GUI timer
        timer = QtCore.QTimer()
        timer.timeout.connect(lambda ticks=ticks: ticks.append(jobs().busy_keys() != []))
        timer.start(5)
        panel.trace_section.open_path(str(path))
        qtbot.waitUntil(lambda path=path: panel.state.trace_loaded is not None and panel.state.trace_loaded.path == str(path)
                        and ready(panel), timeout=120_000)
        timer.stop()
        assert figure(panel).summary["requests"] == count
        # The Gantt shows at most 2,000 strips, an evenly spaced subset; its axis counts requests.
        rows = panel.gantt_images["A"].image.shape[0]
        assert rows == min(count, 2000) and panel.gantt_images["A"].mapRectToParent(
            panel.gantt_images["A"].boundingRect()).height() == pytest.approx(count)
        assert panel.gantt_plots["A"].plot.viewRange()[1] == pytest.approx([0, count])
        # The GUI thread ran its timer while the jobs were busy (the compiled engine replays
        # this in milliseconds: a count of ten busy 5 ms ticks raced it).
        assert any(ticks)


def test_a_traces_labels_read_in_one_language(panel, qtbot):
    """A trace's name is in no catalog: the labels that carry it, and the A/B note, still
    switch language whole, and A's and B's columns keep their side in English."""
    from widgets.kit.i18n import english_words, has_cjk, set_language, translate_tree

    heads = lambda: [panel.compare_table.horizontalHeaderItem(c).text() for c in (0, 3)]  # noqa: E731
    try:  # the book's scenarios: their names are in the catalogs, with their side
        set_language("en")
        translate_tree(panel)
        assert heads() == ["A simulated · even mix 1:1", "B simulated · first 9:1, then 1:9"]
    finally:
        set_language("both")
    open_trace(panel, qtbot, AZURE_200)
    texts = lambda: (panel.controls.a_label.text(), panel.queue_plots["A"].title_label.text(),  # noqa: E731
                     panel.compare_table.horizontalHeaderItem(0).text(), panel.compare_table.horizontalHeaderItem(3).text())
    try:
        set_language("en")
        translate_tree(panel)
        note, title, a_head, b_head = texts()
        assert not any(has_cjk(t) for t in texts()), texts()
        assert "both replay the trace" in note and AZURE_200.name in title and "waiting queue" in title
        assert a_head.startswith("A simulated") and b_head.startswith("B simulated")
        set_language("zh")
        translate_tree(panel)
        note, title, a_head, b_head = texts()
        assert not english_words(note) and "等待队列与运行序列" in title and "waiting" not in title
        assert (a_head, b_head) == ("A 模拟", "B 模拟")
        heading = panel.findChild(QtWidgets.QLabel, "replay_heading").text()
        assert heading == "真实回放 · KV 池满了,空着的算力也接不了新请求"  # no dash left over from the English half
    finally:
        set_language("both")


def test_the_ab_tables_headers_wrap_whole_at_1280(panel, qtbot):
    """In English the book's headers ("B simulated · first 9:1, then 1:9") are wider than
    their column at 1280 px: they wrap inside the header's height instead of being cut."""
    from widgets.kit.i18n import set_language, translate_tree

    table = panel.compare_table
    header = table.horizontalHeader()
    try:
        set_language("en")
        translate_tree(panel)
        qtbot.waitUntil(lambda: header.sectionSize(3) > 0)
        metrics = header.fontMetrics()
        flags = int(QtCore.Qt.AlignmentFlag.AlignCenter) | int(QtCore.Qt.TextFlag.TextWordWrap)
        for c in (0, 1, 3, 4):
            text = table.horizontalHeaderItem(c).text()
            width = header.sectionSize(c) - 8  # the style's margins
            assert metrics.horizontalAdvance(text) > width or c in (1, 4)  # the names do not fit on one line
            needed = metrics.boundingRect(QtCore.QRect(0, 0, width, 1000), flags, text).height()
            assert needed <= header.height(), (text, needed, header.height())
    finally:
        set_language("both")
