"""What session, autosave and talk files store stays readable when modules move: they name
panels by key, cards by slot and calculators by name (never a module path), so a session
written before core/ became topic packages (cac96f6) loads into today's models unchanged."""
from pathlib import Path

from core import session
from core.talk import STATE_MODELS, load_talk, model_class

DATA = Path(__file__).resolve().parents[1] / "data"
ROOT = Path(__file__).resolve().parents[2]


def test_a_session_saved_before_the_move_loads_every_panel_as_saved():
    data = session.read_session(str(DATA / "sessions" / "cac96f6.lab.json"))
    models = {key: model_class(key) for key in STATE_MODELS}
    checked = session.check_panels(data["panels"], models)
    # Every card, view and player came back as written; what panels gained since (a card,
    # a player) comes at its default: an empty card, a player at its start.
    assert _as_saved(checked, data["panels"]) == data["panels"]
    for key, panel in checked.items():
        for part in ("cards", "players"):
            for slot in panel.get(part, {}).keys() - data["panels"][key].get(part, {}).keys():
                assert panel[part][slot] in ({}, 0.0), (key, part, slot)
    assert data["panels"]["serving"]["cards"]["backlog"]  # and some of them are not defaults
    # Serving's P/D fields (issue 15) came later: the old session opens with one pool.
    assert "pools" not in data["panels"]["serving"]["cards"] and checked["serving"]["cards"]["pools"] == {}
    serving = model_class("serving")()
    serving.load_json(data["panels"]["serving"])
    assert serving.card("pools").inputs == serving.card("pools").calculator.default_inputs
    assert serving.to_json()["cards"]["backlog"] == data["panels"]["serving"]["cards"]["backlog"]


def _as_saved(checked, saved):
    """checked, restricted to the keys saved has (recursively, in dicts)."""
    if isinstance(checked, dict) and isinstance(saved, dict):
        return {k: _as_saved(checked[k], v) for k, v in saved.items() if k in checked}
    return checked


def test_each_state_model_answers_to_its_panel_key():
    for key in STATE_MODELS:
        assert model_class(key).key == key
    assert session.panel_model_classes().keys() == STATE_MODELS.keys()


def test_the_book_talk_loads_every_scene():
    talk = load_talk(str(ROOT / "talks" / "chapter3.toml"))
    assert talk.scenes and all(scene.ok for scene in talk.scenes), [s.error for s in talk.scenes if not s.ok]
