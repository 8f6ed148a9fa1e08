"""The Request, Agents and Scaling state models and their figure functions, in pure core:
JSON out and back, a bad file refused without changing anything, one event per real change."""
import json

import numpy as np
import pytest

from core.agents import figures as agents_figures
from core.agents.state import AgentsState
from core.registry import ParamError
from core.request import calculator as request
from core.request import figures as request_figures
from core.request.state import RequestState
from core.scaling import figures as scaling_figures
from core.scaling.state import ScalingState

STATES = (RequestState, AgentsState, ScalingState)
# One real edit per model: (card slot, field, new value).
EDITS = {RequestState: ("area", "wait_s", 30.0), AgentsState: ("path", "tool_b_s", 4.0),
         ScalingState: ("serve", "target_loss", 3.2)}


@pytest.mark.parametrize("cls", STATES, ids=lambda c: c.__name__)
def test_json_round_trip_restores_every_value(cls):
    state = cls()
    slot, name, value = EDITS[cls]
    state.card(slot).update({name: value})
    for view, default in cls.VIEW.items():
        state.set_view(view, default * 2 if isinstance(default, float) else default)
    for player in cls.PLAYERS:
        state.set_player(player, 17)
    saved = json.loads(json.dumps(state.to_json()))
    assert saved["panel"] == cls.key and saved["cards"][slot] == {name: value}

    other = cls()
    other.load_json(saved)
    assert other.to_json() == saved
    assert other.card(slot).inputs[name] == value
    assert other.card(slot).result == state.card(slot).result


@pytest.mark.parametrize("cls", STATES, ids=lambda c: c.__name__)
def test_a_bad_file_changes_nothing(cls):
    state = cls()
    slot, name, value = EDITS[cls]
    state.card(slot).update({name: value})
    before = state.to_json()
    events = []
    state.changed.connect(lambda path, _: events.append(path))
    bad = json.loads(json.dumps(before))
    other_slot = next(s for s in state.cards if s != slot)
    bad["cards"][other_slot] = {next(iter(state.card(other_slot).inputs)): "-1e999"}
    bad["cards"][slot] = {}  # would reset the edited card if applied
    with pytest.raises(ParamError):
        state.load_json(bad)
    with pytest.raises(ParamError, match="panel"):
        state.load_json({**before, "panel": "vision"})
    with pytest.raises(ParamError, match="cards.nope"):
        state.load_json({**before, "cards": {"nope": {}}})
    assert state.to_json() == before and events == []


@pytest.mark.parametrize("cls", STATES, ids=lambda c: c.__name__)
def test_one_event_per_real_change_and_reset_goes_back_to_the_book(cls):
    state = cls()
    book = state.to_json()
    events = []
    state.changed.connect(lambda path, _: events.append(path))
    slot, name, value = EDITS[cls]
    state.card(slot).update({name: value})
    state.card(slot).update({name: value})  # same value: no event
    assert events == [f"cards.{slot}"]
    state.reset()
    assert state.to_json() == book
    assert events == [f"cards.{slot}"] * 2  # only the card that had moved


def test_request_player_and_view_events():
    state = RequestState()
    events = []
    state.changed.connect(lambda path, value: events.append((path, value)))
    state.set_player("steps", 40)
    state.set_player("steps", 40.0)
    state.set_view("step_speed", 1000)
    state.set_view("step_speed", 1000.0)
    assert events == [("player.steps", 40.0), ("view.step_speed", 1000.0)]
    with pytest.raises(ParamError, match="player.steps"):
        state.set_player("steps", -1)
    with pytest.raises(ParamError, match="view.step_speed"):
        state.set_view("step_speed", "fast")


def test_anatomy_figure_one_point_per_step_then_evenly_spaced():
    inputs = request.ANATOMY.resolve({"output_tokens": 257})
    fig = request_figures.anatomy_figure(inputs)
    assert fig["steps"].size == 256 and fig["contexts"][0] == 1024 and fig["contexts"][-1] == 1024 + 255
    assert np.array_equal(fig["contexts"], request.decode_contexts(0, 1024, 257))
    assert fig["duration"] == 256
    fill_x, fill_y = fig["fill"]  # the area under the line, from its two ends
    assert list(fill_x) == [1, 256] and list(fill_y) == [1024, 1024 + 255]
    big = request_figures.anatomy_figure(request.ANATOMY.resolve({"output_tokens": 1_000_000}))
    assert big["steps"].size == request_figures.MAX_DRAWN_STEPS
    assert big["steps"][0] == 1 and big["steps"][-1] == 999_999 and np.all(np.diff(big["steps"]) > 0)
    assert big["contexts"][-1] == 1024 + 999_998  # S + P + j at the last step, j = G - 2


def test_anatomy_cursor_clamps_to_the_last_step():
    inputs = request.ANATOMY.resolve({"output_tokens": 10})
    assert request_figures.anatomy_cursor(inputs, 3)["x"] == 4
    assert request_figures.anatomy_cursor(inputs, 500)["x"] == 9
    one = request_figures.anatomy_cursor(request.ANATOMY.resolve({"output_tokens": 1}), 0)
    assert "no decode step" in one["text"]


def test_split_figure_compares_one_and_n_requests():
    state = RequestState()
    card = state.card("split")
    card.update({"requests": 4})
    fig = request_figures.split_figure(card.result_inputs, card.result)
    assert fig["many"] == [4, 1020, 256] and fig["one"] == [1, 1023, 1024]


def test_timeline_marks_at_most_max_token_ticks():
    state = RequestState()
    card = state.card("timeline")
    card.update({"output_tokens": 5_000_000})
    fig = request_figures.timeline_figure(card.result_inputs, card.result)
    times, _ = fig["tokens"]
    assert times.size == request_figures.MAX_TOKEN_TICKS
    assert times[-1] == pytest.approx(card.result["t_request_s"])


def test_agents_and_scaling_figures_follow_their_results():
    state = AgentsState()
    card = state.card("path")
    fig = agents_figures.path_figure(card.result_inputs, card.result)
    assert fig["lanes"]["serial"]["held"][1] == 18  # 2 + 6 + 10
    assert max(fig["lanes"]["parallel"]["model"]["x1"]) == card.result["parallel_s"]
    assert agents_figures.edit_position_of(1200.4) == 1201
    branches = state.card("branches")
    fig = agents_figures.branch_figure(branches.result_inputs, branches.result)
    assert [a + b for a, b in zip(fig["base"], fig["branches"])] == pytest.approx(fig["totals"])

    scaling = ScalingState()
    serve = scaling.card("serve")
    fig = scaling_figures.serve_figure(serve.result_inputs, serve.result)
    assert fig["cross_m"] == pytest.approx(serve.result["break_even_calls"] / 1e6)
    tokens = scaling.card("tokens")
    tokens.update({"tokens": 160e9})
    assert 10 ** scaling_figures.table_figure(tokens.result_inputs, tokens.result)["log10_ratio"][-1] == pytest.approx(20)
