"""rl.* calculators: 例题 3-4, 练习 3-7, 图 3-24, advantages and loss averaging."""
import numpy as np
import pytest

from core.registry import ParamError, get
from core.training.model import shape
from core.training.rl.pipeline import pipeline_schedule
from core.verify import verify_calculator


@pytest.mark.parametrize("name", ["rl.cycle", "rl.marginal", "rl.pipeline", "rl.advantage", "rl.loss_mean"])
def test_every_book_row_matches(name):
    rows = verify_calculator(get(name))
    assert rows
    assert all(r.ok for r in rows), [(r.output, r.book_value, r.computed) for r in rows if not r.ok]


def test_cycle_is_linear_in_generated_samples():
    c = get("rl.cycle")
    f16, f32, f64 = (c.run({"n_generate": n})["cycle_flops"] for n in (16, 32, 64))
    per = c.run()["gen_plus_ref_flops_per_answer"]
    assert f32 - f16 == pytest.approx(16 * per)
    assert f64 - f32 == pytest.approx(32 * per)
    half = c.run({"keep_ratio": 0.5})
    assert half["n_generate"] == 32 and half["cycle_flops"] == pytest.approx(f32)
    # The update does not change with the keep ratio; only generation and reference grow.
    assert half["update_flops"] == c.run()["update_flops"]


def test_reference_is_teacher_forcing_over_p_plus_g_minus_1():
    out = get("rl.cycle").run()
    s = shape("qwen3-8b")
    assert out["ref_flops_per_answer"] == pytest.approx(s.teacher_forcing_forward_flops(1279))
    assert out["update_flops"] == pytest.approx(16 * 3 * out["ref_flops_per_answer"])
    # Generation pays the lm_head on one row per step, teacher forcing on all rows:
    # with the same tokens, generation is the cheaper of the two.
    assert out["gen_flops_per_answer"] < out["ref_flops_per_answer"]


def test_keep_ratio_zero_and_too_few_generated_name_the_field():
    with pytest.raises(ParamError) as err:
        get("rl.cycle").run({"keep_ratio": 0})
    assert err.value.param == "keep_ratio"
    with pytest.raises(ParamError) as err:
        get("rl.cycle").run({"n_generate": 8})
    assert err.value.param == "n_generate"
    with pytest.raises(ParamError) as err:
        get("rl.cycle").run({"output_tokens": 0})
    assert err.value.param == "output_tokens"


def test_marginal_recovers_slope_and_intercept():
    m = get("rl.marginal").run()
    c = get("rl.cycle").run()
    assert m["per_sample_flops"] == pytest.approx(c["gen_plus_ref_flops_per_answer"])
    assert m["fixed_update_flops"] == pytest.approx(c["update_flops"])
    assert m["predicted_cycle_flops"] == pytest.approx(get("rl.cycle").run({"n_generate": 48})["cycle_flops"])
    with pytest.raises(ParamError) as err:
        get("rl.marginal").run({"n_high": 32})
    assert err.value.param == "n_high"


def test_pipeline_sync_is_a_chain_and_async_overlaps():
    sync = pipeline_schedule("synchronous", 4, 6, 1, 1.5, 4, 0.5)
    asyn = pipeline_schedule("asynchronous", 4, 6, 1, 1.5, 4, 0.5, max_staleness=1)
    # Synchronous: generation of k+1 starts when the weights of update k are synced.
    assert np.allclose(sync.start_s["rollout"][1:], sync.end_s["sync"][:-1])
    assert sync.staleness.max() == 0
    # Asynchronous: generation overlaps the update; the data is one update old at most.
    assert asyn.start_s["rollout"][1] < asyn.end_s["update"][0]
    assert asyn.total_s < sync.total_s
    assert asyn.staleness.max() <= 1
    for k in range(4):  # every consumer starts after its producer
        assert asyn.start_s["reward"][k] >= asyn.end_s["rollout"][k]
        assert asyn.start_s["update"][k] >= max(asyn.end_s["reward"][k], asyn.end_s["reference"][k])
        assert asyn.start_s["sync"][k] >= asyn.end_s["update"][k]


def test_pipeline_slow_role_sets_the_async_pace():
    out = get("rl.pipeline").run({"batches": 20, "update_s": 9})
    assert out["async_per_batch_s"] == pytest.approx(9.0)  # the update, the slowest role
    assert out["sync_per_batch_s"] == 6 + 1.5 + 9 + 0.5


def test_equal_rewards_give_zero_advantage():
    mixed = get("rl.advantage").run({"rewards": "1,0,1,1"})
    assert mixed["advantages"] == pytest.approx([0.25, -0.75, 0.25, 0.25])
    assert mixed["zero_signal"] == 0
    same = get("rl.advantage").run({"rewards": "1,1,1,1", "scale_by_std": "true"})
    assert same["advantages"] == [0.0] * 4 and same["zero_signal"] == 1


def test_loss_mean_weights_small_micro_batches_more():
    out = get("rl.loss_mean").run({"token_counts": "10,10", "mean_losses": "2,4"})
    assert out["token_mean"] == out["mean_of_means"] == 3.0  # equal counts: the two agree
    skew = get("rl.loss_mean").run({"token_counts": "990,10", "mean_losses": "1,5"})
    assert skew["token_mean"] == pytest.approx((990 + 50) / 1000)
    assert skew["mean_of_means"] == 3.0
    assert skew["max_weight_ratio"] == pytest.approx(99.0)


@pytest.mark.parametrize("params,field", [
    ({"token_counts": "10,0", "mean_losses": "1,2"}, "token_counts"),
    ({"token_counts": "10,20", "mean_losses": "1"}, "mean_losses"),
])
def test_loss_mean_bad_input(params, field):
    with pytest.raises(ParamError) as err:
        get("rl.loss_mean").run(params)
    assert err.value.param == field


def test_keep_ratio_range_follows_from_the_most_answers_generated():
    calc = get("rl.cycle")
    with pytest.raises(ParamError, match="keep_ratio") as err:
        calc.resolve({"keep_ratio": 1e-308})
    assert "1.6e-06" in str(err.value)
    assert calc.run({"keep_ratio": 1.6e-6})["n_generate"] == 10_000_000
    assert calc.run({"keep_ratio": 1e-308, "n_generate": 64})["n_generate"] == 64  # explicit count wins


def test_async_weight_versions_are_the_syncs_done_when_generation_starts():
    s = pipeline_schedule("asynchronous", 300, 1.0, 0.5, 2.0, 3.0, 0.7, max_staleness=3)
    for k in range(s.batches):
        t0 = s.start_s["rollout"][k]
        assert s.weight_version[k] == sum(s.end_s["sync"][j] <= t0 for j in range(k))


def test_cycle_curve_is_bounded_however_many_answers():
    from core.training.rl.cycle import cycle_curve

    small = cycle_curve("qwen3-8b", 1024, 256, 16, 128)
    assert small["n_generate"].tolist() == list(range(16, 129))
    big = cycle_curve("qwen3-8b", 1024, 256, 16, 12_500_000)
    assert big["n_generate"].size <= 1025
    assert big["n_generate"][0] == 16 and big["n_generate"][-1] == 12_500_000
