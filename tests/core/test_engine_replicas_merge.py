"""Replicas merge the engine's remote-KV times and encoder sums: each request's
kv_alloc_s / kv_ready_s come from the replica that served it (NaN where it has no remote
KV), extras encoder_s / encoder_steps are the replicas' sums; a split round_robin's parts
are each their own replay, so the merge is checked against them exactly."""
from __future__ import annotations

import dataclasses
import sys

import numpy as np

from core.cancel import NEVER
from core.serving import replay as rp
from core.serving.engine import replay
from core.serving.replicas import cosimulated, merge, replay_replicas, subset
from core.serving.routers import make_router
from core.serving.workload import EncoderWork, RemoteKV, Workload

sys.path.insert(0, "bench")
from serving_workloads import synthetic_trace

BOOK = rp.config_from(rp.REPLAY.resolve())
SMALL_POOL = dataclasses.replace(BOOK, kv_pool_bytes=float(4 * 1024**3))


def remote_images(n: int, seed: int) -> Workload:
    """Every other request's whole prompt arrives over a link, every third has encoder work."""
    base = synthetic_trace(n, seed=seed, rate_per_s=8.0)
    g = np.maximum(base.output_tokens, 2)
    rows = np.arange(n)
    ready = np.where(rows % 2 == 0, base.input_tokens, 0).astype(np.int64)
    xfer = np.where(rows % 2 == 0, 0.002 + 1e-6 * base.input_tokens, 0.0)
    sec = np.where(rows % 3 == 0, 0.01, 0.0)
    tok = np.where(rows % 3 == 0, 576, 0).astype(np.int64)
    return Workload(base.arrival_s, base.input_tokens, g, label="mixed",
                    remote=RemoteKV(ready, xfer), encoder=EncoderWork(sec, tok))


def test_round_robin_split_merges_kv_times_and_encoder_sums():
    work = remote_images(240, seed=3)
    res = replay_replicas(work, SMALL_POOL, 3, "round_robin")
    replica_of = res.extras["replica_of"]
    enc_s, enc_steps = 0.0, 0
    for i in range(3):
        rows = np.flatnonzero(replica_of == i)
        alone = replay(subset(work, rows), SMALL_POOL)
        assert np.array_equal(res.kv_alloc_s[rows], alone.kv_alloc_s, equal_nan=True)
        assert np.array_equal(res.kv_ready_s[rows], alone.kv_ready_s, equal_nan=True)
        enc_s += alone.extras["encoder_s"]
        enc_steps += alone.extras["encoder_steps"]
    is_remote = work.remote.ready_tokens > 0
    assert np.all(np.isfinite(res.kv_alloc_s[is_remote])) and np.all(np.isnan(res.kv_alloc_s[~is_remote]))
    assert np.all(res.kv_ready_s[is_remote] >= res.kv_alloc_s[is_remote])
    assert res.extras["encoder_s"] == enc_s and res.extras["encoder_steps"] == enc_steps
    assert enc_steps > 0
    # A remote engine reports no cache figures: the merge makes none up.
    assert "cache_hit_rate" not in res.extras


def test_cosimulated_router_merges_each_engines_records():
    work = remote_images(180, seed=5)
    engines, replica_of = cosimulated(work, SMALL_POOL, 2, make_router("least_outstanding", 2), NEVER, True)
    parts = [e.result() for e in engines]
    res = merge(work, parts, replica_of)
    for i, part in enumerate(parts):
        mask = replica_of == i
        assert np.array_equal(res.kv_alloc_s[mask], part.kv_alloc_s[mask], equal_nan=True)
        assert np.array_equal(res.kv_ready_s[mask], part.kv_ready_s[mask], equal_nan=True)
    assert res.extras["encoder_s"] == parts[0].extras["encoder_s"] + parts[1].extras["encoder_s"]
    assert res.extras["encoder_steps"] == parts[0].extras["encoder_steps"] + parts[1].extras["encoder_steps"]
    whole = replay_replicas(work, SMALL_POOL, 2, "least_outstanding")
    assert np.array_equal(whole.kv_ready_s, res.kv_ready_s, equal_nan=True)


def test_one_replica_is_replay_itself_and_plain_merge_has_no_new_extras():
    work = remote_images(60, seed=7)
    one, alone = replay_replicas(work, SMALL_POOL, 1, "least_kv"), replay(work, SMALL_POOL)
    assert np.array_equal(one.kv_alloc_s, alone.kv_alloc_s, equal_nan=True)
    assert one.extras["encoder_s"] == alone.extras["encoder_s"]
    plain = synthetic_trace(90, seed=2, rate_per_s=8.0)  # no remote, no encoder: no such extras
    res = replay_replicas(plain, SMALL_POOL, 3, "round_robin")
    assert not {"encoder_s", "encoder_steps", "cache_hit_rate"} & set(res.extras)
    assert np.all(np.isnan(res.kv_alloc_s)) and np.all(np.isnan(res.kv_ready_s))
