"""The panel state models in core: checked inputs, one change event per real change, JSON in
and out, a bad state refused without changing anything."""
import dataclasses

import pytest

from core.registry import Inputs, ParamError, get
from core.state_model import CardModel, PanelModel, Signal


class Demo(PanelModel):
    key = "demo"
    CARDS = (("area", "state.area"), ("split", "request.split"))
    VIEW = {"tab": 0, "band": False, "preset": "①", "x_range": (0.0, 60.0)}
    PLAYERS = ("step",)


def test_resolve_gives_frozen_checked_inputs_that_run_takes_as_they_are():
    calc = get("state.area")
    inputs = calc.resolve({"wait_s": "30"})
    assert isinstance(inputs, Inputs) and inputs["wait_s"] == 30
    with pytest.raises(TypeError):
        inputs["wait_s"] = 5  # frozen
    with pytest.raises(TypeError):
        Inputs("state.area", {"wait_s": -1})  # only resolve makes them
    assert calc.resolve(inputs) is inputs  # not checked again
    assert calc.run(inputs)["mean_waiting_tasks"] == 60


def test_resolve_all_reports_every_bad_field():
    inputs, errors = get("cost.compare").resolve_all({"p1": "0", "p2": "-1"})
    assert inputs is None
    assert {e.param for e in errors} == {"p1", "p2"}


def test_card_computes_once_per_real_change():
    card = CardModel("state.area")
    events = []
    card.changed.connect(events.append)
    assert card.update({"wait_s": "30"}) and card.result["mean_waiting_tasks"] == 60
    assert card.update({"wait_s": 30.0})  # same value: no event
    assert len(events) == 1


def test_card_refuses_bad_input_and_keeps_the_last_good_state():
    card = CardModel("state.area")
    card.update({"wait_s": "30"})
    result = card.result
    assert not card.update({"wait_s": "-1"})
    assert "wait_s" in card.errors and card.stale
    assert card.result is result and card.inputs["wait_s"] == 30
    assert card.update({"wait_s": "30"})  # fixed back to the same value: the error clears
    assert not card.errors and not card.stale


def test_a_failing_computation_marks_the_card_stale():
    calc = get("state.area")

    def buggy(**values):
        if values["wait_s"] == 12:
            raise ZeroDivisionError("bug")
        return calc.compute(**values)

    card = CardModel(dataclasses.replace(calc, compute=buggy))
    good = card.result
    card.update({"wait_s": "12"})
    assert card.failure and "ZeroDivisionError" in card.failure
    assert card.stale and card.result is good


def test_deferred_card_drops_a_stale_result():
    card = CardModel("state.area", deferred=True)
    assert card.result is None and card.stale
    old = card.inputs
    card.update({"wait_s": "30"})
    assert not card.set_result(old, {"mean_waiting_tasks": 20})  # of inputs no longer current
    assert card.result is None
    assert card.set_result(card.inputs, card.calculator.run(card.inputs))
    assert card.result["mean_waiting_tasks"] == 60 and not card.stale


def test_panel_emits_one_event_per_real_change_with_its_path():
    model = Demo()
    events = []
    model.changed.connect(lambda path, value: events.append(path))
    model.set_view("tab", 2)
    model.set_view("tab", 2)
    model.card("area").update({"wait_s": "30"})
    model.set_player("step", 12.5)
    assert events == ["view.tab", "cards.area", "player.step"]


def test_panel_state_round_trips_through_json():
    model = Demo()
    model.card("area").update({"wait_s": "30"})
    model.set_view("band", True)
    model.set_view("x_range", (10, 20))
    model.set_player("step", 3.0)
    saved = model.to_json()
    assert saved["cards"]["area"] == {"wait_s": 30.0} and saved["cards"]["split"] == {}
    restored = Demo()
    restored.load_json(saved)
    assert restored.to_json() == saved
    assert restored.card("area").result["mean_waiting_tasks"] == 60
    restored.reset()
    assert restored.to_json() == Demo().to_json()


@pytest.mark.parametrize("bad, field", [
    ({"cards": {"area": {"wait_s": -5}}}, "wait_s"),
    ({"cards": {"nope": {}}}, "cards.nope"),
    ({"view": {"tab": "two"}}, "view.tab"),
    ({"view": {"zoom": 2}}, "view.zoom"),
    ({"players": {"other": 1}}, "players.other"),
    ({"panel": "serving"}, "panel"),
])
def test_a_bad_state_is_refused_naming_the_field_and_changes_nothing(bad, field):
    model = Demo()
    model.card("area").update({"wait_s": "30"})
    model.set_view("tab", 1)
    before = model.to_json()
    good = {"cards": {"area": {"wait_s": 40}}, "view": {"tab": 3}}
    with pytest.raises(ParamError) as err:
        model.load_json({**good, **bad})
    assert err.value.param == field
    assert model.to_json() == before


def test_signal_connects_once_and_disconnects():
    signal, calls = Signal(), []
    slot = signal.connect(calls.append)
    signal.connect(slot)
    signal.emit(1)
    signal.disconnect(slot)
    signal.emit(2)
    assert calls == [1]
