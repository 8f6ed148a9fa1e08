import contextlib
import fcntl
import os
import subprocess
import sys
import tempfile
import time

# Tests never need a screen: Qt renders offscreen, before any Qt module is imported.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest


class _GroupIds:
    """pytest-xdist's --dist loadgroup names a test's group in its node id (nodeid@group),
    which the scheduler splits off; it sets the id's old attribute (`_nodeid`), which pytest
    9 no longer reads (a node's id is `_id`, a NodeId), so every group was ignored and the
    run was a plain --dist load. Set after xdist's own hook, the same id it meant to."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items):
        try:
            from _pytest.nodeid import coerce_node_id
        except ImportError:  # an older pytest reads `_nodeid` itself
            return
        for item in items:
            meant = item.__dict__.get("_nodeid")
            if meant and meant != item.nodeid:
                item._id = coerce_node_id(meant)


def pytest_configure(config):
    if hasattr(config, "workerinput") and getattr(config.option, "loadgroup", False):
        config.pluginmanager.register(_GroupIds(), "lab-xdist-group-ids")
    # Against a real vLLM server (.ci/run's own stage; tests/vllm_server/conftest.py leaves
    # them out unless -m names the marker).
    config.addinivalue_line("markers", "vllm_server: needs a real vLLM server (LAB_VLLM_URL); run with -m vllm_server")


# --- the compiled engine, once before the workers (pytest-xdist) ---------------------------
# numba compiles the engine's loop once per version of its sources and caches it on disk
# (core/serving/engine/jit.py); a process that needs it before the cache is written compiles
# it too. On a fresh machine both workers and the `lab` processes their first tests start
# would each pay that compile (many CPU-seconds each) at the same time. The controller has
# it compiled (or only loaded, when the cache is warm) in one process while the workers
# collect, and a worker waits for that before its first test.
WARM_ENGINE = "from core.sweep.warm import warm_serving; warm_serving()"
WARM_WAIT_S = 300.0  # past this a worker goes on (and compiles itself, as without the warm-up)


def _xdist_controller(config) -> bool:
    return (not hasattr(config, "workerinput") and bool(getattr(config.option, "numprocesses", None))
            and not config.option.collectonly)


def pytest_sessionstart(session):
    config = session.config
    if not _xdist_controller(config):
        return
    fd, path = tempfile.mkstemp(prefix="lab-warm-", suffix=".lock")
    fcntl.flock(fd, fcntl.LOCK_EX)  # held by the child's copy of fd until the child exits
    try:
        config._lab_warm = (path, subprocess.Popen(
            [sys.executable, "-c", WARM_ENGINE], cwd=str(config.rootpath), pass_fds=(fd,),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    finally:
        os.close(fd)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """(pytest-xdist, on the controller) each worker gets the warm-up's lock to wait on."""
    warm = getattr(node.config, "_lab_warm", None)
    if warm is not None:
        node.workerinput["lab_warm_lock"] = warm[0]


def pytest_collection_finish(session):
    path = getattr(session.config, "workerinput", {}).get("lab_warm_lock")
    if path:
        _wait_for_lock(path, WARM_WAIT_S)


def _wait_for_lock(path: str, limit_s: float) -> None:
    """Until the warm-up's process has exited (a shared lock is free then), at most limit_s.
    (If the warm-up failed, the tests that replay say why.)"""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    deadline = time.monotonic() + limit_s
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() > deadline:
                    return
                time.sleep(0.05)  # a poll of a lock, not a guess at how long the compile takes
    finally:
        os.close(fd)


def pytest_sessionfinish(session):
    warm = getattr(session.config, "_lab_warm", None)
    if warm is not None:
        path, child = warm
        if child.poll() is None:  # the run ended early (-x, ^C): the compile is not needed
            child.kill()
        child.wait()
        with contextlib.suppress(OSError):
            os.unlink(path)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups (--dist loadgroup)
def pytest_collection_modifyitems(config, items):
    """Tests that share one thing run on one worker, one after another: a real sound device
    (scripts/run-tests.sh runs those apart from the rest anyway) and a local Ray cluster
    (a head with its own processes per module; two at once would crowd two cores)."""
    for item in items:
        if item.get_closest_marker("audio_device"):
            item.add_marker(pytest.mark.xdist_group("sound"))
        elif "ray_cluster" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("ray"))
        elif _shares_a_window(item):
            item.add_marker(pytest.mark.xdist_group(f"window:{item.nodeid.split('::')[0]}"))
    if hasattr(config, "workerinput"):
        items[:] = windows_first(items)


GUI_FIXTURES = {"qtbot", "qapp"}


def _shares_a_window(item) -> bool:
    """A widget test that uses a module-scoped fixture of its own module (a window whose
    panels are built once for the module's tests): those tests run on one worker. Handed
    out one by one they went to both, and each worker built the window and its panels."""
    if not GUI_FIXTURES & set(getattr(item, "fixturenames", ())):
        return False
    info = getattr(item, "_fixtureinfo", None)
    module = item.nodeid.split("::")[0]
    for defs in (info.name2fixturedefs.values() if info is not None else ()):
        if defs and defs[-1].scope == "module" and defs[-1].baseid == module:
            return True
    return False


def windows_first(items):
    """A worker's copy of the collection, modules that build widgets first (each of their
    tests takes seconds: panels, replays, layouts) and the rest (mostly milliseconds) after.
    pytest-xdist hands tests out in this order as workers ask, so the short ones fill the
    end and no worker is left alone with a window's long tests at the end (the file order
    put tests/widgets last). A module keeps its order and stays whole (its module-scoped
    fixtures are built once); every worker sorts the same way (their collections must match)."""
    gui = {item.module.__name__ for item in items
           if getattr(item, "module", None) is not None and GUI_FIXTURES & set(getattr(item, "fixturenames", ()))}
    return sorted(items, key=lambda item: getattr(getattr(item, "module", None), "__name__", "") not in gui)


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path, monkeypatch):
    """Each test gets its own settings folder, so no test sees another's (or a user's).
    Only the lab's own variable moves: XDG_CONFIG_HOME also holds the sound server's cookie."""
    monkeypatch.setenv("LAB_SETTINGS_DIR", str(tmp_path / "config"))
    yield


@pytest.fixture
def window(qtbot):
    """The lab's main window, shown at 1280x720; its jobs finished after the test (imported
    here, not at the top: core's tests stay Qt-free)."""
    from lab.main_window import MainWindow
    from widgets.kit.jobs import jobs

    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    yield w
    jobs().wait_idle()


@pytest.fixture(scope="module")
def module_settings(tmp_path_factory):
    """A settings folder for a module's shared window (the autouse one is each test's own)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LAB_SETTINGS_DIR", str(tmp_path_factory.mktemp("settings")))
        yield


def _loaded(name: str):
    """widgets.kit.<name> if a test has imported it (None otherwise: core tests stay Qt-free)."""
    return sys.modules.get(f"widgets.kit.{name}")


def delete_closed_widgets() -> None:
    """Delete now what the test closed. qtbot closes its widgets and deleteLater()s them, but
    outside an event loop Qt never gets to those deletions, and the theme keeps every main
    window it styles (widgets.kit.theme's style roots) until its C++ side is gone: the
    windows of every earlier test stayed alive, each later theme or zoom change restyled them
    all (a theme test's teardown took minutes at the end of the suite). A window hidden after
    its test is a closed one (the module-scoped ones stay shown): deleted as well."""
    widgets = sys.modules.get("PySide6.QtWidgets")
    if widgets is None or widgets.QApplication.instance() is None:
        return
    from PySide6 import QtCore

    with _slots_of_deleted_widgets_may_fail():
        _delete_closed(widgets, QtCore)


@contextlib.contextmanager
def _slots_of_deleted_widgets_may_fail():
    """Deleting a window runs some of its Python slots once more (a plot's anchor follows
    its view's geometry, a table fits itself a moment later) and they find their parts
    already deleted. Those RuntimeErrors belong to the deletion, not to the test (the lab
    never deletes its windows); any other exception is reported as before."""
    report = sys.excepthook

    def hook(kind, value, tb):
        if not (issubclass(kind, RuntimeError) and "already deleted" in str(value)):
            report(kind, value, tb)

    sys.excepthook = hook
    try:
        yield
    finally:
        sys.excepthook = report


def _delete_closed(widgets, QtCore) -> None:
    for top in widgets.QApplication.topLevelWidgets():
        # A window once shown on screen has a native window; a hidden parentless widget
        # without one is somebody's part (a menu's widget action), not a closed window.
        shown_once = top.windowHandle() is not None and not isinstance(top, widgets.QMenu)
        if shown_once and not top.isVisible() and top.parentWidget() is None:
            top.deleteLater()  # a closed window or lone panel (pyqtgraph's menus go with their plots)
    # (A deleted window leaves the theme's style roots by itself: widgets/kit/theme.py.)
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    widgets.QApplication.processEvents()  # what the deletion queued (a deferred fit) runs now


@pytest.hookimpl(wrapper=True, tryfirst=True)  # around pytest-qt's own teardown
def pytest_runtest_teardown(item):
    """A panel deletes itself once closed (widgets/kit/lifetime.py). qtbot closes the
    widgets it was given before the test's fixtures end, and a fixture's own close() would
    then find its panel gone: qtbot leaves those to the fixtures, and what is still open
    after them is closed and deleted here."""
    added = getattr(item, "qt_widgets", None) or []
    deferred = [ref for ref, _ in added if _deletes_on_close(ref())]
    if added:  # neither those nor the widgets already gone
        item.qt_widgets = [(ref, before) for ref, before in added
                           if ref not in deferred and _alive(ref())]
    try:
        return (yield)
    finally:
        _close_left_open(deferred)


def _alive(widget) -> bool:
    import shiboken6

    return widget is not None and shiboken6.isValid(widget)


def _deletes_on_close(widget) -> bool:
    from PySide6 import QtCore

    return _alive(widget) and widget.testAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)


def _close_left_open(refs) -> None:
    if not refs:
        return
    import shiboken6
    from PySide6 import QtCore

    with _slots_of_deleted_widgets_may_fail():
        for ref in refs:
            widget = ref()
            if widget is not None and shiboken6.isValid(widget):
                if widget.isVisible():
                    widget.close()  # deletes it too
                else:
                    widget.deleteLater()
        QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)


@pytest.fixture(autouse=True)
def _default_look():
    """Zoom, theme and language are app-wide: whatever a test set, the next starts at 1×,
    light and both languages (only for the modules a test has loaded: core tests stay Qt-free)."""
    yield
    delete_closed_widgets()
    zoom, theme, i18n = (_loaded(name) for name in ("zoom", "theme", "i18n"))
    if zoom is not None and zoom.zoom() != 1.0:
        zoom.set_zoom(1.0)
    if theme is not None and theme.current_theme() != "light":
        theme.set_theme("light")
    if i18n is not None and i18n.language() != "both":
        i18n.set_language("both")
