"""§3.3.2 the speech frame loop: three different speeds."""
import pytest

from core.registry import ParamError, get


def test_fast_forwards_per_frame_is_the_books_ten():
    out = get("audio.frames").run()
    assert out["fast_forwards_per_frame"] == 10  # 1 set-up + 9 codebook predictions
    assert out["codebook_tokens_per_frame"] == 10


def test_speeds_follow_step_times():
    base = get("audio.frames").run({"slow_step_ms": 10, "fast_forward_ms": 1})
    assert base["frame_time_s"] == pytest.approx(0.020)
    assert base["frames_per_s"] == pytest.approx(50)
    assert base["fast_forwards_per_s"] == pytest.approx(500)
    assert base["audio_s_per_s"] == pytest.approx(50 / 21.5)
    # Doubling the fast path's work per frame slows every speed, not just one.
    more = get("audio.frames").run({"slow_step_ms": 10, "fast_forward_ms": 1, "codebook_predictions": 19})
    assert more["frames_per_s"] == pytest.approx(1 / 0.030)
    assert more["codebook_tokens_per_s"] == pytest.approx(20 / 0.030)


def test_zero_step_time_is_refused():
    with pytest.raises(ParamError) as err:
        get("audio.frames").run({"slow_step_ms": 0})
    assert err.value.param == "slow_step_ms"


@pytest.mark.parametrize("overrides, field", [
    ({"slow_step_ms": 5e-324, "fast_forward_ms": 0}, "slow_step_ms"),  # was ZeroDivisionError
    ({"frames_per_audio_s": 5e-324}, "frames_per_audio_s"),  # was inf
])
def test_tiny_times_and_rates_are_refused_with_their_range(overrides, field):
    with pytest.raises(ParamError) as err:
        get("audio.frames").run(overrides)
    assert err.value.param == field and "valid" in err.value.message


def test_smallest_allowed_values_give_finite_speeds():
    import math

    out = get("audio.frames").run({"slow_step_ms": 0.001, "fast_forward_ms": 0, "frames_per_audio_s": 0.1,
                                   "text_tokens_per_audio_s": 1000})
    assert all(math.isfinite(v) for v in out.values() if isinstance(v, float))
