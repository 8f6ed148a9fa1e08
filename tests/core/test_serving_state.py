"""ServingState (the Serving panel's state in core) and core.serving.figures: B follows A,
the preset picker and the backlog card agree, JSON round trip, figures carry what views
draw, replays cancel."""
import numpy as np
import pytest

from core.cancel import CancelToken, Cancelled
from core.registry import ParamError, get
from core.serving import figures as F
from core.serving import replay as rp
from core.serving.state import B_SHARES, ServingState


def test_state_opens_on_the_book():
    s = ServingState()
    assert s.replay("A").inputs["shares_long_input"] == (0.5, 0.5)
    assert s.replay("B").inputs["shares_long_input"] == B_SHARES
    assert s.replay("A").deferred and s.replay("A").result is None
    assert s.view("backlog_preset") == "shift" and s.view("band") is False
    assert s.player("replay") == 0.0


def test_b_follows_a_but_for_its_shares():
    s = ServingState()
    events = []
    s.changed.connect(lambda path, value: events.append(path))
    s.replay("A").update({"max_num_seqs": "32"})
    assert s.replay("B").inputs["max_num_seqs"] == 32
    assert s.replay("B").inputs["shares_long_input"] == B_SHARES
    assert events.count("cards.replay_a") == 1 and events.count("cards.replay_b") == 1
    # Three windows for A: B's two shares no longer fit, and B says so on its shares.
    s.replay("A").update({"durations_s": "40,40,40", "rates_per_s": "4,4,4", "shares_long_input": "0.5,0.5,0.5"})
    assert "shares_long_input" in s.replay("B").errors
    s.replay("B").update({"shares_long_input": "0.9,0.5,0.1"})
    assert not s.replay("B").errors and s.replay("B").inputs["durations_s"] == (40.0, 40.0, 40.0)


def test_preset_picker_and_backlog_card_agree():
    s = ServingState()
    s.set_view("backlog_preset", "burst_2cards")
    assert s.card("backlog").result["peak_backlog_steps"] == pytest.approx(56396.4)
    s.card("backlog").update({"cards": 5})
    assert s.view("backlog_preset") == ""
    s.card("backlog").update({"cards": 3})
    assert s.view("backlog_preset") == "burst_3cards"
    with pytest.raises(ParamError) as err:
        s.set_view("backlog_preset", "nope")
    assert err.value.param == "view.backlog_preset"


def test_json_round_trip_and_reset():
    s = ServingState()
    s.card("mix").update({"rate_per_s": 5})
    s.replay("A").update({"max_num_seqs": 32})
    s.set_view("band", True)
    s.set_player("replay", 12.5)
    data = s.to_json()
    other = ServingState()
    other.load_json(data)
    assert other.to_json() == data
    assert other.replay("B").inputs["max_num_seqs"] == 32
    other.reset()
    assert other.to_json() == ServingState().to_json()
    with pytest.raises(ParamError):
        other.load_json({"cards": {"mix": {"rate_per_s": -1}}})
    assert other.to_json() == ServingState().to_json()  # a bad state changes nothing


def test_banner_figure_from_the_cards():
    s = ServingState()
    fig = F.banner_figure(s.card("mix").inputs, s.card("rate").inputs, s.card("rate").result)
    capacity = get("serving.decode_rate").run()["steps_per_s"]
    assert fig["capacity"] == capacity
    expected = [get("serving.mix").run({"share_long_input": x})["decode_steps_per_s"] / capacity * 100
                for x in (0.5, 0.9, 0.1)]
    assert np.allclose(fig["pct"], expected)
    assert np.allclose(fig["under"] + fig["over"], fig["pct"])
    assert "5,591" in fig["capacity_text"]  # the backlog card's capacity too
    assert "后一分钟 1:9" in F.banner_status(fig, 150.0)


def test_replay_side_and_table_carry_the_book():
    s = ServingState()
    a = F.replay_side(s.replay("A").inputs)
    fig = a["figure"]
    assert a["requests"] == 480 and fig.scenario == "uniform"
    assert fig.disp_t.size <= F.DISPLAY_POINTS + 2 and fig.gantt_codes.shape == (480, F.GANTT_BINS)
    table = F.compare_rows({"A": fig, "B": None})
    row = F.COMPARE_ROWS.index("decode_bound_s")
    assert table["cells"]["A"][row][1] == rp.REPLAY.format_output("decode_bound_s", 197.6)
    assert rp.book_decode_bound_s() == 197.6
    frame = F.replay_frame(fig, 100.0)
    assert frame["k"] == np.searchsorted(fig.disp_t, 100.0, side="right")
    assert frame["done"] == np.count_nonzero(fig.first_token_by_ttft <= 100.0)


def test_decimation_keeps_the_peaks():
    t = np.arange(100_000, dtype=float)
    y = np.zeros_like(t)
    y[54_321] = 7.0
    dt, dy = F._decimate(t, y)
    assert dt.size <= F.DISPLAY_POINTS + 2 and dy.max() == 7.0 and dt[-1] == t[-1]


def test_a_cancelled_replay_stops():
    token = CancelToken()
    token.cancel()
    values = get("serving.replay").resolve()
    with pytest.raises(Cancelled):
        F.replay_side(values, cancel=token)
    with pytest.raises(Cancelled):
        rp.band(values, range(2), cancel=token)
