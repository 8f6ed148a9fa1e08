"""lab simulate rl's loop (issue 16): hand arithmetic for the stages, the rollout as the
engine's replay of the same batch, async overlap and the staleness bound, partial rollouts."""
import numpy as np
import pytest

from core.registry import ParamError, get
from core.rl import RLParams, simulate, summarize
from core.rl import rollout as ro
from core.rl import stages as st
from core.serving.engine import replay
from core.training.model import shape

BOOK = dict(prompts=2, group=16, prompt_tokens=1024, output_tokens=256, keep_ratio=0.5)


def run_of(**kw):
    return simulate(RLParams(**kw))


def test_synchronous_step_is_the_sum_of_its_stages_each_its_own_calculator():
    p = RLParams(steps=3, rollout_replicas=1, trainer_cards=8, mfu=0.4, link_bytes_per_s=50e9, **BOOK)
    run = simulate(p)
    s = shape("qwen3-8b")
    card = st.cards(p.hardware)
    cycle = get("rl.cycle").run({"n_keep": 16, "n_generate": 32})
    # The rollout is the engine's replay of the same batch (32 samples of one group pair, prefix ids).
    config, _ = st.rollout_engine("qwen3-8b", p.hardware, 1)
    batch = ro.Batch(np.repeat([0, 1], 16), np.full(32, 1024), np.full(32, 256))
    alone = replay(ro.workload(batch, 1024, config.block_size, np.arange(32), [10_000]), config)
    assert run.end["rollout"][0] - run.start["rollout"][0] == float(alone.finish_s.max())
    # 例题 3-4's numbers are the loop's own: 32 generated, 16 kept.
    assert run.flops["reference"][0] == pytest.approx(32 * cycle["ref_flops_per_answer"], rel=1e-12)
    assert run.flops["update"][0] == pytest.approx(952.416e12, rel=1e-6)
    assert (run.flops["generation"][0] + run.flops["reference"][0]) / 32 == pytest.approx(38.411e12, rel=2e-5)
    assert run.flops["generation"][0] + run.flops["reference"][0] + run.flops["update"][0] == \
        pytest.approx(cycle["cycle_flops"], rel=1e-12)
    ref_s = 32 * cycle["ref_flops_per_answer"] / (8 * card.peak_flops * 0.4)
    upd_s = cycle["update_flops"] / (8 * card.peak_flops * 0.4)
    sync_s = 2 * s.parameters / 50e9  # BF16 weights, one broadcast
    out = summarize(run)
    assert out["reference_s"] == pytest.approx(ref_s, rel=1e-12)
    assert out["update_s"] == pytest.approx(upd_s, rel=1e-12)
    assert out["sync_s"] == pytest.approx(sync_s, rel=1e-12)
    assert out["reward_s"] == 0.0
    assert out["step_time_s"] == pytest.approx(out["rollout_s"] + ref_s + upd_s + sync_s, rel=1e-12)
    assert out["idle_s"] == pytest.approx(out["rollout_s"], rel=1e-12)  # the trainer waits out the rollout
    assert out["kept_samples_per_step"] == 16 and out["staleness_max"] == 0


def test_sync_bytes_are_exercise_3_7s_total():
    m = get("rl.marginal").run()
    assert st.sync_bytes(shape("qwen3-8b"), 4) == m["weight_sync_bytes"]
    one = st.sync_s(shape("qwen3-8b"), 4, "independent", 1e9, 0.5)
    assert one == pytest.approx(0.5 + m["weight_sync_bytes"] / 1e9)


def test_async_eta_zero_is_synchronous():
    # eta = 0: each batch waits for the last sync, so the streaming engines start each step
    # drained, at the sync's end: the synchronous schedule (up to the rounding of adding the
    # segment's time origin).
    kw = dict(steps=4, lengths="lognormal", sigma=0.8, output_tokens=200, prompts=2, group=8)
    sync, asyn = run_of(mode="synchronous", **kw), run_of(mode="async", staleness=0, **kw)
    for lane in sync.start:
        assert np.allclose(sync.start[lane], asyn.start[lane], rtol=1e-12, atol=0)
        assert np.allclose(sync.end[lane], asyn.end[lane], rtol=1e-12, atol=0)
    assert asyn.staleness.max() == 0


@pytest.mark.parametrize("eta", [1, 2, 3])
def test_async_never_consumes_a_sample_staler_than_eta(eta):
    # A slow trainer (low MFU): the rollout runs ahead as far as the bound lets it.
    run = run_of(mode="async", staleness=eta, steps=8, lengths="lognormal", output_tokens=100, prompts=2,
                 group=4, mfu=0.001)
    assert run.staleness.max() == eta  # reached, never passed
    for k in range(8):  # rollout k waited for sync k-1-eta
        if k - 1 - eta >= 0:
            assert run.start["rollout"][k] >= run.end["sync"][k - 1 - eta]


@pytest.mark.parametrize("mfu", [0.4, 0.05])  # the rollout longer than the trainer's work, then shorter
def test_one_step_overlap_gives_the_constructed_step_time(mfu):
    # Fixed lengths: every rollout takes R, the trainer's reference + update A, a sync S.
    # Rollout k+1 overlaps the update of k; the sync runs between rollout batches (verl's
    # one-step off-policy: the engines take the weights in place, not while generating),
    # so the steady step is max(R, A) + S; synchronous R + A + S.
    kw = dict(steps=6, rollout_replicas=1, mfu=mfu, **BOOK)
    sync, one = run_of(**kw), run_of(mode="one_step", **kw)
    R = sync.end["rollout"][0] - sync.start["rollout"][0]
    A = sync.end["update"][0] - sync.end["rollout"][0]
    S = sync.end["sync"][0] - sync.start["sync"][0]
    assert np.diff(sync.end["sync"]) == pytest.approx(np.full(5, R + A + S))
    # The last sync has no batch after it to wait for.
    assert np.diff(one.end["sync"])[:-1] == pytest.approx(np.full(4, max(R, A) + S))
    for k in range(5):  # no sync while the pool generates: after batch k+1, before batch k+2
        assert one.start["sync"][k] >= one.end["rollout"][k + 1]
        if k + 2 < 6:
            assert one.start["rollout"][k + 2] >= one.end["sync"][k]
    assert one.staleness.max() == 1 and list(one.version) == [0, 0, 1, 2, 3, 4]
    # Updated, the trainer waits for the pool's batch to end before it syncs: R − A a step
    # but the last (no batch after it).
    assert summarize(one)["sync_wait_s"] == pytest.approx(5 / 6 * max(0.0, R - A), rel=1e-9, abs=1e-12)
    assert summarize(sync)["sync_wait_s"] == 0.0


def test_partial_rollouts_generate_every_token_exactly_once():
    run = run_of(mode="partial", partial_tokens=300, steps=6, lengths="pareto", alpha=1.2, output_tokens=100,
                 prompts=2, group=4, max_tokens=5000)
    generated = {}
    totals = {}
    for row in run.sample_rows:
        cur, segment, roll = row.cur, row.segment, row.roll
        for sid, done, seg, total in zip(cur["sample"].tolist(), cur["done"].tolist(), segment.tolist(),
                                         cur["total"].tolist()):
            assert done == generated.get(sid, 0)  # resumes where it stopped: the old tokens kept
            assert seg <= 300
            generated[sid] = done + seg
            totals[sid] = total
        assert np.array_equal(roll.finish_s > 0, np.ones(segment.size, bool))
    assert all(generated[s] <= totals[s] for s in generated)
    finished = [s for s in generated if generated[s] == totals[s]]
    consumed = {sid for row in run.sample_rows for sid in row.use["sample"].tolist()}
    assert consumed <= set(finished)  # the update reads only whole samples, each once
    assert len(generated) == int(run.consumed.sum()) + run.carried_at_end  # the rest is carried, none lost
    assert any(totals[s] > 300 for s in finished)  # some sample did span steps
    assert sum(run.generated_tokens) == sum(generated.values())


def test_long_tail_idle_share_is_max_minus_mean_over_max(tmp_path):
    # One engine, 64 seats, 64 samples: every sample runs from t = 0; a decode step costs
    # about the same at any batch size, so each sample's time is about its length.
    lengths = tmp_path / "lengths.txt"
    lengths.write_text("\n".join(str(100 + 30 * i) for i in range(64)))
    run = run_of(lengths="trace", lengths_file=str(lengths), prompts=1, group=64, prompt_tokens=16, steps=1,
                 rollout_replicas=1)
    seg = run.sample_rows[0].segment.astype(float)
    expected = (seg.max() - seg.mean()) / seg.max()
    assert run.rollouts[0].seat_idle_share() == pytest.approx(expected, rel=0.01)


def test_bad_input_names_the_field():
    cases = [({"mode": "async", "placement": "colocated"}, "mode"), ({"steps": "2000", "prompts": "512", "group": "8"},
             "steps"), ({"lengths": "trace"}, "lengths_file"), ({"keep_ratio": "0"}, "keep_ratio"),
             ({"group": "x"}, "group"), ({"nope": "1"}, "nope"), ({"placement": "colocated", "cards": "6",
                                                                   "rollout_tp": "4"}, "rollout_tp")]
    for raw, field in cases:
        with pytest.raises(ParamError) as err:
            RLParams.from_raw(raw)
        assert err.value.param == field, raw


def test_a_sample_longer_than_the_kv_pool_is_refused_before_running():
    with pytest.raises(ParamError) as err:
        simulate(RLParams(prompt_tokens=400_000, lengths="lognormal", max_tokens=100_000, steps=1))
    assert err.value.param == "max_tokens"
    with pytest.raises(ParamError) as err:
        RLParams.from_raw({"reward_model": "qwen3-8b"})
    assert err.value.param == "reward_model"


def test_colocated_pays_two_switches_and_no_link():
    kw = dict(steps=2, **BOOK)
    co = summarize(run_of(placement="colocated", cards=4, switch_s=7.0, **kw))
    assert co["switch_s"] == 14.0 and co["sync_s"] == 0.0 and co["weight_sync_bytes"] == 0.0
    assert co["step_time_s"] == pytest.approx(co["rollout_s"] + 14.0 + co["reference_s"] + co["update_s"], rel=1e-12)


def test_async_streams_a_batch_into_the_previous_ones_tail():
    # Long tails and a fast trainer: one_step's rollout pool waits for each batch's longest
    # sample; async's engines take the next batch while that tail still runs.
    kw = dict(steps=8, lengths="pareto", alpha=1.1, output_tokens=50, max_tokens=4000, prompts=4, group=8,
              rollout_replicas=2, staleness=1)
    one, asyn = run_of(mode="one_step", **kw), run_of(mode="async", **kw)
    overlap = asyn.start["rollout"][1:] < asyn.end["rollout"][:-1]
    assert overlap.any()
    assert not (one.start["rollout"][1:] < one.end["rollout"][:-1]).any()
    assert asyn.end["sync"][-1] < one.end["sync"][-1]
    assert asyn.staleness.max() <= 1
    s_one, s_asyn = summarize(one), summarize(asyn)
    assert s_asyn["rollout_pool_utilisation"] > s_one["rollout_pool_utilisation"]
    # The same tokens are generated either way; only their timing differs.
    assert np.array_equal(one.generated_tokens, asyn.generated_tokens)


def test_a_groups_samples_share_the_prompts_blocks_in_every_mode():
    # One engine, one group of 16 with P = 1000 (62 full blocks of 16): the first step's
    # token budget of 8192 holds 8 prompts and starts the 9th, whose blocks are not cached
    # yet; the 7 admitted next step find the 62 blocks: 7 × 992 tokens. Streaming engines
    # (async) read the same cache; a batch joining a running engine only spreads over more steps.
    kw = dict(steps=4, lengths="lognormal", sigma=0.8, output_tokens=200, prompts=1, group=16,
              prompt_tokens=1000, rollout_replicas=1, mfu=0.01)
    config, _ = st.rollout_engine("qwen3-8b", RLParams().hardware, 1)
    assert (config.block_size, config.token_budget) == (16, 8192)
    hand = 7 * 62 * 16
    for mode, eta in (("synchronous", 0), ("async", 0)):
        run = run_of(mode=mode, staleness=eta, **kw)
        assert [r.cached_tokens for r in run.rollouts] == [hand] * 4, mode
        assert summarize(run)["prefix_cached_share"] == hand / 16_000
    run = run_of(mode="async", staleness=1, **kw)
    assert all(r.cached_tokens >= hand for r in run.rollouts)


def test_async_sync_interrupts_no_sample_in_flight():
    # The choice (core/rl/loop.py): a sync reaches the streaming engines at a request
    # boundary. A sample admitted before a sync ended runs on, KV kept, and counts the
    # version it started with; the batch submitted at that sync starts on the new one.
    run = run_of(mode="async", staleness=1, steps=8, lengths="pareto", alpha=1.1, output_tokens=50,
                 max_tokens=4000, prompts=4, group=8, rollout_replicas=2)
    syncs = run.end["sync"]
    spanning = 0
    for k, x in enumerate(run.sample_rows):
        roll = x.roll
        begin, finish = roll.start_at + roll.start_s, roll.start_at + roll.finish_s
        # Every sample of batch k started after its gate's sync and on that version.
        assert run.version[k] == int(np.searchsorted(syncs[:k], roll.start_at, side="right"))
        spanning += int(((begin[:, None] < syncs[None, :]) & (syncs[None, :] < finish[:, None])).any(axis=1).sum())
        assert np.array_equal(x.stale, k - run.version[x.use["first"]])
        assert np.array_equal(x.segment, x.cur["total"])  # one segment each: never cut, never resumed
    assert spanning > 0  # some samples ran while a sync landed
    assert summarize(run)["preemptions"] == 0  # nothing was recomputed
