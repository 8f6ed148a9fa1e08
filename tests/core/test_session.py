"""Session files in pure core: round trip, migration from version 1, and every kind of bad
file refused with a message naming what is wrong; writing is atomic."""
import json
import os

import pytest

from core import session
from core.request.state import RequestState
from core.session import SessionError
from core.training_state import TrainingState

WINDOW = {"x": 10, "y": 20, "width": 1280, "height": 720, "maximized": False}


def _session(**panels):
    return session.make_session("request", WINDOW, 1.25, "dark", "en", panels)


def test_write_then_read_gives_the_same_session(tmp_path):
    state = RequestState()
    state.card("area").update({"wait_s": 30})
    data = _session(request=state.to_json())
    path = str(tmp_path / "talk.lab.json")
    session.write_session(path, data)
    back = session.read_session(path)
    assert back == json.loads(json.dumps(data))
    assert back["panels"]["request"]["cards"]["area"] == {"wait_s": 30.0}
    assert back["version"] == session.VERSION and back["language"] == "en" and back["zoom"] == 1.25
    assert os.listdir(tmp_path) == ["talk.lab.json"]  # no temporary file left


def test_a_version_1_file_opens_with_the_language_it_had(tmp_path):
    # Written by hand as version 1 wrote it: no "language" (every label was in both).
    path = tmp_path / "old.lab.json"
    path.write_text(json.dumps({
        "format": "load-lab-session", "version": 1, "saved_at": "2026-01-01T00:00:00Z",
        "current_panel": "training", "window": WINDOW, "zoom": 1.0, "theme": "light",
        "panels": {"training": {"panel": "training", "cards": {"step": {"cards": 4}}}}}))
    data = session.read_session(str(path))
    assert data["version"] == 2 and data["language"] == "both"
    assert data["current_panel"] == "training" and data["panels"]["training"]["cards"]["step"] == {"cards": 4}
    full = session.check_panels(data["panels"], {"training": TrainingState})
    assert full["training"]["cards"]["step"] == {"cards": 4}


def test_a_newer_version_is_refused_saying_so(tmp_path):
    path = tmp_path / "new.lab.json"
    path.write_text(json.dumps({**_session(), "version": session.VERSION + 1}))
    with pytest.raises(SessionError, match=r"newer Load Lab \(session version 3\).*versions 1\.\.2"):
        session.read_session(str(path))


@pytest.mark.parametrize("mangle, message", [
    (lambda text: text[: len(text) // 2], "damaged or cut short"),
    (lambda text: "", "not valid JSON"),
    (lambda text: b"\xff\xfe garbage", "not UTF-8 text"),
    (lambda text: json.dumps([1, 2]), "not a Load Lab session"),
    (lambda text: text.replace('"zoom": 1.25', '"zoom": NaN'), "NaN"),
    (lambda text: text.replace('"zoom": 1.25', '"zoom": 40'), r"zoom: got 40; valid: a number 0.5..3.0"),
    (lambda text: text.replace('"language": "en"', '"language": "fr"'), "language: got 'fr'; valid: zh / en / both"),
    (lambda text: text.replace('"width": 1280', '"width": -5'), "window.width"),
    (lambda text: text.replace('"version": 2', '"version": "2"'), "version: got '2'"),
    (lambda text: "[" * 100_000, "not valid JSON"),
])
def test_a_damaged_file_is_refused_naming_what_is_wrong(tmp_path, mangle, message):
    text = session.dumps(_session(request=RequestState().to_json()))
    bad = mangle(text)
    assert bad != text
    path = tmp_path / "bad.lab.json"
    path.write_bytes(bad if isinstance(bad, bytes) else bad.encode("utf-8"))
    with pytest.raises(SessionError, match=message):
        session.read_session(str(path))


def test_a_huge_file_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.lab.json"
    with open(path, "wb") as f:
        f.truncate(session.MAX_BYTES + 1)  # sparse: no disk used
    with pytest.raises(SessionError, match="at most 8,388,608 bytes"):
        session.read_session(str(path))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    path = tmp_path / "pipe.lab.json"
    os.mkfifo(path)
    with pytest.raises(SessionError, match="not a regular file"):
        session.read_session(str(path))


def test_missing_file_and_folder_are_refused(tmp_path):
    with pytest.raises(SessionError, match="cannot open"):
        session.read_session(str(tmp_path / "nope.lab.json"))
    with pytest.raises(SessionError, match="not a regular file"):
        session.read_session(str(tmp_path))


def test_each_panel_is_checked_in_a_fresh_model():
    models = {"request": RequestState, "training": TrainingState}
    good = RequestState()
    good.card("area").update({"wait_s": 30})
    full = session.check_panels({"request": good.to_json()}, models)
    assert full["request"] == good.to_json()
    assert full["training"] == TrainingState().to_json()  # left out: as a new panel opens
    with pytest.raises(SessionError, match="panels.scaling: unknown panel; valid: request, training"):
        session.check_panels({"scaling": {}}, models)
    bad = {"training": {"panel": "training", "cards": {"step": {"cards": -3}}}}
    with pytest.raises(SessionError, match=r"panels.training.cards.step.cards: got -3; valid: a whole number"):
        session.check_panels({"request": good.to_json(), **bad}, models)
    with pytest.raises(SessionError, match="panels.request: view.nope"):
        session.check_panels({"request": {"view": {"nope": 1}}}, models)


def test_every_panel_has_its_model_class():
    classes = session.panel_model_classes()
    assert {"request", "training", "serving", "audio", "vision", "agents", "scaling", "verify"} <= set(classes)
    assert classes["serving"].__module__ == "core.serving.state"


def test_a_folder_that_is_not_there_or_a_file_gives_a_message(tmp_path):
    (tmp_path / "plain").write_text("x")
    for folder in (tmp_path / "missing", tmp_path / "plain"):
        with pytest.raises(SessionError, match="cannot write in .*nothing was written"):
            session.write_session(str(folder / "s.lab.json"), _session())
    assert sorted(os.listdir(tmp_path)) == ["plain"]


def test_an_unwritable_folder_gives_a_message_and_no_file(tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("running as root: permissions do not bind")
        with pytest.raises(SessionError, match="nothing was written"):
            session.write_session(str(folder / "s.lab.json"), _session())
        assert os.listdir(folder) == []
    finally:
        folder.chmod(0o700)


def test_a_failed_rename_leaves_the_old_file_whole(tmp_path, monkeypatch):
    path = tmp_path / "s.lab.json"
    session.write_session(str(path), _session())
    before = path.read_bytes()

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(session.os, "replace", broken_replace)
    with pytest.raises(SessionError, match="No space left on device.*nothing was written"):
        session.write_session(str(path), session.make_session("training", WINDOW, 2.0, "light", "zh", {}))
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["s.lab.json"]
