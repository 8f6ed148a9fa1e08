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


@pytest.fixture
def plan_panel(qtbot):
    """A Plan panel factory on a small sweep (plan_testkit.SMALL); closes what it built. Its
    imports wait for a Plan test: the other panels' tests need none of them."""
    import shiboken6

    from tests.widgets.plan_testkit import SMALL
    from widgets.kit.jobs import jobs
    from widgets.plan import PlanPanel

    made = []

    def make(values=None, **kwargs):
        p = PlanPanel(first_sweep=False, **kwargs)
        qtbot.addWidget(p)
        p.form.set_values(dict(SMALL, **(values or {})))
        p.resize(1280, 720)
        p.show()
        made.append(p)
        return p

    yield make
    for p in made:
        if shiboken6.isValid(p):
            p.close()
    jobs().wait_idle()
