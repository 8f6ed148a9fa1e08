"""Today's engine against the engine frozen at issue 12's start (tests/oracles/frozen_engine):
every record bit for bit (arrays with NaN in the same places, events, steps, the preemption
log, extras), on the book's two scenarios and on held-out workloads none of the speed work
was tuned on (other seeds, a preempting pool, sessions with tool waits, hash_ids), fast and
step by step; and routed with one replica (each request submitted at its arrival) == replay."""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from core.registry import get
from core.serving import replay as rp
from core.serving.engine import Engine, EngineConfig, replay, validate
from core.serving.step_cost import StepCost
from core.serving.workload import PrefixBlocks, Workload
from core.units import GiB
from tests.oracles.frozen_engine import replay as frozen_replay

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from serving_workloads import sessions_workload, synthetic_trace

BLOCK_BYTES = 16 * StepCost().kv_bytes_per_token
ARRAYS = ("arrival_s", "input_tokens", "output_tokens", "first_schedule_s", "first_token_s", "finish_s",
          "preemptions", "series_t", "series_waiting", "series_running", "series_kv_blocks", "series_tokens",
          "cached_tokens", "series_steps", "series_decode_rows")
SCALARS = ("num_blocks", "engine_steps", "decode_tokens", "prefill_tokens", "kv_peak_blocks", "events",
           "closed_form_steps")


def assert_identical(new, old) -> None:
    for name in ARRAYS:
        a, b = getattr(new, name), getattr(old, name)
        assert a.dtype == b.dtype and a.shape == b.shape, name
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), name
    for name in SCALARS:
        assert getattr(new, name) == getattr(old, name), name
    assert len(new.preempt_log) == len(old.preempt_log)
    for x, y in zip(new.preempt_log, old.preempt_log):
        assert x[0] == y[0] and x[1] == y[1] and (x[2] == y[2] or (math.isnan(x[2]) and math.isnan(y[2])))
    assert new.extras == old.extras


def hash_id_workload(n: int, seed: int) -> Workload:
    """Mooncake-like: prompts built from a few shared system prefixes plus own blocks,
    hash blocks of 64 tokens (so engine blocks of 16 share a hash block's id)."""
    rng = np.random.default_rng(seed)
    t = np.cumsum(rng.exponential(1 / 6.0, n))
    prefixes = [list(range(1000 * k, 1000 * k + int(rng.integers(2, 20)))) for k in range(5)]
    ids, offsets, prompt = [], [0], []
    for i in range(n):
        own = int(rng.integers(1, 30))
        run = prefixes[int(rng.integers(0, 5))] + list(range(10**6 + 100 * i, 10**6 + 100 * i + own))
        ids.extend(run)
        offsets.append(len(ids))
        prompt.append(len(run) * 64 - int(rng.integers(0, 64)))
    out = np.clip(rng.lognormal(4.5, 1.0, n), 1, 2000).astype(np.int64)
    return Workload(t, np.array(prompt, np.int64), out, label="hash ids",
                    prefix=PrefixBlocks(np.array(ids, np.int64), np.array(offsets, np.int64), 64))


def fixed_turns_workload(sessions: int, seed: int) -> Workload:
    """Sessions whose odd turns arrive at a fixed time (no think time) while the previous
    turn may still run: its generated blocks are cached as they fill (the eager path)."""
    w = sessions_workload(sessions=sessions, turns=4, seed=seed, rate_per_s=0.5)
    s = w.sessions
    fixed = s.turn % 2 == 1
    s.think_time_s[fixed] = np.nan
    w.arrival_s[fixed] = w.arrival_s[fixed] + 0.5
    return w


def book(shares: str):
    values = get("serving.replay").resolve({"shares_long_input": shares} if shares else {})
    return rp.workload_from(values), rp.config_from(values)


CASES = {
    "book_uniform": lambda: book(""),
    "book_shift": lambda: book("0.9,0.1"),
    "synthetic_seed7": lambda: (synthetic_trace(1500, seed=7, rate_per_s=6.0), EngineConfig()),
    "synthetic_preempting_seed3": lambda: (synthetic_trace(1500, seed=3, rate_per_s=8.0),
                                           EngineConfig(kv_pool_bytes=6 * GiB, max_num_seqs=48)),
    "synthetic_sparse_idles": lambda: (synthetic_trace(400, seed=3, rate_per_s=0.05), EngineConfig()),
    "synthetic_no_gate_seed11": lambda: (synthetic_trace(1200, seed=11, rate_per_s=9.0),
                                         EngineConfig(kv_pool_bytes=5 * GiB, max_num_seqs=32, token_budget=2048,
                                                      reserve_full_prompt=False)),
    "sessions_tool_waits": lambda: (sessions_workload(sessions=60, turns=6, seed=5, rate_per_s=1.0),
                                    EngineConfig(kv_pool_bytes=8 * GiB, max_num_seqs=24)),
    "sessions_fixed_turns": lambda: (fixed_turns_workload(50, seed=6), EngineConfig(kv_pool_bytes=5 * GiB, max_num_seqs=16)),
    "sessions_small_pool": lambda: (sessions_workload(sessions=40, turns=5, seed=9, rate_per_s=2.0),
                                    EngineConfig(kv_pool_bytes=3000 * BLOCK_BYTES, max_num_seqs=16)),
    "hash_ids": lambda: (hash_id_workload(800, seed=4), EngineConfig(kv_pool_bytes=2 * GiB, max_num_seqs=32)),
    "hash_ids_no_caching": lambda: (hash_id_workload(500, seed=8),
                                    EngineConfig(kv_pool_bytes=2 * GiB, max_num_seqs=32, prefix_caching=False)),
}


# Step by step (fast=False) too, the book runs included: about 1.5 s each for both engines
# (bench/bench_engine_speed.py --book-step-by-step times them).
@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("case", sorted(CASES))
def test_engine_equals_frozen_bit_for_bit(case, fast):
    work, config = CASES[case]()
    validate(config, work)
    new = replay(work, config, fast=fast)
    old = frozen_replay(work, config, fast=fast)
    assert_identical(new, old)


def test_the_held_out_workloads_exercise_every_path():
    # Without these the comparison above would prove less than it says.
    work, config = CASES["synthetic_preempting_seed3"]()
    assert replay(work, config).preemptions.sum() > 0
    work, config = CASES["synthetic_sparse_idles"]()
    r = replay(work, config)
    assert (r.series_running == 0).sum() > 100  # the engine empties between arrivals
    work, config = CASES["sessions_tool_waits"]()
    r = replay(work, config)
    assert r.extras["tool_wait_kv_byte_s"] > 0 and r.extras["cache_hit_rate"] > 0.1 and r.preemptions.sum() > 0
    work, config = CASES["sessions_fixed_turns"]()
    s = work.sessions  # turns with a fixed arrival after a turn that may still run
    assert np.sum(np.isnan(s.think_time_s) & (s.turn > 0)) > 0
    assert replay(work, config).extras["cache_hit_rate"] > 0.1
    work, config = CASES["hash_ids"]()
    r = replay(work, config)
    assert r.extras["cache_hit_rate"] > 0.1 and r.preemptions.sum() > 0


def routed(work, config, fast=True):
    """One routed engine, each request submitted at its arrival (what replicas=1 does)."""
    e = Engine(work, config, fast)
    e.route()
    for r in e.routable():
        e.advance(e.arrival_s(r))
        e.submit(int(r))
    e.close()
    e.advance(math.inf)
    return e.result()


@pytest.mark.parametrize("case", ["book_uniform", "synthetic_preempting_seed3", "sessions_tool_waits", "hash_ids"])
def test_routed_single_engine_equals_replay(case):
    work, config = CASES[case]()
    assert_identical(routed(work, config), replay(work, config))


def test_routed_state_for_routers_while_it_runs():
    work, config = CASES["hash_ids"]()
    e = Engine(work, config)
    e.route()
    seen_kv = seen_hit = 0
    for r in range(200):
        e.advance(e.arrival_s(r))
        assert e.clock() >= e.arrival_s(r) or e.outstanding() == 0
        seen_hit = max(seen_hit, e.cached_prefix_blocks(r))
        e.submit(r)
        seen_kv = max(seen_kv, e.kv_used_blocks())
        assert 0 <= e.kv_used_blocks() <= config.num_blocks
    assert seen_kv > 0 and seen_hit > 0 and e.outstanding() > 0
    e.close()
    e.advance(math.inf)
    assert e.outstanding() == 0


def test_cancel_frees_blocks_and_marks_the_request():
    work, config = CASES["synthetic_preempting_seed3"]()
    e = Engine(work, config)
    e.route()
    for r in range(40):
        e.advance(e.arrival_s(r))
        e.submit(r)
    e.advance(e.arrival_s(39) + 0.5)
    victim = e.running_ids()[-1] if e.running_ids() else e.waiting_ids()[0]
    before = e.kv_used_blocks()
    assert e.cancel(victim)
    assert e.is_cancelled(victim) and e.finish_s(victim) == e.clock()
    assert e.kv_used_blocks() <= before
    assert not e.cancel(victim)
    e.close()
    e.advance(math.inf)
    res = e.result()
    assert np.isfinite(res.finish_s[e.rows()[:40]]).all()  # engine ids -> workload rows
    assert e.kv_used_blocks() == 0


@pytest.mark.parametrize("cost", [StepCost(), StepCost(prefill_mfu=0.004)], ids=["book", "lines_cross"])
def test_step_times_equal_step_cost_bit_for_bit(cost):
    # The compiled step-time model against StepCost's Python formulas (with a slow compute
    # line the memory and compute lines cross inside a run: the split sum).
    from core.serving.engine.pricing import decode_time, step_time, steps_until
    from core.serving.engine.step_model import coefficients
    c = coefficients(cost)
    rng = np.random.default_rng(0)
    for _ in range(2000):
        n = int(rng.integers(1, 256))
        ctx = float(rng.integers(0, 10**7))
        k = int(rng.integers(0, 5000))
        assert decode_time(c, n, ctx, k) == cost.decode_time(n, ctx, k)
        rows, logits = int(rng.integers(1, 8192)), int(rng.integers(0, 256))
        kv, pairs = float(rng.integers(0, 10**7)), float(rng.integers(0, 10**9))
        assert step_time(c, rows, logits, kv, pairs) == cost.step_time(rows, logits, kv, pairs)
        gap = float(rng.uniform(0, 30))
        k = steps_until(c, n, ctx, gap)
        assert cost.decode_time(n, ctx, k) >= gap and (k == 1 or cost.decode_time(n, ctx, k - 1) < gap)


def test_a_step_cost_pricing_steps_its_own_way_is_refused():
    import dataclasses

    from core.serving.engine.step_model import coefficients

    class Flat(StepCost):
        def step_time(self, rows, logit_rows, kv_tokens, pairs):
            return 1.0
    with pytest.raises(TypeError, match="Flat.step_time prices steps its own way"):
        replay(synthetic_trace(20, seed=1), EngineConfig(cost=Flat()))

    @dataclasses.dataclass(frozen=True)
    class Renamed(StepCost):  # other defaults, the same formulas: priced as the roofline
        overhead_s: float = 1e-3
    assert coefficients(Renamed())[-1] == 1e-3


def _queue_view(queue) -> list:
    """The free queue as (key, None) and ("run", count), adjacent runs merged."""
    out: list = []
    for key, count in queue.items():
        if key >= 0:
            out.append((key, None))
        elif out and out[-1][0] == "run":
            out[-1] = ("run", out[-1][1] + count)
        else:
            out.append(("run", count))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_block_cache_equals_the_frozen_one_under_random_use(seed):
    # Requests take cached prefixes (hits, shared blocks), compute and cache the rest and
    # blocks of their own, leave (kept, dropped, watched for a tool wait) while the pool
    # evicts; the compiled pool's linked queue matches the frozen ordered dict at every step.
    from core.serving.prefix_cache import BlockCache
    from tests.oracles.frozen_engine.prefix_cache import BlockCache as FrozenCache
    rng = np.random.default_rng(seed)
    blocks = int(rng.integers(20, 60))
    new, old = BlockCache(blocks, 2.0), FrozenCache(blocks, 2.0)
    docs = [[(d + 1) << 32 | j for j in range(int(rng.integers(2, 14)))] for d in range(6)]
    free, now, held = blocks, 0.0, {}
    for r in range(600):
        now += float(rng.random())
        if rng.random() < 0.55 and len(held) < 8:  # a request arrives
            new.settle(free, now)
            old.settle(free, now)
            keys = docs[int(rng.integers(0, len(docs)))][:int(rng.integers(1, 14))]
            keys = keys + [(1000 + r) << 32 | j for j in range(int(rng.integers(0, 4)))]  # its own
            assert new.lookup(keys) == old.lookup(keys)
            hit, hit_free = new.lookup(keys)
            plain = int(rng.integers(0, 3))
            if len(keys) - hit + plain > free - hit_free:
                continue
            taken = new.touch(keys[:hit])
            assert taken == old.touch(keys[:hit])
            free -= taken + len(keys) - hit + plain
            new.settle(free, now)
            old.settle(free, now)
            registered = new.register(keys[hit:])
            assert registered == old.register(keys[hit:])
            held[r] = (keys[:hit] + registered, plain)
        elif held:  # one leaves
            h, plain = held.pop(list(held)[int(rng.integers(0, len(held)))])
            drop = bool(rng.random() < 0.2)
            watch = now + 5 * float(rng.random()) if not drop and rng.random() < 0.4 else None
            freed = new.release(h, plain, drop, watch, now)
            assert freed == old.release(h, plain, drop, watch, now)
            free += freed
        limit = int(rng.integers(0, free + 1))
        assert new.blocks_before_watched(free, now, limit) == old.blocks_before_watched(free, now, limit)
        assert (new.evicted, new.queued, new.tool_block_s) == (old.evicted, old.queued, old.tool_block_s)
        assert new.refcounts == old.ref
        assert _queue_view(new.queue) == _queue_view(old.queue)
    assert new.evicted > 0 and new.tool_block_s > 0  # every path was taken


@pytest.mark.parametrize("case", ["synthetic_preempting_seed3", "synthetic_sparse_idles", "sessions_tool_waits"])
def test_advance_in_pieces_equals_one_run(case):
    # The loop keeps the engine's state in locals: what it writes back when it stops at a
    # horizon is all the next call needs (the flat loop and the general one alike).
    work, config = CASES[case]()
    e = Engine(work, config)
    rng = np.random.default_rng(1)
    for t in np.sort(rng.uniform(0, float(np.nanmax(e.arrivals_s())) * 1.2, 300)):
        e.advance(float(t))
        assert e.clock() >= t or e.finished() == len(work)
    e.advance(math.inf)
    assert_identical(e.result(), replay(work, config))


def random_case(seed: int):
    """A small workload and engine drawn at random (pool, budget, seats, reserve on or
    off), valid for the engine: held-out shapes for the flat loop and the general one."""
    from core.registry import ParamError
    rng = np.random.default_rng(seed)
    while True:
        work = synthetic_trace(int(rng.integers(150, 400)), seed=int(rng.integers(0, 10**6)),
                               rate_per_s=float(rng.uniform(0.5, 15.0)))
        config = EngineConfig(kv_pool_bytes=float(rng.uniform(2.0, 12.0)) * GiB, max_num_seqs=int(rng.integers(2, 96)),
                              token_budget=int(rng.choice([512, 1024, 2048, 8192])),
                              reserve_full_prompt=bool(rng.random() < 0.5))
        try:
            validate(config, work)
            return work, config
        except ParamError:
            continue


@pytest.mark.parametrize("seed", range(10))
def test_random_engines_equal_frozen(seed):
    work, config = random_case(seed)
    for fast in (True, False):
        assert_identical(replay(work, config, fast=fast), frozen_replay(work, config, fast=fast))


@pytest.mark.parametrize("seed", range(6))
def test_random_prefix_caching_engines_equal_frozen(seed):
    # Hash ids (odd seeds) and sessions (even) with a pool drawn at random: evictions,
    # runs of blocks nobody asks for again, sometimes preemption (40 seeds checked by hand).
    from core.registry import ParamError
    rng = np.random.default_rng(seed)
    while True:
        if seed % 2:
            work = hash_id_workload(int(rng.integers(200, 600)), seed=int(rng.integers(0, 10**6)))
        else:
            work = sessions_workload(sessions=int(rng.integers(10, 50)), turns=int(rng.integers(2, 7)),
                                     seed=int(rng.integers(0, 10**6)), rate_per_s=float(rng.uniform(0.5, 3.0)))
        config = EngineConfig(kv_pool_bytes=float(rng.uniform(1.0, 8.0)) * GiB, max_num_seqs=int(rng.integers(4, 64)),
                              token_budget=int(rng.choice([1024, 2048, 8192])), reserve_full_prompt=bool(rng.random() < 0.5))
        try:
            validate(config, work)
            break
        except ParamError:
            continue
    for fast in (True, False):
        assert_identical(replay(work, config, fast=fast), frozen_replay(work, config, fast=fast))
