"""ITL statistics without the per-step arrays (core/serving/gap_runs.py): on small replays,
forced onto the closed-form path, the percentiles equal the expanded list's bit for bit
and the mean and std agree to rounding; the default path is the expansion itself."""
import numpy as np
import pytest

from core.serving import gap_runs
from core.serving import replay as rp
from core.serving import vllm_metrics as vm
from core.serving.gap_runs import Gaps, gap_stats, percentile


def _replay(duration, rate):
    values = rp.REPLAY.resolve({"durations_s": duration, "rates_per_s": rate, "shares_long_input": "0.5"})
    return rp.run_replay(values)


def _reference(gaps: Gaps) -> dict:
    values, weights = gaps.expanded()
    expanded = np.repeat(values, weights)
    return {"mean": np.mean(expanded), "median": np.percentile(expanded, 50), "std": np.std(expanded),
            "p90": np.percentile(expanded, 90), "p99": np.percentile(expanded, 99)}


@pytest.mark.parametrize("duration,rate", [("20", "3"), ("60", "5"), ("30", "8")])
def test_closed_form_itl_stats_equal_the_expanded_list(monkeypatch, duration, rate):
    result, work, config = _replay(duration, rate)
    gaps = vm.itl_gaps(result, config.cost)
    assert gaps.steps.size > 0 and gaps.after.size > 0  # runs and recompute gaps both
    default = vm.bench_metrics(result, work, cost=config.cost)
    monkeypatch.setattr(gap_runs, "EXPAND_MAX", 0)
    forced = vm.bench_metrics(result, work, cost=config.cost)
    ref = _reference(gaps)
    for stat in ("median", "p90", "p99"):
        assert forced[f"{stat}_itl_ms"] == default[f"{stat}_itl_ms"]  # the same elements, bit for bit
        assert forced[f"{stat}_itl_ms"] == pytest.approx(ref[stat] * 1e3, rel=1e-13)
    for stat in ("mean", "std"):
        assert forced[f"{stat}_itl_ms"] == pytest.approx(default[f"{stat}_itl_ms"], rel=1e-12)
        assert forced[f"{stat}_itl_ms"] == pytest.approx(ref[stat] * 1e3, rel=1e-12)
    for name in ("ttft", "tpot", "e2el"):
        for stat in ("median", "p90", "p99"):
            assert forced[f"{stat}_{name}_ms"] == default[f"{stat}_{name}_ms"]


def _synthetic(seed):
    """Rising, falling, flat and sub-ulp-slope runs with ties among explicit gaps."""
    rng = np.random.default_rng(seed)
    runs = 40
    first = rng.uniform(0.01, 0.05, runs)
    slope = rng.choice([0.0, 1e-6, -1e-6, 1e-21, 7e-18, -5e-18, 3e-5], runs)
    steps = rng.integers(1, 300, runs)
    rows = rng.integers(1, 6, runs)
    values = np.round(rng.uniform(0.01, 0.05, 50), 3)
    weights = rng.integers(0, 4, 50)
    return Gaps(values, weights, first, slope, steps, rows).then([0.02, 0.5], [1, 2])


@pytest.mark.parametrize("seed", range(6))
def test_percentiles_of_mixed_runs_pick_the_expansions_elements(monkeypatch, seed):
    monkeypatch.setattr(gap_runs, "EXPAND_MAX", 0)
    gaps = _synthetic(seed)
    values, weights = gaps.expanded()
    expanded = np.repeat(values, weights)
    for q in (0, 1, 10, 25, 50, 75, 90, 99, 99.9, 100):
        assert percentile(gaps, q) == np.percentile(expanded, q), q
    stats = gap_stats(gaps, vm.weighted_stats, vm.PERCENTILES)
    assert stats["mean"] == pytest.approx(np.mean(expanded), rel=1e-12)
    assert stats["std"] == pytest.approx(np.std(expanded), rel=1e-9)
    assert gaps.count == expanded.size
    assert gaps.total() == pytest.approx(float(np.sum(expanded)), rel=1e-12)


def test_no_gaps_give_zeros_as_vllm():
    empty = Gaps.explicit(np.zeros(0), np.zeros(0, np.int64))
    assert gap_stats(empty, vm.weighted_stats, vm.PERCENTILES) == {s: 0.0 for s in vm.STATS}
    assert percentile(empty, 50) == 0.0
