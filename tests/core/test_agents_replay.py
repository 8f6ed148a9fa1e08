"""The measured trajectories replayed through the engine's prefix cache (core/agents/replay.py)."""
import numpy as np
import pytest

from core.agents import replay as ar
from core.agents.trajectory import load_trajectory
from core.registry import ParamError
from core.verify import verify_calculator

ONE = {"copies": 1}


def test_book_value_the_engine_finds_the_measured_hits():
    rows = verify_calculator(ar.REPLAY)
    assert rows and all(r.ok for r in rows)


def test_sessions_follow_the_rule_shared_prefix_is_the_measured_hit():
    t = load_trajectory("thinking_on")
    w = ar.sessions_workload(t, copies=2, stagger_s=3.0)
    s = w.sessions
    assert list(s.shared_prefix_tokens[:4]) == [0, 1392, 1440, 1648]
    assert np.array_equal(w.input_tokens, s.shared_prefix_tokens + s.new_input_tokens)
    assert list(s.session) == [0] * 4 + [1] * 4 and list(w.arrival_s) == [0.0] * 4 + [3.0] * 4
    assert np.isnan(s.think_time_s[0]) and s.think_time_s[1] == 0 and s.tool_wait_s[2] == pytest.approx(0.074244)


@pytest.mark.parametrize("trace", ["thinking_on", "thinking_off"])
def test_engine_cached_tokens_per_round_equal_the_measured(trace):
    out = ar.REPLAY.run({"trace": trace, **ONE})
    fig = out["figure"]
    assert np.array_equal(fig["engine_cached"], fig["measured_cached"])
    assert out["rounds_matching"] == load_trajectory(trace).rounds


def test_without_the_cache_or_with_kv_dropped_during_tools_nothing_is_found():
    assert ar.REPLAY.run({"prefix_caching": False, **ONE})["engine_cached_tokens"] == 0
    dropped = ar.REPLAY.run({"keep_kv_during_tool": False, **ONE})
    assert dropped["engine_cached_tokens"] == 0 and dropped["rounds_matching"] == 1  # only round 0 (0 = 0)


def test_itl_and_goodput_of_many_agents():
    one = ar.REPLAY.run(ONE)
    many = ar.REPLAY.run({"copies": 16, "stagger_s": 0.5})
    assert many["requests"] == 64 and many["engine_cached_tokens"] == 4480
    assert many["itl_median_ms"] > one["itl_median_ms"]  # decodes share steps with others' prefills
    share = many["figure"]["itl"]["share_pct"]
    assert share.sum() == pytest.approx(100)
    strict = ar.REPLAY.run({"copies": 16, "stagger_s": 0.5, "slo_tpot_ms": 1.0})
    assert strict["good_requests"] == 0 and strict["request_goodput"] == 0
    assert many["good_requests"] / many["request_goodput"] == pytest.approx(many["makespan_s"], rel=1e-9)


def test_a_pool_too_small_is_refused_on_the_pool():
    with pytest.raises(ParamError) as err:
        ar.REPLAY.resolve({"kv_pool_bytes": 1e6})
    assert err.value.param == "kv_pool_bytes"


@pytest.mark.parametrize("trace", ["thinking_on", "thinking_off"])
def test_kv_held_during_tools_engine_counts_the_cached_full_blocks(trace):
    """The calculator holds every one of a round's P + G − 1 positions for its tool time;
    the engine keeps what its cache holds: the full 16-token blocks of them."""
    t = load_trajectory(trace)
    positions = t.input_tokens + t.output_tokens - 1
    engine = ar.REPLAY.run({"trace": trace, **ONE})["tool_wait_kv_byte_s"]
    assert engine == pytest.approx(float(np.dot(positions // 16 * 16 * 147456.0, t.tool_s)), rel=1e-9)
    from core.agents.trajectory import TRAJECTORY

    exact = TRAJECTORY.run({"trace": trace})["tool_wait_kv_byte_s"]
    assert engine < exact <= engine + float(np.dot(np.full(t.rounds, 15 * 147456.0), t.tool_s))
