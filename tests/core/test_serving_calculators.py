"""serving.mix, serving.decode_rate, serving.backlog against the book (例题 3-1, 练习 3-2)."""
import numpy as np
import pytest

from core.registry import ParamError, registry
from core.serving import backlog as bl
from core.serving.mix import LONG_INPUT, LONG_OUTPUT, RequestClass
from core.verify import verify_calculator


@pytest.mark.parametrize("name", ["serving.mix", "serving.decode_rate", "serving.backlog"])
def test_every_book_figure_matches(name):
    rows = verify_calculator(registry().get(name))
    assert rows, "each serving calculator carries the book's figures"
    bad = [(r.output, r.params, r.book_value, r.computed) for r in rows if not r.ok]
    assert not bad


def test_mix_three_windows_of_the_book():
    mix = registry().get("serving.mix")
    assert mix.run()["new_input_tokens_per_s"] == pytest.approx(18432)
    assert mix.run({"share_long_input": 0.9})["new_input_tokens_per_s"] == pytest.approx(29900.8)
    assert mix.run({"share_long_input": 0.1})["decode_steps_per_s"] == pytest.approx(7471.2)
    # The first minute asks prefill for 1.6x the uniform mix, the second decode for 1.6x.
    assert 29900.8 / 18432 == pytest.approx(1.622, rel=1e-3)


def test_mean_context_is_the_step_weighted_mean_of_p_plus_j():
    ctx = []
    for cls in (LONG_INPUT, LONG_OUTPUT):
        ctx.extend(cls.input_tokens + j for j in range(cls.output_tokens - 1))
    out = registry().get("serving.mix").run()
    assert out["mean_decode_context_tokens"] == pytest.approx(np.mean(ctx), rel=1e-12)


def test_mix_rejects_zero_rate_and_share_out_of_range():
    mix = registry().get("serving.mix")
    with pytest.raises(ParamError) as err:
        mix.run({"rate_per_s": 0})
    assert err.value.param == "rate_per_s" and "(0, " in str(err.value)
    with pytest.raises(ParamError) as err:
        mix.run({"share_long_input": 1.5})
    assert err.value.param == "share_long_input"


def test_decode_rate_bytes_time_and_rate():
    out = registry().get("serving.decode_rate").run()
    assert out["bytes_per_step"] / 1e9 == pytest.approx(41.02, abs=0.005)
    assert out["step_time_s"] * 1e3 == pytest.approx(22.89, abs=0.005)
    assert round(out["steps_per_s_per_card"]) == 2796
    assert out["steps_per_s"] == pytest.approx(2 * out["steps_per_s_per_card"])


def test_one_rate_per_card_on_every_card():
    # The backlog's μ/卡 (the book's 2,795.66) and the decode card's bound at its defaults were
    # 2,795.66 and 2,795.85 (c̄ 2,741.77): two capacities, 5,591.32 and 5,591.69, on one page.
    from core.serving.decode_rate import BOOK_MEAN_CONTEXT, BOOK_STEPS_PER_S_PER_CARD, context_for_rate

    rate = registry().get("serving.decode_rate").run()
    backlog = registry().get("serving.backlog").run()
    assert rate["steps_per_s_per_card"] == pytest.approx(BOOK_STEPS_PER_S_PER_CARD, rel=1e-8)
    assert rate["steps_per_s"] == pytest.approx(backlog["capacity_steps_per_s"], rel=1e-8)
    assert round(BOOK_MEAN_CONTEXT) == 2742  # the book's "约 2,742"
    assert context_for_rate(rate["steps_per_s_per_card"]) == pytest.approx(BOOK_MEAN_CONTEXT, rel=1e-12)


def test_decode_rate_grows_with_bandwidth_and_shrinks_with_context():
    calc = registry().get("serving.decode_rate")
    base = calc.run()["steps_per_s_per_card"]
    assert calc.run({"bandwidth_bytes_per_s": 3.584e12})["steps_per_s_per_card"] == pytest.approx(2 * base)
    assert calc.run({"mean_context_tokens": 8000})["steps_per_s_per_card"] < base


def test_backlog_example_3_1_exact_and_truncated():
    out = registry().get("serving.backlog").run()
    assert int(out["backlog_at_end_of_arrivals"]) == 112792
    assert out["peak_at_s"] == 120.0
    assert out["drain_s"] == pytest.approx(112792.8 / 5591.32)
    # The sampled curve reaches the same peak at t = 120 s and is empty again after drain.
    t, q = np.array(out["t_s"]), np.array(out["backlog_steps"])
    assert q.max() == pytest.approx(112792.8, rel=1e-9)
    assert t[np.argmax(q)] == pytest.approx(120.0)
    assert q[t >= 120 + out["drain_s"] + 0.1].max() == pytest.approx(0.0, abs=1e-6)
    assert q[t <= 60].max() == pytest.approx(0.0, abs=1e-6)  # first minute: capacity to spare


def test_lindley_matches_the_recursion_step_by_step():
    rng = np.random.default_rng(3)
    arrivals = rng.uniform(0, 10, 500)
    q, expected = bl.lindley(arrivals, 5.0), [0.0]
    for a in arrivals:
        expected.append(max(0.0, expected[-1] + a - 5.0))
    assert np.allclose(q, expected)


@pytest.mark.parametrize("preset, peak, drain", [
    ("uniform", 0.0, 0.0),
    ("shift", 112792.8, 112792.8 / 5591.32),
    ("burst_2cards", 30 * (7471.2 - 5591.32), 30 * (7471.2 - 5591.32) / 5591.32),
    ("burst_3cards", 0.0, 0.0),
])
def test_presets(preset, peak, drain):
    out = registry().get("serving.backlog").run(bl.preset_params(preset))
    assert out["peak_backlog_steps"] == pytest.approx(peak, abs=1e-6)
    assert out["drain_s"] == pytest.approx(drain, abs=1e-9)


def test_backlog_burst_formula_for_other_sizes():
    # (λw − μ)τ and (λw − μ)τ/μ for a 45 s burst on 2 cards.
    out = registry().get("serving.backlog").run({"durations_s": "45", "rates_per_s": "4", "shares_long_input": "0.1"})
    assert out["peak_backlog_steps"] == pytest.approx(45 * (7471.2 - 5591.32))


def test_backlog_bad_input_names_the_field():
    calc = registry().get("serving.backlog")
    with pytest.raises(ParamError) as err:
        calc.run({"rates_per_s": "4"})
    assert err.value.param == "rates_per_s" and "one per window" in str(err.value)
    with pytest.raises(ParamError) as err:
        calc.run({"durations_s": "0,60"})
    assert err.value.param == "durations_s"
    with pytest.raises(ParamError) as err:
        calc.run({"steps_per_s_per_card": "-1"})
    assert err.value.param == "steps_per_s_per_card"


def test_request_class_decode_context_sum():
    cls = RequestClass("x", 10, 4)  # contexts 10, 11, 12
    assert cls.decode_context_sum == 33


@pytest.mark.parametrize("mu", [0.01, 0.1, 1.5, 1e-6])
def test_backlog_drain_work_is_bounded_for_slow_cards(mu):
    # The range bounds the arrivals; the drain after them is a line in closed form, so a
    # drain of years costs no more samples than one of seconds.
    out = registry().get("serving.backlog").run({"steps_per_s_per_card": mu})
    assert len(out["t_s"]) < 2000
    assert out["drain_s"] == pytest.approx(out["backlog_at_end_of_arrivals"] / (2 * mu))
    t, q = np.array(out["t_s"]), np.array(out["backlog_steps"])
    assert q.max() == pytest.approx(out["peak_backlog_steps"])
    assert np.interp(120 + out["drain_s"] / 2, t, q) == pytest.approx(out["backlog_at_end_of_arrivals"] / 2)
    assert q[-1] == 0 and t[-1] > 120 + out["drain_s"]


def test_backlog_many_windows_in_bounded_memory():
    n = 1000
    out = registry().get("serving.backlog").run({"durations_s": ",".join(["1e4"] * n), "rates_per_s": ",".join(["1"] * n),
                                                 "shares_long_input": ",".join(["0.5"] * n), "dt_s": "60"})
    assert len(out["t_s"]) < 200_000
