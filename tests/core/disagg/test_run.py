"""A P/D run through the engine: one request by hand, the transfer's bytes and seconds of
every request, a 1P1D with an ideal link equal to two single-stage replays fed by each
other (bit for bit), the prefill pool equal to replicas behind the same router, and the
decode pool's wait for blocks."""
from __future__ import annotations

import dataclasses
import math
import sys

import numpy as np
import pytest

from core.hardware_config import load_hardware
from core.serving import replay as rp
from core.serving.disagg import links
from core.serving.disagg.report import build, disagg_report
from core.serving.disagg.run import IDEAL, DisaggConfig, prefill_workload, replay_disagg
from core.serving.engine import Engine, replay
from core.serving.replicas import replay_replicas
from core.serving.routers import ROUTERS, make_router
from core.serving.workload import RemoteKV, Workload

sys.path.insert(0, "bench")
from serving_workloads import synthetic_trace

BOOK = rp.config_from(rp.REPLAY.resolve())
H200 = load_hardware("h200")
RDMA400 = links.resolve("rdma-400g", H200, H200)
QWEN_KV = 147_456  # B a token, BF16 (tests/core/disagg/test_links_keys.py)


def _small_trace(n=120, seed=3):
    w = synthetic_trace(n, seed=seed, rate_per_s=6.0)
    return dataclasses.replace(w, input_tokens=np.minimum(w.input_tokens, 6000),
                               output_tokens=np.minimum(w.output_tokens, 400))


def test_one_request_by_hand():
    w = Workload(np.array([0.0]), np.array([100]), np.array([4]))
    run = replay_disagg(w, DisaggConfig(prefill=BOOK, decode=BOOK, link=RDMA400))
    r, cols = run.result, run.result.extras["request_columns"]
    alone = replay(prefill_workload(w), BOOK)  # the prefill instance: the prompt and token 1
    assert r.first_token_s[0] == alone.first_token_s[0] and cols["prefill_done_s"][0] == alone.finish_s[0]
    xfer = 100 * QWEN_KV / 50e9 + 5e-6  # rdma-400g: 50 GB/s and 5 us
    assert run.transfer_s[0] == pytest.approx(xfer, rel=1e-15)
    assert run.transfer_bytes[0] == 100 * QWEN_KV
    assert r.kv_alloc_s[0] == cols["prefill_done_s"][0]  # an idle decode instance allocates at once
    assert r.kv_ready_s[0] == r.kv_alloc_s[0] + run.transfer_s[0]
    assert cols["decode_start_s"][0] == r.kv_ready_s[0]
    # tokens 2..4 on the decode instance: three lockstep decode steps from a 100-token context
    assert r.finish_s[0] - r.kv_ready_s[0] == pytest.approx(BOOK.cost.decode_time(1, 100, 3), rel=1e-12)
    assert cols["prefill_instance"][0] == 0 and cols["decode_instance"][0] == 0


def test_transfer_bytes_and_seconds_of_every_request_in_the_decode_cards_dtype(tmp_path):
    trace = tmp_path / "t.csv"
    w = _small_trace(80)
    trace.write_text("arrival_s,input_tokens,output_tokens\n" + "".join(
        f"{a!r},{p},{g}\n" for a, p, g in zip(w.arrival_s.tolist(), w.input_tokens.tolist(), w.output_tokens.tolist())))
    raw = {"trace": str(trace), "pools": "1P2D", "model": "qwen3-8b", "hardware": "h200",
           "decode_kv_cache_dtype": "fp8", "kv_link": "rdma-200g"}
    cfg, work, prefill, decode, _ = build(raw)
    assert cfg.bytes_per_token == QWEN_KV / 2 == cfg.bytes_per_token_per_card  # FP8: one byte a value, tp=1
    report, (result, _) = disagg_report(raw)
    cols = result.extras["request_columns"]
    decoded = cols["decode_instance"] >= 0
    P = work.input_tokens
    assert np.array_equal(decoded, work.output_tokens >= 2)
    assert np.array_equal(cols["kv_transfer_bytes"][decoded], P[decoded] * (QWEN_KV / 2))
    assert np.all(cols["kv_transfer_bytes"][~decoded] == 0)
    by_hand = P[decoded] * (QWEN_KV / 2) / 25e9 + 5e-6  # rdma-200g
    assert np.allclose(cols["kv_transfer_s"][decoded], by_hand, rtol=1e-14, atol=0)
    landed = result.kv_ready_s[decoded] - result.kv_alloc_s[decoded]
    assert np.allclose(landed, by_hand, rtol=1e-9, atol=1e-12)
    assert report["disaggregation"]["transfer"]["bytes_total"] == pytest.approx(float(np.sum(P[decoded])) * QWEN_KV / 2)
    assert report["requests"] == len(work) and np.all(np.isfinite(result.finish_s))


def test_tp_decode_moves_every_ranks_share_each_over_its_own_link():
    raw = {"pools": "1P1D", "model": "qwen3-8b", "hardware": "h200", "decode_tp": "2", "kv_link": "rdma-400g",
           "durations_s": "5", "rates_per_s": "1", "shares_long_input": "0.5"}
    cfg, *_ = build(raw)
    # 8 KV heads over 2 ranks: 4 a rank; all of them cross the links, each rank's half over its NIC
    assert cfg.bytes_per_token == QWEN_KV and cfg.bytes_per_token_per_card == QWEN_KV / 2


def _fed_by_each_other(work, cfg_p, cfg_d):
    pre = replay(prefill_workload(work), cfg_p)
    rows = np.flatnonzero(work.output_tokens >= 2)
    rows = rows[np.argsort(pre.finish_s[rows], kind="stable")]
    P, G = work.input_tokens[rows], work.output_tokens[rows]
    dec = replay(Workload(pre.finish_s[rows], P, G, remote=RemoteKV(P.copy(), np.zeros(rows.size))), cfg_d)
    return pre, dec, rows


def test_1p1d_ideal_link_equals_two_single_stage_replays_fed_by_each_other():
    work = _small_trace(150)
    cfg_d = dataclasses.replace(BOOK, kv_pool_bytes=float(3 * 1024**3), max_num_seqs=16)  # its own, smaller card
    run = replay_disagg(work, DisaggConfig(prefill=BOOK, decode=cfg_d, link=IDEAL))
    pre, dec, rows = _fed_by_each_other(work, BOOK, cfg_d)
    r = run.result
    for name in ("arrival_s", "first_schedule_s", "first_token_s"):
        assert np.array_equal(getattr(r, name), getattr(pre, name)), name
    assert np.array_equal(r.finish_s[rows], dec.finish_s)
    assert np.array_equal(r.kv_alloc_s[rows], dec.kv_alloc_s) and np.array_equal(r.kv_ready_s[rows], dec.kv_ready_s)
    assert np.array_equal(r.kv_ready_s[rows], r.kv_alloc_s[rows])  # no transfer time at all
    single = np.setdiff1d(np.arange(len(work)), rows)
    assert np.array_equal(r.finish_s[single], pre.finish_s[single])
    assert np.array_equal(r.preemptions[rows], pre.preemptions[rows] + dec.preemptions)
    assert r.engine_steps == pre.engine_steps + dec.engine_steps
    assert r.num_blocks == pre.num_blocks + dec.num_blocks
    assert dec.preemptions.sum() > 0  # the small decode pool was under pressure: the check is not trivial


@pytest.mark.parametrize("router", [r for r in ROUTERS if r != "least_kv"])
def test_prefill_pool_is_replicas_behind_the_same_router(router):
    # These routers do not read KV use, and the prefill pool's blocks held until each
    # request's KV was read never bind here (a large pool): the replicas' schedule.
    work = _small_trace(150, seed=5)
    run = replay_disagg(work, DisaggConfig(prefill=BOOK, decode=BOOK, prefill_replicas=3, decode_replicas=2,
                                           prefill_router=router, link=RDMA400))
    same = replay_replicas(prefill_workload(work), BOOK, 3, router)
    for name in ("first_schedule_s", "first_token_s"):
        assert np.array_equal(getattr(run.result, name), getattr(same, name)), name
    assert np.array_equal(run.result.extras["request_columns"]["prefill_instance"], same.extras["replica_of"])


def test_least_kv_prefill_router_sees_the_blocks_held_until_read():
    """least_kv reads each engine's used blocks, held ones included (vLLM counts them in
    its KV usage): the prefill pool is routed engines holding each request's blocks until
    its landing, driven here by hand."""
    work = _small_trace(150, seed=5)
    run = replay_disagg(work, DisaggConfig(prefill=BOOK, decode=BOOK, prefill_replicas=3, decode_replicas=2,
                                           prefill_router="least_kv", link=RDMA400))
    assert run.result.extras["kv_hold_converged"]
    pre = prefill_workload(work)
    engines = [Engine(pre, BOOK) for _ in range(3)]
    for e in engines:
        e.hold(run.result.kv_ready_s)  # NaN (no hold) where a request never reached decode
        e.route()
    router = make_router("least_kv", 3)
    picked = np.full(len(work), -1)
    for r in engines[0].routable().tolist():
        for e in engines:
            e.advance(float(engines[0].arrival_s(r)))
        picked[r] = router.pick(r, engines)
        engines[picked[r]].submit(r)
    for e in engines:
        e.close()
        e.advance(math.inf)
    rows = engines[0].rows()
    assert np.array_equal(run.result.extras["request_columns"]["prefill_instance"][rows], picked)
    for i, e in enumerate(engines):
        mine = rows[picked == i]
        assert np.array_equal(run.result.first_token_s[mine], e.result().first_token_s[mine])


def test_round_robin_pools_alternate():
    work = _small_trace(40, seed=7)
    run = replay_disagg(work, DisaggConfig(prefill=BOOK, decode=BOOK, prefill_replicas=2, decode_replicas=3,
                                           decode_router="round_robin", link=RDMA400))
    cols = run.result.extras["request_columns"]
    order = np.argsort(work.arrival_s, kind="stable")
    assert np.array_equal(cols["prefill_instance"][order], np.arange(order.size) % 2)
    # the decode pool's k-th arrival (prefill done) goes to instance k mod 3
    assert np.array_equal(cols["decode_instance"][run.rows], np.arange(run.rows.size) % 3)


def test_decode_pool_waits_for_blocks_before_the_transfer():
    # Two long-decoding requests, a decode pool that holds one at a time: the second's
    # blocks (so its transfer) wait for the first's finish.
    w = Workload(np.array([0.0, 0.0]), np.array([4000, 4000]), np.array([50, 50]))
    one = int(np.ceil(4050 / 16)) + 1  # blocks of one request at its end, and not two
    cfg_d = dataclasses.replace(BOOK, kv_pool_bytes=float(one * 16 * QWEN_KV))
    run = replay_disagg(w, DisaggConfig(prefill=BOOK, decode=cfg_d, link=RDMA400))
    r, cols = run.result, run.result.extras["request_columns"]
    first, second = np.argsort(r.kv_alloc_s)
    assert r.kv_alloc_s[first] == cols["prefill_done_s"][first]
    assert r.kv_alloc_s[second] >= r.finish_s[first]  # its blocks came free when the first finished
    assert r.kv_ready_s[second] == pytest.approx(r.kv_alloc_s[second] + run.transfer_s[second], rel=1e-15)
    wait_for_blocks = r.kv_alloc_s - cols["prefill_done_s"]
    assert wait_for_blocks[first] == 0 and wait_for_blocks[second] > 0


def test_sessions_are_refused():
    from core.registry import ParamError
    from core.serving import traces

    work = traces.load_trace("examples/sessions.jsonl")
    with pytest.raises(ParamError) as err:
        replay_disagg(work, DisaggConfig(prefill=BOOK, decode=BOOK))
    assert err.value.param == "trace"


def test_cheapest_pools_is_the_cheapest_meeting_point_of_the_whole_grid():
    from core.serving.disagg.capacity import cheapest_pools
    from core.serving.vllm_metrics import meets_slo

    raw = {"durations_s": "20", "rates_per_s": "4", "shares_long_input": "0.5", "slo_ttft_ms": "1000",
           "slo_tpot_ms": "40", "prefill_price_per_card_hour": "2", "decode_price_per_card_hour": "1"}
    found = cheapest_pools(raw, 0.9, 3, 3)
    grid = {}
    for x in (1, 2, 3):
        for y in (1, 2, 3):
            report, (result, _) = disagg_report(dict(raw, pools=f"{x}P{y}D"))
            grid[x, y] = (report["cost_per_hour"], float(meets_slo(result, slo_ttft_ms=1000, slo_tpot_ms=40).mean()))
    meeting = sorted((cost, x + y, x, y) for (x, y), (cost, share) in grid.items() if share >= 0.9)
    assert meeting, "the grid must hold a passing point for this check"
    cost, _, x, y = meeting[0]
    assert (found.prefill, found.decode, found.cost_per_hour) == (x, y, cost)
    assert found.cost_per_hour == 2 * x + 1 * y
    for fx, fy, share in found.tried:
        assert share == grid[fx, fy][1]


def test_itl_is_the_decode_instances_steps():
    from core.serving.disagg.report import decode_itl

    w = Workload(np.array([0.0, 0.0]), np.array([100, 100]), np.array([4, 4]))
    run = replay_disagg(w, DisaggConfig(prefill=BOOK, decode=BOOK, decode_replicas=2, link=RDMA400,
                                        decode_router="least_outstanding"))
    assert sorted(run.result.extras["request_columns"]["decode_instance"].tolist()) == [0, 1]
    itl = decode_itl(run, BOOK.cost)  # each instance: three decode steps of one 100-token request
    assert itl["mean_itl_ms"] == pytest.approx(BOOK.cost.decode_time(1, 100, 3) / 3 * 1e3, rel=1e-12)
    steps = [BOOK.cost.decode_time(1, 100, j) - BOOK.cost.decode_time(1, 100, j - 1) for j in (1, 2, 3)]
    assert itl["median_itl_ms"] == pytest.approx(float(np.median(steps)) * 1e3, rel=1e-12)
