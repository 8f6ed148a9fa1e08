"""core.sweep.search: bracketing then bisection to the stated tolerance."""
import pytest

from core.cancel import Cancelled, CancelToken
from core.sweep.search import MAX_MULTIPLIER, max_multiplier


def threshold(limit, refused_above=None):
    calls = []

    def attains(m):
        calls.append(m)
        if refused_above is not None and m > refused_above:
            return None, None
        return m <= limit, {"m": m}
    return attains, calls


@pytest.mark.parametrize("limit", [0.013, 0.3, 1.0, 1.7, 5.5, 300.0])
@pytest.mark.parametrize("tolerance", [0.01, 0.1])
def test_finds_the_threshold_within_tolerance(limit, tolerance):
    attains, calls = threshold(limit)
    found = max_multiplier(attains, tolerance)
    assert found.found and found.multiplier <= limit  # never a failing rate
    assert found.upper > limit and (found.upper - found.multiplier) / found.multiplier <= tolerance
    assert found.info == {"m": found.multiplier}
    assert found.replays == len(calls) == len(set(calls))
    assert not found.capped


def test_replays_grow_with_log_of_precision():
    few = max_multiplier(threshold(3.3)[0], 0.1).replays
    many = max_multiplier(threshold(3.3)[0], 0.001).replays
    assert few < many <= few + 8


def test_no_rate_passes():
    found = max_multiplier(lambda m: (False, m), 0.05)
    assert not found.found and found.multiplier == 0.0 and found.info is None


def test_always_passing_is_capped_at_the_limit():
    found = max_multiplier(lambda m: (True, m), 0.05)
    assert found.capped and found.multiplier == MAX_MULTIPLIER and found.upper is None


def test_a_rate_too_large_to_replay_caps_the_search():
    attains, _ = threshold(100.0, refused_above=6.0)
    found = max_multiplier(attains, 0.02)
    assert found.capped and found.multiplier <= 6.0 and (6.0 - found.multiplier) / 6.0 <= 0.03


def test_cancel_stops_between_replays():
    token = CancelToken()

    def attains(m):
        token.cancel()
        return True, m
    with pytest.raises(Cancelled):
        max_multiplier(attains, 0.01, token)


def test_a_rate_too_small_to_replay_ends_the_way_down():
    calls = []

    def attains(m):
        calls.append(m)
        return (None, None) if m < 0.1 else (False, m)
    found = max_multiplier(attains, 0.02)
    assert not found.found and not found.capped and calls == [1.0, 0.5, 0.25, 0.125, 0.0625]
