"""open_panel for the session and undo tests: a panel opened in tests/conftest.py's window
(shown, 1280×720) and waited on until it is ready and settled."""
import pytest


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
