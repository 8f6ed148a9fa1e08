"""The window the session and undo tests drive: shown, 1280×720 (open_panel opens a panel
in it and waits until the panel is ready and settled)."""
import pytest

from lab.main_window import MainWindow


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    return w


@pytest.fixture
def open_panel(qtbot):
    """open_panel(window, key): show key's panel and wait until it is built, ready and
    settled (its own set-up done, so what changes next is the user's edit)."""
    def open_(window, key):
        window.show_panel(key)
        qtbot.waitUntil(lambda: window.is_ready(key) and window.stack.currentWidget() is window.panel(key)
                        and window.undo_recorder.is_settled(key), timeout=30_000)
        return window.panel(key)

    return open_
