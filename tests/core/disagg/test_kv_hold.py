"""The prefill instance keeps a request's blocks until its KV has landed on the decode side
(vLLM's connectors delay the free until the decode instance has read them), by hand
arithmetic: with a prefill pool that fits two prompts and a 0.5 s link, the third prompt
waits on the prefill side for the first two's KV to be read; a full decode pool admits
later and the hold grows with it."""
from __future__ import annotations

import numpy as np

from core.serving.disagg.links import KvLinkSpec
from core.serving.disagg.run import DisaggConfig, replay_disagg
from core.serving.engine import EngineConfig
from core.serving.step_cost import StepCost
from core.serving.workload import Workload

COST = StepCost()
BLOCK_BYTES = 16 * COST.kv_bytes_per_token
SLOW = KvLinkSpec("slow", float("inf"), 0.5, "a link of 0.5 s latency and no bandwidth limit")
# 100-token prompts take ceil(100 / 16) = 7 blocks: this prefill pool fits two.
PREFILL = EngineConfig(kv_pool_bytes=14 * BLOCK_BYTES, max_num_seqs=4)
THREE = Workload(np.zeros(3), np.full(3, 100, np.int64), np.full(3, 5, np.int64))


def prefill(k: int, tokens: int = 100) -> float:
    return COST.step_time(k * tokens, k, k * tokens, k * tokens * (tokens + 1) / 2)


def level_at(series_t, levels, t) -> int:
    """The series' last value at or before t."""
    return int(levels[np.searchsorted(series_t, t, side="right") - 1])


def test_the_third_prompt_waits_for_the_first_ones_kv_to_be_read():
    run = replay_disagg(THREE, DisaggConfig(prefill=PREFILL, decode=EngineConfig(), link=SLOW))
    r, cols = run.result, run.result.extras["request_columns"]
    t1 = prefill(2)  # 0 and 1 prefilled together; 2 does not fit (14 blocks in use)
    assert cols["prefill_done_s"][:2].tolist() == [t1, t1]
    # the idle decode instance allocates both at their arrival; they land 0.5 s later
    assert r.kv_alloc_s[:2].tolist() == [t1, t1] and r.kv_ready_s[:2].tolist() == [t1 + 0.5, t1 + 0.5]
    # their prefill blocks come back only then: 2 is scheduled at t1 + 0.5, not at t1
    assert r.first_schedule_s[2] == t1 + 0.5
    assert r.first_token_s[2] == t1 + 0.5 + prefill(1)
    p = run.prefill.merged
    assert level_at(p.series_t, p.series_kv_blocks, t1 + 0.25) == 14  # held while the link moves them
    assert r.extras["kv_hold_converged"] and r.extras["kv_hold_passes"] == 3
    assert "kv_hold_exact_until_s" not in r.extras


def test_a_full_decode_pool_admits_later_and_the_prefill_hold_grows():
    # The decode pool fits one request (7 blocks at landing, 8 at its end): 1 waits there
    # for 0 to finish, so 1's prefill blocks stay held until 0's decode finish + 0.5.
    decode = EngineConfig(kv_pool_bytes=8 * BLOCK_BYTES, max_num_seqs=4)
    run = replay_disagg(THREE, DisaggConfig(prefill=PREFILL, decode=decode, link=SLOW))
    r, dec = run.result, run.decode.merged
    t1 = prefill(2)
    assert r.kv_alloc_s[0] == t1 and r.kv_ready_s[0] == t1 + 0.5
    assert r.kv_alloc_s[1] == r.finish_s[0] and r.kv_ready_s[1] == r.finish_s[0] + 0.5
    assert r.first_schedule_s[2] == t1 + 0.5  # 0's 7 blocks back at its landing: 2 fits
    p = run.prefill.merged
    # 1's blocks (7) stay held until its landing, and 2's until its own
    assert level_at(p.series_t, p.series_kv_blocks, r.kv_ready_s[1] - 1e-3) >= 7
    assert level_at(p.series_t, p.series_kv_blocks, r.kv_ready_s[1]) == (7 if r.kv_ready_s[2] > r.kv_ready_s[1] else 0)
    assert level_at(p.series_t, p.series_kv_blocks, max(r.kv_ready_s)) == 0
    assert r.extras["kv_hold_converged"] and dec.preemptions.sum() == 0
