"""Replicas behind a router: one replica is replay() bit for bit with every router; the
routers pick as documented; the merged result adds up."""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest

from core.cancel import NEVER
from core.registry import ParamError
from core.serving import replay as rp
from core.serving import traces
from core.serving.engine import replay
from core.serving.replicas import MAX_ROUTED_WORK, replay_replicas, subset
from core.serving.routers import ROUTERS, make_router
from core.serving.workload import PrefixBlocks, Workload

sys.path.insert(0, "bench")
from serving_workloads import sessions_workload, synthetic_trace

TRACES = Path(__file__).resolve().parents[1] / "data" / "traces"
BOOK = rp.config_from(rp.REPLAY.resolve())
SMALL_POOL = dataclasses.replace(BOOK, kv_pool_bytes=float(4 * 1024**3))  # preempts often; the largest request fits


def _equal(a, b) -> None:
    for f in dataclasses.fields(a):
        if f.name == "wall_s":
            continue
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and np.array_equal(x, y, equal_nan=True), f.name
        else:
            assert x == y, f.name


def _workloads():
    yield "book uniform", rp.workload_from(rp.REPLAY.resolve()), BOOK
    yield "book shift, small pool", rp.workload_from(rp.REPLAY.resolve({"shares_long_input": "0.9,0.1"})), SMALL_POOL
    yield "gamma trace", synthetic_trace(600, seed=3, rate_per_s=8.0), SMALL_POOL
    yield "sessions file", traces.load_trace("examples/sessions.jsonl"), BOOK
    yield "sessions, tool waits", sessions_workload(40, 4, seed=5, rate_per_s=2.0), SMALL_POOL
    yield "mooncake hash_ids", traces.load_trace(TRACES / "mooncake_conversation_400.jsonl"), BOOK


WORKLOADS = list(_workloads())


@pytest.mark.parametrize("router", ROUTERS)
@pytest.mark.parametrize("name,work,config", WORKLOADS, ids=[w[0] for w in WORKLOADS])
def test_one_replica_is_replay_bit_for_bit(name, work, config, router):
    _equal(replay(work, config), replay_replicas(work, config, 1, router))


def test_one_replica_bit_for_bit_step_by_step():
    work = synthetic_trace(200, seed=4, rate_per_s=8.0)
    for router in ROUTERS:
        _equal(replay(work, SMALL_POOL, fast=False), replay_replicas(work, SMALL_POOL, 1, router, fast=False))


@pytest.mark.parametrize("router", ROUTERS)
def test_merged_result_adds_up(router):
    work = synthetic_trace(800, seed=2, rate_per_s=12.0)
    n = 3
    res = replay_replicas(work, SMALL_POOL, n, router)
    single = replay(work, SMALL_POOL)
    replica_of = res.extras["replica_of"]
    per = res.extras["replicas"]
    assert sorted(set(replica_of.tolist())) == [0, 1, 2]
    assert sum(p["requests"] for p in per) == len(work)
    assert [p["requests"] for p in per] == [int(np.sum(replica_of == i)) for i in range(n)]
    assert np.all(np.isfinite(res.finish_s)) and np.all(res.finish_s >= res.first_token_s)
    assert np.array_equal(res.arrival_s, work.arrival_s)
    assert res.num_blocks == n * single.num_blocks
    assert res.engine_steps == sum(p["engine_steps"] for p in per)
    assert int(res.preemptions.sum()) == sum(p["preemptions"] for p in per) == len(res.preempt_log)
    # Levels: at every replica's own record time the merged value is the sum of each
    # replica's last value at or before it.
    grid = res.series_t
    assert np.all(np.diff(grid) > 0)
    for name, key in (("series_kv_blocks", "series_kv_blocks"), ("series_waiting", "series_waiting"),
                      ("series_running", "series_running")):
        total = np.zeros(grid.size, np.int64)
        for p in per:
            at = np.searchsorted(p["series_t"], grid, side="right") - 1
            total += p[key][at]
        assert np.array_equal(getattr(res, name), total)
    assert res.kv_peak_blocks == int(res.series_kv_blocks.max()) <= res.num_blocks
    # Per-step amounts are summed per time: nothing lost or counted twice.
    assert int(res.series_steps.sum()) == res.engine_steps


def test_round_robin_deals_in_turn_and_each_part_is_its_own_replay():
    work = synthetic_trace(301, seed=6, rate_per_s=10.0)
    res = replay_replicas(work, SMALL_POOL, 4, "round_robin")
    order = np.argsort(work.arrival_s, kind="stable")
    assert np.array_equal(res.extras["replica_of"][order], np.arange(order.size) % 4)
    for i in range(4):
        rows = np.flatnonzero(res.extras["replica_of"] == i)
        alone = replay(subset(work, rows), SMALL_POOL)
        assert np.array_equal(res.finish_s[rows], alone.finish_s)
        assert np.array_equal(res.first_token_s[rows], alone.first_token_s)


def test_round_robin_cosimulated_with_sessions_keeps_a_session_on_its_replica():
    work = sessions_workload(30, 4, seed=5, rate_per_s=2.0)
    res = replay_replicas(work, SMALL_POOL, 3, "round_robin")
    replica_of = res.extras["replica_of"]
    ses = work.sessions
    dynamic = np.isfinite(ses.think_time_s) & (ses.turn > 0)
    assert dynamic.any()
    first = {int(s): int(replica_of[(ses.session == s) & (ses.turn == 0)][0]) for s in np.unique(ses.session)}
    for r in np.flatnonzero(dynamic):  # a turn waiting for its predecessor runs where it did
        prev = np.flatnonzero((ses.session == ses.session[r]) & (ses.turn == ses.turn[r] - 1))[0]
        assert replica_of[r] == replica_of[prev]
    assert len(set(first.values())) == 3
    assert np.all(np.isfinite(res.finish_s))


class FakeEngine:
    def __init__(self, outstanding=0, kv=0, cached=0):
        self._o, self._kv, self._c = outstanding, kv, cached

    def outstanding(self):
        return self._o

    def kv_used_blocks(self):
        return self._kv

    def cached_prefix_blocks(self, r):
        return self._c


def test_routers_pick_as_documented():
    engines = [FakeEngine(3, 10, 0), FakeEngine(1, 50, 2), FakeEngine(1, 5, 7), FakeEngine(2, 5, 7)]
    assert [make_router("round_robin", 4).pick(0, engines) for _ in range(1)] == [0]
    rr = make_router("round_robin", 4)
    assert [rr.pick(k, engines) for k in range(6)] == [0, 1, 2, 3, 0, 1]
    # least outstanding: 1 and 2 tie at 1; the first after the last pick (none yet) is 1,
    # then 2, then 1 again: ties take turns.
    lo = make_router("least_outstanding", 4)
    assert [lo.pick(0, engines) for _ in range(3)] == [1, 2, 1]
    # least KV: 2 and 3 hold 5 blocks; fewer outstanding wins: 2
    assert make_router("least_kv", 4).pick(0, engines) == 2
    # prefix aware: 2 and 3 hold 7 blocks; the less loaded of them: 2
    assert make_router("prefix_aware", 4).pick(0, engines) == 2
    # nothing cached anywhere: least outstanding, ties rotating
    none = [FakeEngine(2), FakeEngine(0), FakeEngine(0), FakeEngine(1)]
    pa = make_router("prefix_aware", 4)
    assert [pa.pick(0, none) for _ in range(3)] == [1, 2, 1]
    # a longest prefix wins over load
    loaded = [FakeEngine(9, cached=3), FakeEngine(0, cached=1), FakeEngine(0)]
    assert make_router("prefix_aware", 3).pick(0, loaded) == 0


def _prefix_work():
    """Three 1536-token prompts (3 hash blocks of 512): 0 and 1 differ, 2 repeats 1's."""
    ids = np.array([1, 2, 3, 7, 8, 9, 7, 8, 9], np.int64)
    return Workload(arrival_s=np.array([0.0, 0.0, 500.0]), input_tokens=np.array([1536, 1536, 1536]),
                    output_tokens=np.array([4, 4, 4]),
                    prefix=PrefixBlocks(ids=ids, offsets=np.array([0, 3, 6, 9], np.int64), block_tokens=512))


def test_prefix_aware_sends_a_request_where_its_prefix_is_cached():
    work = _prefix_work()
    aware = replay_replicas(work, BOOK, 2, "prefix_aware")
    assert aware.extras["replica_of"].tolist() == [0, 1, 1]
    assert aware.cached_tokens[2] == 1520  # 95 full blocks of 16 (the last token is computed)
    blind = replay_replicas(work, BOOK, 2, "least_outstanding")
    assert blind.extras["replica_of"].tolist() == [0, 1, 0]
    assert blind.cached_tokens[2] == 0
    assert aware.ttft_s[2] < blind.ttft_s[2]


def test_least_outstanding_spreads_a_burst():
    work = Workload(np.zeros(8), np.full(8, 4000), np.full(8, 200))
    res = replay_replicas(work, BOOK, 4, "least_outstanding")
    assert np.bincount(res.extras["replica_of"], minlength=4).tolist() == [2, 2, 2, 2]


def test_bad_input_is_refused():
    work = synthetic_trace(50)
    for replicas in (0, 257, True, 2.0):
        with pytest.raises(ParamError) as err:
            replay_replicas(work, BOOK, replicas, "round_robin")
        assert err.value.param == "replicas"
    with pytest.raises(ParamError) as err:
        replay_replicas(work, BOOK, 2, "random")
    assert err.value.param == "router" and "prefix_aware" in err.value.message
    big = Workload(np.zeros(MAX_ROUTED_WORK // 100 + 1), np.ones(MAX_ROUTED_WORK // 100 + 1, np.int64),
                   np.ones(MAX_ROUTED_WORK // 100 + 1, np.int64))
    with pytest.raises(ParamError) as err:
        replay_replicas(big, BOOK, 100, "least_kv")
    assert err.value.param == "replicas" and "round_robin" in err.value.message


def test_run_replay_dispatches_on_replicas():
    values = rp.REPLAY.resolve({"replicas": "2", "router": "least_kv"})
    result, work, config = rp.run_replay(values)
    assert result.extras["replicas"] and result.num_blocks == 2 * config.num_blocks
    _equal(rp.run_replay(rp.REPLAY.resolve())[0], replay(work, config))


def test_round_robin_split_equals_round_robin_cosimulated():
    """The shortcut (split, replay each part) gives the schedule driving N routed engines
    gives; times agree to rounding only: a routed engine stops its closed-form decode runs
    at every arrival (the other replicas' too), which sums the same steps in pieces."""
    from core.serving.replicas import cosimulated, merge
    from core.serving.routers import make_router

    work = synthetic_trace(400, seed=8, rate_per_s=10.0)
    split = replay_replicas(work, SMALL_POOL, 3, "round_robin")
    engines, replica_of = cosimulated(work, SMALL_POOL, 3, make_router("round_robin", 3), NEVER, True)
    cosim = merge(work, [e.result() for e in engines], replica_of)
    assert np.array_equal(split.extras["replica_of"], replica_of)
    for name in ("first_schedule_s", "first_token_s", "finish_s"):
        assert np.allclose(getattr(split, name), getattr(cosim, name), rtol=1e-12, atol=1e-12), name
    assert np.array_equal(split.preemptions, cosim.preemptions)
    assert split.engine_steps == cosim.engine_steps and split.prefill_tokens == cosim.prefill_tokens


@pytest.mark.parametrize("router", ROUTERS)
def test_more_replicas_than_requests(router):
    work = Workload(np.array([0.0, 0.5, 1.0]), np.array([100, 200, 300]), np.array([10, 20, 30]))
    res = replay_replicas(work, BOOK, 5, router)
    assert res.extras["replica_of"].tolist() == [0, 1, 2]
    assert [e["requests"] for e in res.extras["replicas"]] == [1, 1, 1, 0, 0]
    alone = replay(work, BOOK)  # far apart enough that nobody waits: the same times as one engine
    assert np.array_equal(res.finish_s, alone.finish_s)
    assert res.num_blocks == 5 * BOOK.num_blocks
