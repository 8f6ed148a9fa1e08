"""Hostile session files: values a panel's own run refuses (voice turns 1e9 and −5, rate −1,
a junk shown turn that crashed the Voice panel; step_speed −1 and 1e308), and files that
are not sessions at all (a FIFO, a device, a sparse giant, deep nesting, NaN). Each is
refused whole by core.session (read_session, then check_panels as the window does) with
a SessionError naming the field, within the corpus's bound (in-process:
tests/hostile/bounds.py). A plain session of the same kind loads."""
from __future__ import annotations

import json
import os

import pytest

from core import session
from core.session import SessionError, check_panels, panel_model_classes
from tests.hostile.bounds import bounded

WINDOW = {"x": 0, "y": 0, "width": 1280, "height": 720, "maximized": False}


def _with_view(panel: str, **view):
    def make(path):
        data = session.make_session(panel, WINDOW, 1.0, "light", "en", {})
        data["panels"] = {panel: {"panel": panel, "view": view}}
        path.write_text(json.dumps(data), encoding="utf-8")
    return make


def _with_card(panel: str, slot: str, **values):
    def make(path):
        data = session.make_session(panel, WINDOW, 1.0, "light", "en", {})
        data["panels"] = {panel: {"panel": panel, "cards": {slot: values}}}
        path.write_text(json.dumps(data), encoding="utf-8")
    return make


def _text(text):
    return lambda path: path.write_text(text, encoding="utf-8")


def _sparse(size):
    def make(path):
        with open(path, "wb") as f:
            f.truncate(size)
    return make


def _with_theme(theme):
    def make(path):
        data = session.make_session("request", WINDOW, 1.0, "light", "en", {})
        data["theme"] = theme
        path.write_text(json.dumps(data), encoding="utf-8")
    return make


# name -> (how to make the file, a phrase of the refusal, or None: it loads)
CASES = {
    "voice shown is junk": (_with_view("voice", shown="xyz"), "panels.voice: view.shown"),
    "voice turns 1e9": (_with_view("voice", turns=1e9), "panels.voice: view.turns"),
    "voice turns -5": (_with_view("voice", turns=-5), "panels.voice: view.turns"),
    "voice turns past the work bound": (_with_view("voice", turns=5000), "panels.voice: view.turns"),
    "voice rate -1": (_with_view("voice", rate_per_s=-1.0), "panels.voice: view.rate_per_s"),
    "step_speed -1": (_with_view("request", step_speed=-1.0), "panels.request: view.step_speed"),
    "step_speed 1e308": (_with_view("request", step_speed=1e308), "panels.request: view.step_speed"),
    "a plain voice view": (_with_view("voice", turns=300, rate_per_s=0.5, shown="p99"), None),
    "a fifo": (os.mkfifo, "not a regular file (a fifo)"),
    "a sparse 4 GB file": (_sparse(4 * 2**30), "at most"),
    "arrays nested 100,000 deep": (_text("[" * 100_000 + "]" * 100_000), "nested deeper"),
    "objects nested 10,000 deep": (_text('{"a":' * 10_000 + "1" + "}" * 10_000), "nested deeper"),
    "NaN": (_text('{"format": "load-lab-session", "version": 2, "zoom": NaN}'), "not a number"),
    "a theme of 7 MB": (_with_theme("t" * 7_000_000), "theme"),
    "a window list of a million": (_with_card("serving", "replay_a", durations_s=[1.0] * 1_000_000), "durations_s"),
    "a replay decoding 10^10 tokens": (_with_card("serving", "replay_a", durations_s=[1000.0], rates_per_s=[100.0],
                                                  shares_long_input=[0.0], long_output_out_tokens=100_000),
                                       "rates_per_s"),
}


def _load(path):
    data = session.read_session(str(path))
    return check_panels(data["panels"], panel_model_classes())


@pytest.fixture(scope="module", autouse=True)
def _imported():
    """Check one plain session first: the panels' state modules are not a case's cost."""
    check_panels({}, panel_model_classes())


@pytest.mark.parametrize("name", CASES)
def test_a_hostile_session_file(tmp_path, name):
    make, phrase = CASES[name]
    path = tmp_path / "s.lab.json"
    make(path)
    with bounded():
        if phrase is None:
            assert _load(path)["voice"]["view"]["turns"] == 300
            return
        with pytest.raises(SessionError) as err:
            _load(path)
    assert phrase in str(err.value), str(err.value)


def test_a_device_is_refused():
    with bounded(), pytest.raises(SessionError, match=r"not a regular file \(a device\)"):
        session.read_session("/dev/zero")
