"""The Gantt's state matrix shows a P/D request's wait for the decode instance's blocks as
waiting and its KV transfer as its own phase; a plain run's matrix is as before."""
from __future__ import annotations

import dataclasses

import numpy as np

from core.serving import gantt
from core.serving import replay as rp
from core.serving.disagg import links
from core.serving.disagg.run import DisaggConfig, replay_disagg
from core.serving.engine import replay
from core.serving.workload import Workload

BOOK = rp.config_from(rp.REPLAY.resolve())


def test_transfer_phase_in_the_state_matrix():
    w = Workload(np.array([0.0, 0.0]), np.array([4000, 4000]), np.array([50, 50]))
    one = int(np.ceil(4050 / 16)) + 1
    cfg_d = dataclasses.replace(BOOK, kv_pool_bytes=float(one * 16 * 147_456))  # one request at a time
    slow = links.KvLinkSpec("1 GB/s", 1e9, 0.0, "given")  # 0.59 s a request: many bins
    r = replay_disagg(w, DisaggConfig(prefill=BOOK, decode=cfg_d, link=slow)).result
    t_end, bins = float(r.finish_s.max()), 2000
    codes, order = gantt.state_matrix(r, t_end, bins)
    centers = (np.arange(bins) + 0.5) * (t_end / bins)
    for row, i in enumerate(order):
        transfer = (centers >= r.kv_alloc_s[i]) & (centers < r.kv_ready_s[i])
        assert transfer.any() and np.all(codes[row, transfer] == gantt.TRANSFER)
        blocked = (centers >= r.first_token_s[i]) & (centers < r.kv_alloc_s[i])
        assert np.all(codes[row, blocked] == gantt.WAITING)
        decoding = (centers >= r.kv_ready_s[i]) & (centers < r.finish_s[i])
        assert np.all(codes[row, decoding] == gantt.DECODE)
    second = int(np.argmax(r.kv_alloc_s))
    assert np.any(codes[list(order).index(second)] == gantt.WAITING)  # it waited for the first's blocks
    assert gantt.PHASES[gantt.TRANSFER] == "transfer"


def test_a_plain_run_has_no_transfer_phase():
    w = Workload(np.array([0.0, 0.5]), np.array([4000, 300]), np.array([50, 20]))
    r = replay(w, BOOK)
    codes, _ = gantt.state_matrix(r, float(r.finish_s.max()), 400)
    assert not np.any(codes == gantt.TRANSFER) and np.any(codes == gantt.DECODE)
