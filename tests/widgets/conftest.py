"""Fixtures the widget tests share."""
import pytest

from widgets.kit.jobs import jobs


def serving_ready(panel) -> bool:
    """Built, and both replays computed for the state's current inputs."""
    return panel.is_ready() and not jobs().busy_keys()


@pytest.fixture
def open_serving_panel(qtbot):
    """open_serving_panel(width, height): a Serving panel at that size, shown and ready;
    closed (its jobs finished) after the test."""
    from widgets.serving import ServingPanel

    made = []

    def make(width: int, height: int):
        w = ServingPanel()
        qtbot.addWidget(w)
        w.resize(width, height)
        w.show()
        qtbot.waitUntil(lambda: serving_ready(w), timeout=60_000)
        made.append(w)
        return w

    yield make
    for w in made:
        w.close()
    jobs().wait_idle()


@pytest.fixture
def engine():
    """An audio engine on its virtual clock (no sound device): the Audio and Voice panels' tests."""
    from audio.engine import StreamEngine

    eng = StreamEngine(prefer_device=False)
    yield eng
    eng.close()
