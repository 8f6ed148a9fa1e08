"""The link, the EPD encoder pool and the three handoffs, by hand arithmetic."""
import numpy as np
import pytest

from core.registry import ParamError
from core.serving.multimodal import encoder as enc
from core.serving.multimodal import images as im
from core.serving.multimodal.epd import EncoderPool, encode_and_ship, lm_workload
from core.serving.multimodal.handoff import Handoffs, ImageLoad, sweep_bandwidth
from core.serving.multimodal.link import Link
from core.serving.workload import Workload

MIB = 1024 ** 2


def test_link_serialises_transfers():
    link = Link(1e9, 0.01)
    land = link.send(np.array([0.0, 0.0, 5.0, 0.5]), np.array([1e9, 1e9, 1e9, 0]))
    assert land.tolist() == pytest.approx([1.01, 2.01, 6.01, 0.5], abs=1e-12)
    assert link.seconds(5e8) == 0.51
    with pytest.raises(ParamError, match="link_bandwidth"):
        Link(0.0)


def test_encoder_pool_is_fcfs_per_image():
    # Three requests at t=0 with one 640x640 image each, two encoders: the third image starts
    # when the first encoder frees. The EC (8,192,000 B each) then crosses a 8.192 GB/s link
    # one after another (1 ms each) plus 1 ms latency.
    table = im.table([[("a", 640, 640)], [("b", 640, 640)], [("c", 640, 640)]])
    rate = enc.encoder_flops_per_s()
    plan = enc.plan(table, np.arange(3), 0, rate)
    t = im.figures(640, 640).encode_flops / rate
    arrivals = encode_and_ship(np.zeros(3), table, plan, EncoderPool(2, rate), Link(8.192e9, 1e-3))
    assert arrivals.encoded_s.tolist() == pytest.approx([t, t, 2 * t], rel=1e-12)
    # EC 0 and 1 are ready together at t: 0 lands at t + 1 ms + 1 ms, 1 waits for 0's bytes.
    assert arrivals.ec_ready_s.tolist() == pytest.approx([t + 2e-3, t + 3e-3, 2 * t + 2e-3], rel=1e-12)
    assert arrivals.ec_bytes_moved == 3 * 8_192_000
    assert arrivals.encoder_busy_s == pytest.approx(3 * t, rel=1e-12)


def test_an_epd_cache_hit_neither_encodes_nor_ships():
    table = im.table([[("a", 640, 640)], [("a", 640, 640)]])
    rate = enc.encoder_flops_per_s()
    plan = enc.plan(table, np.arange(2), 1000, rate)
    arrivals = encode_and_ship(np.array([0.0, 1.0]), table, plan, EncoderPool(1, rate), Link(1e9))
    assert arrivals.ec_ready_s[1] == 1.0 and arrivals.ec_bytes_moved == 8_192_000
    work = Workload(arrival_s=np.array([0.0, 1.0]), input_tokens=np.array([10, 10]), output_tokens=np.array([4, 4]))
    lm = lm_workload(work, table, arrivals)
    assert lm.input_tokens.tolist() == [410, 410] and lm.arrival_s[0] == arrivals.ec_ready_s[0]


def test_handoff_bytes_are_the_calculators():
    load = ImageLoad(requests=20, rate_per_s=2.0, text_tokens=0, output_tokens=8)
    dep = Handoffs(load)
    link = Link(1e10, 0.0)
    runs = {h: dep.run(h, link) for h in ("image", "ec", "kv")}
    assert runs["image"].bytes_moved == 20 * 800_000
    assert runs["ec"].bytes_moved == 20 * 8_192_000
    assert runs["kv"].bytes_moved == 20 * 56.25 * MIB  # no text: the visual KV alone (vision.handoff's kv_bytes)
    for run in runs.values():
        assert run.ttft_s.size == 20 and np.all(run.ttft_s > 0)


def test_ship_kv_ttft_is_the_prefill_plus_the_transfer_alone():
    # One request: the KV lands one transfer after the sender's prefill produced the first token.
    load = ImageLoad(requests=1, text_tokens=100)
    dep = Handoffs(load)
    fast, slow = dep.run("kv", Link(1e15, 0.0)), dep.run("kv", Link(1e9, 0.002))
    kv = 500 * 147456
    assert slow.ttft_s[0] - fast.ttft_s[0] == pytest.approx(kv / 1e9 + 0.002 - kv / 1e15, rel=1e-9)
    # The receiver decodes the other tokens after the landing: the same decode either way.
    assert slow.e2e_s[0] - slow.ttft_s[0] == pytest.approx(fast.e2e_s[0] - fast.ttft_s[0], rel=1e-6)
    assert fast.e2e_s[0] > fast.ttft_s[0]


def test_sweep_shape_and_order():
    out = sweep_bandwidth([1e9, 1e11], ImageLoad(requests=40, rate_per_s=10.0))
    assert out["bandwidth_bytes_per_s"] == [1e9, 1e11]
    for h in ("image", "ec", "kv"):
        p50, p95 = out[h]["ttft_p50_s"], out[h]["ttft_p95_s"]
        assert len(p50) == 2 and all(a <= b for a, b in zip(p50, p95))
        assert p50[1] <= p50[0]  # a faster link never makes TTFT worse here
        assert all(t <= e for t, e in zip(out[h]["ttft_p95_s"], out[h]["e2e_p95_s"]))
    assert out["kv"]["bytes_per_request"] > out["ec"]["bytes_per_request"] > out["image"]["bytes_per_request"]
