import numpy as np
import pytest

from core import scaling
from core.registry import ParamError


def test_fit_uses_six_points_and_holds_two_out():
    obs = scaling.c4_observations()
    assert sum(o.split == "fit" for o in obs) == 6 and sum(o.split == "holdout" for o in obs) == 2
    assert all(o.parameters >= 2e9 for o in obs if o.split == "holdout")


def test_fit_reproduces_example_3_5():
    out = scaling.FIT.run()
    assert out["h1_residual"] == pytest.approx(0.009, abs=5e-4)
    assert out["h2_residual"] == pytest.approx(0.026, abs=5e-4)
    assert out["holdout_rmse"] == pytest.approx(0.0193, abs=5e-5)
    assert min(out["E"], out["A"], out["B"]) >= 0


def test_fit_is_the_best_grid_point():
    law, sse = scaling.fit_scaling_law()
    fit = [o for o in scaling.c4_observations() if o.split == "fit"]
    y = np.array([o.loss for o in fit])
    for alpha, beta in ((law.alpha + 0.05, law.beta), (law.alpha, law.beta - 0.05)):
        other = scaling.ScalingLaw(law.E, law.A, law.B, alpha, beta)
        assert np.sum((other.loss([o.parameters for o in fit], [o.tokens for o in fit]) - y) ** 2) >= sse


def test_nonnegative_least_squares_clamps_negative_coefficients():
    X = np.column_stack([np.ones(5), np.arange(5.0)])
    coef, _ = scaling._nonnegative_least_squares(X, 10 - 2 * np.arange(5.0))
    assert coef[1] == 0 and coef[0] == pytest.approx(6.0)


def test_training_intercept_and_serving_slope():
    out = scaling.TRAIN_VS_SERVE.run()
    assert out["small_tokens"] == pytest.approx(298.6e9, rel=5e-4)
    assert out["extra_train_gpu_h"] == pytest.approx(73.5, rel=1e-3)
    # The crossing depends on FLOPs alone: the MFU cancels.
    other = scaling.TRAIN_VS_SERVE.run({"mfu": 0.2})
    assert other["break_even_calls"] == pytest.approx(out["break_even_calls"])


def test_unreachable_loss_names_the_model():
    with pytest.raises(ParamError) as err:
        scaling.TRAIN_VS_SERVE.run({"target_loss": 1.5})
    assert err.value.param == "small_parameters"


def test_lifetime_choice_reverses_at_break_even():
    at = scaling.LIFETIME.run({"tasks": 5e8})
    assert at["small_model_net_gpu_h"] == pytest.approx(0)


def test_grid_max_below_min_is_refused():
    with pytest.raises(ParamError) as err:
        scaling.FIT.run({"grid_min": 0.5, "grid_max": 0.2})
    assert err.value.param == "grid_max"
