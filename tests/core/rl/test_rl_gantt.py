"""core/rl/gantt.py: the RL tab's lanes are the run's own times."""
import numpy as np
import pytest

from core.rl import RLParams, simulate
from core.rl.gantt import figure_of


def test_replica_bars_split_at_the_median_finish_and_the_last_one_is_waited_for():
    run = simulate(RLParams(steps=2, prompts=4, group=4, lengths="lognormal", output_tokens=100, rollout_replicas=2))
    fig = figure_of(run)
    assert fig.lanes == ("r0", "r1", "reference", "update", "sync")
    gen, tail = fig.bars["generate"], fig.bars["tail"]
    for k, roll in enumerate(run.rollouts):
        t0 = run.start["rollout"][k]
        for r in range(2):
            finish = np.sort(t0 + roll.finish_s[roll.replica_of == r])
            i = 2 * k + r  # bars in step order, replicas in order
            assert gen.x0[i] + gen.width[i] == pytest.approx(finish[(finish.size - 1) // 2], rel=1e-12)
            assert tail.x0[i] + tail.width[i] == pytest.approx(finish[-1], rel=1e-12)
        assert fig.waited.x0[k] + fig.waited.width[k] == pytest.approx(run.end["rollout"][k], rel=1e-12)
    assert np.array_equal(fig.sync_ends, run.end["sync"])
    assert fig.status_at(0.0).startswith("已完成 0/2 步")
    assert "2/2 steps done" in fig.status_at(fig.end_s)


def test_colocated_lanes_show_both_switches():
    run = simulate(RLParams(steps=2, placement="colocated", cards=2, switch_s=3.0, prompts=2, group=4,
                            output_tokens=64))
    fig = figure_of(run)
    assert fig.lanes == ("r0", "r1", "switch", "reference", "update")
    assert np.allclose(fig.bars["switch"].width, 3.0) and fig.bars["switch"].x0.size == 4
    assert fig.bars["wait"].x0.size == 0  # one pool: nobody waits on another
