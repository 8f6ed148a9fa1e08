"""Sessions in the engine: turns that arrive after their predecessor finished, history
hits in the prefix cache, tool waits (KV kept or dropped, byte·s), and the book's replays
unchanged by all of it."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from core.registry import ParamError, get
from core.serving import replay as rp
from core.serving.engine import EngineConfig, replay, validate
from core.serving.prefix_cache import BlockCache
from core.serving.step_cost import StepCost
from core.serving.workload import Sessions, Workload

COST = StepCost()
BLOCK_BYTES = 16 * COST.kv_bytes_per_token


def config(blocks: int = 64, seqs: int = 4, **kw) -> EngineConfig:
    return EngineConfig(max_num_seqs=seqs, block_size=16, kv_pool_bytes=blocks * BLOCK_BYTES, token_budget=8192, **kw)


def three_turns(keep=(True, True, True), tool=(0.5, 0.5, 0.0)) -> Workload:
    """One session: 100 new tokens, then 50 and 50 more on the whole history; 30 out each."""
    new = np.array([100, 50, 50])
    shared = np.array([0, 130, 210])  # the previous prompt + output
    s = Sessions(session=np.zeros(3, np.int64), turn=np.arange(3), new_input_tokens=new,
                 shared_prefix_tokens=shared, think_time_s=np.array([np.nan, 1.0, 1.0]),
                 tool_wait_s=np.array(tool, float), keep_kv_during_tool=np.array(keep))
    return Workload(np.zeros(3), new + shared, np.full(3, 30), sessions=s)


@pytest.mark.parametrize("fast", [True, False])
def test_turns_arrive_after_the_previous_finished_and_hit_its_history(fast):
    r = replay(three_turns(), config(), fast=fast)
    # Arrival = previous finish + its tool wait (0.5 s) + think time (1 s).
    assert r.arrival_s[1] == pytest.approx(r.finish_s[0] + 1.5, rel=1e-12)
    assert r.arrival_s[2] == pytest.approx(r.finish_s[1] + 1.5, rel=1e-12)
    # Turn 0 ends with KV for 100 + 30 − 1 = 129 tokens: 8 full blocks cached. Turn 1
    # shares its 130 tokens: 8 blocks hit. Turn 1 ends with 209: 13 blocks; turn 2 shares 210.
    assert r.cached_tokens.tolist() == [0, 128, 208]
    assert r.extras["hit_rate_by_turn"] == pytest.approx([0.0, 128 / 180, 208 / 260])
    assert r.extras["cache_hit_rate"] == pytest.approx(336 / 540)
    # KV held during the tool waits: 8 blocks for 0.5 s, then 13 blocks for 0.5 s.
    assert r.extras["tool_wait_kv_byte_s"] == pytest.approx((8 + 13) * 0.5 * BLOCK_BYTES)
    assert r.prefill_tokens == 540 - 336


def test_dropping_the_kv_during_a_tool_wait_costs_the_next_turn_its_hit():
    r = replay(three_turns(keep=(False, True, True)), config())
    assert r.cached_tokens.tolist() == [0, 0, 208]
    assert r.extras["tool_wait_kv_byte_s"] == pytest.approx(13 * 0.5 * BLOCK_BYTES)
    assert r.extras["hit_rate_by_turn"][1] == 0.0


def test_without_prefix_caching_turns_still_wait_for_their_predecessor():
    r = replay(three_turns(), config(prefix_caching=False))
    assert r.cached_tokens.tolist() == [0, 0, 0]
    assert r.arrival_s[2] == pytest.approx(r.finish_s[1] + 1.5, rel=1e-12)
    assert r.extras["tool_wait_kv_byte_s"] == 0.0 and r.prefill_tokens == 540


def test_eviction_during_a_tool_wait_ends_its_byte_seconds():
    cache = BlockCache(num_blocks=3, block_bytes=2.0)
    cache.settle(0, 0.0)
    held = cache.register([1, 2, 3])
    free = cache.release(held, plain=0, watch_until=10.0, now=0.0)  # queue: 3, 2, 1
    assert cache.tool_wait_kv_byte_s == 3 * 10.0 * 2.0
    cache.settle(free - 1, 4.0)  # block 3 evicted at 4 s: held 4 s, not 10
    assert cache.tool_wait_kv_byte_s == (4.0 + 10.0 + 10.0) * 2.0
    cache.settle(free - 2, 12.0)  # after the wait ended: nothing taken back
    assert cache.tool_wait_kv_byte_s == (4.0 + 10.0 + 10.0) * 2.0


def random_sessions(seed: int, sessions: int = 12, turns: int = 5) -> Workload:
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(sessions):
        history, start = 0, float(rng.uniform(0, 2))
        for t in range(turns):
            new, out = int(rng.integers(20, 120)), int(rng.integers(1, 60))
            shared = history if rng.random() < 0.8 else int(rng.integers(0, history + 1))
            think = np.nan if t == 0 else float(rng.uniform(0, 0.5))
            rows.append((start, s, t, new, shared, out, think, float(rng.choice([0.0, 0.3])), bool(rng.random() < 0.7)))
            history = shared + new + out
    a = np.array(rows, dtype=object)
    col = lambda k, dt: np.array(a[:, k].tolist(), dtype=dt)  # noqa: E731
    ses = Sessions(col(1, np.int64), col(2, np.int64), col(3, np.int64), col(4, np.int64), col(6, float),
                   col(7, float), col(8, bool))
    return Workload(col(0, float), col(3, np.int64) + col(4, np.int64), col(5, np.int64), sessions=ses)


@pytest.mark.parametrize("seed", range(5))
def test_random_sessions_fast_equals_step_by_step_and_stay_consistent(seed):
    work = random_sessions(seed)
    cfg = config(blocks=60 + 20 * seed, seqs=6)
    validate(cfg, work)
    fast, slow = replay(work, cfg), replay(work, cfg, fast=False)
    assert fast.cached_tokens.tolist() == slow.cached_tokens.tolist()
    assert np.allclose(fast.finish_s, slow.finish_s, rtol=1e-9)
    assert fast.extras["evicted_blocks"] == slow.extras["evicted_blocks"]
    assert fast.extras["tool_wait_kv_byte_s"] == pytest.approx(slow.extras["tool_wait_kv_byte_s"], rel=1e-9)
    ses = work.sessions
    # A turn that waits for its predecessor arrives after it finished, never before.
    prev = {(int(s), int(t)): i for i, (s, t) in enumerate(zip(ses.session, ses.turn))}
    for i, (s, t) in enumerate(zip(ses.session, ses.turn)):
        if t > 0:
            p = prev[(int(s), int(t) - 1)]
            assert fast.arrival_s[i] >= fast.finish_s[p] + ses.tool_wait_s[p]
    # A hit never exceeds the shared history, nor the prompt less one token.
    assert np.all(fast.cached_tokens <= np.maximum(ses.shared_prefix_tokens // 16 * 16, 0))
    assert np.all(fast.cached_tokens <= (work.input_tokens - 1) // 16 * 16)
    assert fast.extras["cache_hit_rate"] > 0
    assert np.all(fast.series_kv_blocks <= fast.num_blocks)


@pytest.mark.parametrize("seed", range(3))
def test_in_a_roomy_pool_every_turn_hits_its_whole_cached_history(seed):
    work = random_sessions(seed)
    r = replay(work, config(blocks=4000, seqs=16))
    ses = work.sessions
    prev = {(int(s), int(t)): i for i, (s, t) in enumerate(zip(ses.session, ses.turn))}
    for i, (s, t) in enumerate(zip(ses.session, ses.turn)):
        if t == 0:
            assert r.cached_tokens[i] == 0
            continue
        p = prev[(int(s), int(t) - 1)]
        # The predecessor left KV for its prompt + output − 1 tokens, in full blocks,
        # unless it dropped them for its tool wait.
        dropped = ses.tool_wait_s[p] > 0 and not ses.keep_kv_during_tool[p]
        kept = (work.input_tokens[p] + work.output_tokens[p] - 1) // 16
        expected = 0 if dropped else 16 * min(ses.shared_prefix_tokens[i] // 16, kept, (work.input_tokens[i] - 1) // 16)
        assert r.cached_tokens[i] == expected
    assert r.extras["evicted_blocks"] == 0


@pytest.mark.parametrize("change, words", [
    ({"shared": [0, 200, 210]}, "history of 130"),
    ({"shared": [0, 130, 300]}, "valid: 0..input_tokens"),
    ({"turn": [0, 2, 3]}, "not in the trace"),
])
def test_bad_sessions_name_the_request(change, words):
    work = three_turns()
    s = work.sessions
    shared = np.array(change.get("shared", s.shared_prefix_tokens))
    turn = np.array(change.get("turn", s.turn))
    ses = Sessions(s.session, turn, s.new_input_tokens, shared, s.think_time_s, s.tool_wait_s, s.keep_kv_during_tool)
    bad = Workload(work.arrival_s, np.minimum(shared + s.new_input_tokens, 260), work.output_tokens, sessions=ses)
    with pytest.raises(ParamError) as err:
        validate(config(), bad)
    assert err.value.param == "trace" and words in str(err.value)


# The book's two replays, as the engine of 4686bd5 (before prefix caching) computed them:
# a digest of every per-request time and series, and a few figures in the clear.
BOOK = {
    "uniform": ("b5c46637482ad7cf47e0ca43f3b5fa20", 10280, 713, 2517281, 421.6944955066718),
    "shift": ("b13d86f54b0166a515a901849c655196", 11310, 542, 2338770, 423.2961100616683),
}
FIELDS = ("first_schedule_s", "first_token_s", "finish_s", "preemptions", "series_t", "series_waiting",
          "series_running", "series_kv_blocks", "series_tokens", "series_steps")


@pytest.mark.parametrize("key", sorted(BOOK))
def test_the_books_replays_are_bit_identical(key):
    values = get("serving.replay").resolve(rp.SCENARIOS[key]["params"])
    r = replay(rp.workload_from(values), rp.config_from(values))
    digest = hashlib.sha256()
    for name in FIELDS:
        digest.update(np.ascontiguousarray(getattr(r, name)).tobytes())
    expected, steps, events, prefill, last = BOOK[key]
    assert (r.engine_steps, r.events, r.prefill_tokens, float(r.finish_s.max())) == (steps, events, prefill, last)
    assert digest.hexdigest()[:32] == expected
    assert r.extras == {} and not r.cached_tokens.any()


@pytest.mark.parametrize("fast", [True, False])
def test_a_turn_with_a_fixed_arrival_shares_the_blocks_its_predecessor_is_still_generating(fast):
    # Turn 1 arrives at 1.5 s while turn 0 (100 in, 200 out) decodes; it shares turn 0's
    # prompt and first 30 output tokens: 8 full blocks, already computed and cached.
    s = Sessions(session=np.zeros(2, np.int64), turn=np.arange(2), new_input_tokens=np.array([100, 50]),
                 shared_prefix_tokens=np.array([0, 130]), think_time_s=np.array([np.nan, np.nan]),
                 tool_wait_s=np.zeros(2), keep_kv_during_tool=np.ones(2, bool))
    work = Workload(np.array([0.0, 1.5]), np.array([100, 180]), np.array([200, 10]), sessions=s)
    r = replay(work, config(), fast=fast)
    assert r.finish_s[0] > 1.5 and r.arrival_s[1] == 1.5
    assert r.cached_tokens.tolist() == [0, 128]
    # Shared, not copied: the second request adds only blocks past the 8 it shares.
    off = replay(work, config(prefix_caching=False), fast=fast)
    assert r.kv_peak_blocks == off.kv_peak_blocks - 8
