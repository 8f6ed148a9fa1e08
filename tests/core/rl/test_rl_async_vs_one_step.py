"""Why async with η = 1 can come out slower than one_step (issue 16's "noticed"), pinned on
constructed cases: the scheduler waits nowhere it need not; the whole difference is the
start, where the bound lets batches 0 and 1 in at once (neither waits for a sync), so batch
0 shares the engine with batch 1 and the first update starts later. core/rl/loop.py says
why that is AReaL's rule, not a modelling slip."""
import numpy as np
import pytest

from core.rl import RLParams, simulate, summarize

BOOK = dict(prompts=2, group=16, prompt_tokens=1024, output_tokens=256, keep_ratio=0.5)


def pair(**kw):
    return (simulate(RLParams(mode="one_step", staleness=1, **kw)),
            simulate(RLParams(mode="async", staleness=1, **kw)))


def test_trainer_bound_async_eta_1_loses_only_batch_0s_shared_start():
    # Fixed lengths, a slow trainer (A = reference + update > R): both modes are chained on
    # the trainer, one step a reference + update + sync (the sync's wait for the pool is 0
    # since the pool's batch ends first).
    kw = dict(steps=6, rollout_replicas=1, mfu=0.05, **BOOK)
    one, asyn = pair(**kw)
    R = one.end["rollout"][0] - one.start["rollout"][0]
    A = one.end["update"][0] - one.start["reference"][0]
    S = one.end["sync"][0] - one.start["sync"][0]
    assert A > R
    for run in (one, asyn):
        assert np.diff(run.end["sync"]) == pytest.approx(np.full(5, A + S), rel=1e-9)
    # Batch 1 needs no sync under η = 1, so async submits it at 0 beside batch 0 ...
    assert asyn.start["rollout"][1] == 0.0 and one.start["rollout"][1] == pytest.approx(R, rel=1e-12)
    # ... and batch 0 ends later than it does alone (one_step's batch 0 runs alone) ...
    late = asyn.end["rollout"][0] - one.end["rollout"][0]
    assert late > 0.0
    # ... which shifts the whole trainer chain by that much and no more: every sync ends
    # exactly `late` after one_step's, with the same versions and staleness.
    assert asyn.end["sync"] - one.end["sync"] == pytest.approx(np.full(6, late), rel=1e-9)
    assert list(asyn.version) == list(one.version) == [0, 0, 1, 2, 3, 4]
    assert asyn.staleness.max() == one.staleness.max() == 1
    # Per step the start cost fades as late / steps: K steps run K (A + S) + R + late + ...
    s_one, s_asyn = summarize(one), summarize(asyn)
    assert (s_asyn["step_time_s"] - s_one["step_time_s"]) * 6 == pytest.approx(late, rel=1e-9)


def test_every_async_gate_is_one_of_one_steps_gates():
    # The scheduler waits nowhere one_step does not: batch k is submitted at the end of sync
    # k − 2 (η = 1, the same version bound, batch k generated with v_{k−1}), never at the
    # pool's end of batch k − 1; and a sync never waits for the pool (one_step's sync waits
    # for the batch the pool is running).
    kw = dict(steps=6, rollout_replicas=1, mfu=0.4, **BOOK)  # rollout-bound: R > A
    one, asyn = pair(**kw)
    joined = 0
    for k in range(2, 6):
        gate, t0 = asyn.end["sync"][k - 2], asyn.start["rollout"][k]
        if asyn.end["rollout"][k - 1] <= gate:  # the engine drained: a fresh one starts at the gate
            assert t0 == pytest.approx(gate, rel=1e-12)
        else:  # taken at the running engine's next step boundary, inside batch k − 1's tail
            assert gate <= t0 < asyn.end["rollout"][k - 1]
            joined += 1
        assert one.start["rollout"][k] == max(one.end["rollout"][k - 1], one.end["sync"][k - 2])
    assert np.array_equal(asyn.start["sync"], asyn.end["update"])  # the sync waits for no batch
    assert (one.start["sync"][:-1] > one.end["update"][:-1]).all()  # R − A a step
    assert joined > 0
    # Rollout-bound, the waits one_step has and async lacks win.
    assert summarize(asyn)["step_time_s"] < summarize(one)["step_time_s"]
    assert list(asyn.version) == list(one.version) and asyn.staleness.max() == 1
