"""The GUI's exception hook: a log file in the user's data folder and a dialog that does not
block; the app keeps running. Tests inject the dialog function (pytest-qt has its own
capture, so the hook is installed here only between install() and uninstall())."""
import os
import sys
import threading

from PySide6 import QtCore, QtWidgets

from lab import excepthook
from lab.settings import data_dir
from widgets.kit.jobs import jobs


def _boom():
    raise ValueError("boom from a test")


def test_log_goes_to_the_data_folder_beside_the_settings(tmp_path):
    assert data_dir() == str(tmp_path / "data")  # conftest points LAB_SETTINGS_DIR at tmp_path/config
    assert excepthook.default_log_path() == os.path.join(data_dir(), "errors.log")


def test_a_report_is_logged_and_shown_through_the_dialog_hook(qtbot, tmp_path):
    shown = []
    reporter = excepthook.Reporter(dialog=lambda text, path, parent: shown.append((text, path)))
    try:
        _boom()
    except ValueError:
        with qtbot.waitSignal(reporter.reported, timeout=30_000):
            reporter.report_exception(*sys.exc_info())
    with open(reporter.log_path, encoding="utf-8") as f:
        log = f.read()
    assert "ValueError: boom from a test" in log and "_boom" in log
    assert shown and "ValueError: boom from a test" in shown[0][0] and shown[0][1] == reporter.log_path
    assert reporter.log_path.startswith(str(tmp_path / "data"))


def test_installed_hook_catches_gui_thread_threads_and_failed_jobs(qtbot):
    shown = []
    old_hook, old_thread_hook = sys.excepthook, threading.excepthook
    reporter = excepthook.install(dialog=lambda text, path, parent: shown.append(text))
    try:
        assert sys.excepthook is not old_hook and threading.excepthook is not old_thread_hook
        # An exception nobody caught on the GUI thread (what PySide does with a failing slot).
        try:
            _boom()
        except ValueError:
            with qtbot.waitSignal(reporter.reported, timeout=30_000):
                sys.excepthook(*sys.exc_info())
        # One in another thread: logged there, shown on the GUI thread.
        with qtbot.waitSignal(reporter.reported, timeout=30_000):
            worker = threading.Thread(target=_boom, name="test-worker")
            worker.start()
            worker.join()
        # A job that fails with nobody's failed= callback.
        with qtbot.waitSignal(reporter.reported, timeout=30_000):
            jobs().submit("test.excepthook", _boom)
        assert jobs().wait_idle()
    finally:
        excepthook.uninstall()
    assert sys.excepthook is old_hook and threading.excepthook is old_thread_hook
    assert len(shown) == 3 and all("ValueError: boom from a test" in t for t in shown)
    assert "in thread test-worker" in shown[1] and "job test.excepthook failed" in shown[2]
    with open(reporter.log_path, encoding="utf-8") as f:
        assert f.read().count("ValueError: boom from a test") == 3


def test_the_default_dialog_does_not_block_and_collects_further_errors(qtbot):
    excepthook.show_dialog("Traceback one", "/tmp/x.log")
    dialog = excepthook._open_dialog
    qtbot.addWidget(dialog)
    assert dialog.isVisible() and not dialog.isModal()  # returned at once: nothing blocked
    excepthook.show_dialog("Traceback two", "/tmp/x.log")
    assert excepthook._open_dialog is dialog
    text = dialog.text.toPlainText()
    assert "Traceback one" in text and "Traceback two" in text


def test_a_log_that_cannot_be_written_does_not_raise(qtbot, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    reporter = excepthook.Reporter(log_path=str(blocker / "errors.log"), dialog=lambda *a: None)
    reporter.write_log("text")
    assert "could not write" in capsys.readouterr().err


def test_run_gui_installs_the_hook(qtbot, monkeypatch):
    import lab.app

    seen = {}
    monkeypatch.setattr(QtWidgets.QApplication, "exec",
                        lambda self: seen.setdefault("hook", sys.excepthook) and 0)
    window = {}
    real_start = lab.app.start_window

    def start():
        app, w = real_start()
        window["w"] = w
        qtbot.addWidget(w)
        return app, w

    monkeypatch.setattr(lab.app, "start_window", start)
    before = sys.excepthook
    assert lab.app.run_gui() == 0
    assert seen["hook"] is not before and sys.excepthook is before
    QtCore.QCoreApplication.processEvents()


def test_the_same_error_repeating_is_reported_once(qtbot):
    shown = []
    reporter = excepthook.Reporter(dialog=lambda text, path, parent: shown.append(text))
    with qtbot.waitSignal(reporter.reported, timeout=30_000):
        for _ in range(5):  # a paint event failing on every frame
            reporter.report("Traceback: the same")
    with qtbot.waitSignal(reporter.reported, timeout=30_000):
        reporter.report("Traceback: another")
    assert shown == ["Traceback: the same", "Traceback: another"]
