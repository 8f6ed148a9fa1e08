import numpy as np
import pytest

from core.registry import ParamError
from core.scaling import budgets
from core.scaling import law as scaling_law


def test_fit_uses_six_points_and_holds_two_out():
    obs = scaling_law.c4_observations()
    assert sum(o.split == "fit" for o in obs) == 6 and sum(o.split == "holdout" for o in obs) == 2
    assert all(o.parameters >= 2e9 for o in obs if o.split == "holdout")


def test_fit_reproduces_example_3_5():
    out = scaling_law.FIT.run()
    assert out["h1_residual"] == pytest.approx(0.009, abs=5e-4)
    assert out["h2_residual"] == pytest.approx(0.026, abs=5e-4)
    assert out["holdout_rmse"] == pytest.approx(0.0193, abs=5e-5)
    assert min(out["E"], out["A"], out["B"]) >= 0


def test_fit_is_the_best_grid_point():
    law, sse = scaling_law.fit_scaling_law()
    fit = [o for o in scaling_law.c4_observations() if o.split == "fit"]
    y = np.array([o.loss for o in fit])
    for alpha, beta in ((law.alpha + 0.05, law.beta), (law.alpha, law.beta - 0.05)):
        other = scaling_law.ScalingLaw(law.E, law.A, law.B, alpha, beta)
        assert np.sum((other.loss([o.parameters for o in fit], [o.tokens for o in fit]) - y) ** 2) >= sse


def test_nonnegative_least_squares_clamps_negative_coefficients():
    X = np.column_stack([np.ones(5), np.arange(5.0)])
    coef, _ = scaling_law._nonnegative_least_squares(X, 10 - 2 * np.arange(5.0))
    assert coef[1] == 0 and coef[0] == pytest.approx(6.0)


def test_training_intercept_and_serving_slope():
    out = budgets.TRAIN_VS_SERVE.run()
    assert out["small_tokens"] == pytest.approx(298.6e9, rel=5e-4)
    assert out["extra_train_gpu_h"] == pytest.approx(73.5, rel=1e-3)
    # The crossing depends on FLOPs alone: the MFU cancels.
    other = budgets.TRAIN_VS_SERVE.run({"mfu": 0.2})
    assert other["break_even_calls"] == pytest.approx(out["break_even_calls"])


def test_unreachable_loss_names_the_model():
    with pytest.raises(ParamError) as err:
        budgets.TRAIN_VS_SERVE.run({"target_loss": 1.5})
    assert err.value.param == "small_parameters"


def test_lifetime_choice_reverses_at_break_even():
    at = budgets.LIFETIME.run({"tasks": 5e8})
    assert at["small_model_net_gpu_h"] == pytest.approx(0)


def test_grid_max_below_min_is_refused():
    with pytest.raises(ParamError) as err:
        scaling_law.FIT.run({"grid_min": 0.5, "grid_max": 0.2})
    assert err.value.param == "grid_max"


def test_fit_grid_is_bounded_by_a_range_derived_from_the_grid():
    with pytest.raises(ParamError, match="grid_step") as err:
        scaling_law.FIT.resolve({"grid_min": 0.01, "grid_max": 2.0, "grid_step": 0.005})
    assert "0.0199" in str(err.value)
    assert scaling_law.FIT.run({"grid_step": 0.005})["alpha"] == pytest.approx(0.1)  # 101 x 101 on the book's range


def test_vectorised_fit_matches_one_problem_at_a_time():
    fit = [o for o in scaling_law.c4_observations() if o.split == "fit"]
    n = np.array([o.parameters for o in fit]) / scaling_law.N_SCALE
    d = np.array([o.tokens for o in fit]) / scaling_law.D_SCALE
    y = np.array([o.loss for o in fit])
    law, sse = scaling_law.fit_scaling_law(0.2, 0.5, 0.1)
    best = None
    for alpha in (0.2, 0.3, 0.4, 0.5):
        for beta in (0.2, 0.3, 0.4, 0.5):
            coef, s = scaling_law._nonnegative_least_squares(np.column_stack([np.ones_like(n), n**-alpha, d**-beta]), y)
            if best is None or s < best[0]:
                best = (s, alpha, beta, coef)
    assert (law.alpha, law.beta) == (best[1], best[2])
    assert sse == pytest.approx(best[0], rel=1e-9)
    assert [law.E, law.A, law.B] == pytest.approx(list(best[3]), rel=1e-9)


def test_no_break_even_when_the_small_model_trains_for_less():
    out = budgets.TRAIN_VS_SERVE.run({"target_loss": 9.1})
    assert out["extra_train_gpu_h"] < 0 and out["call_saving_gpu_s"] > 0
    assert out["break_even_calls"] is None


def test_train_vs_serve_refuses_what_has_no_meaning():
    with pytest.raises(ParamError, match="small_parameters"):
        budgets.TRAIN_VS_SERVE.resolve({"small_parameters": 6e8})  # not smaller than the large one
    with pytest.raises(ParamError, match="target_loss"):
        budgets.TRAIN_VS_SERVE.resolve({"target_loss": 1.0})  # below the irreducible loss
    with pytest.raises(ParamError, match="small_parameters") as err:
        budgets.TRAIN_VS_SERVE.run({"small_parameters": 1e6})
    assert "valid: > 4.98" in str(err.value)
    for field in ("mfu",):
        with pytest.raises(ParamError, match=field):
            budgets.TRAIN_VS_SERVE.resolve({field: 1e-308})


def test_lifetime_refuses_a_saving_that_makes_break_even_infinite():
    with pytest.raises(ParamError, match="saving_per_task_gpu_s"):
        budgets.LIFETIME.resolve({"saving_per_task_gpu_s": 1e-308})
    out = budgets.LIFETIME.run({"saving_per_task_gpu_s": budgets.MIN_SAVING_PER_TASK_GPU_S, "extra_train_gpu_h": 1e12})
    assert np.isfinite(out["break_even_tasks"])
