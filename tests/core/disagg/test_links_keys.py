"""kv_link= and the P/D keys: the transfer's bytes and seconds by hand arithmetic, the
catalog's NICs, and refusals naming the field and its valid range."""
from __future__ import annotations

import math

import numpy as np
import pytest

from core import catalog
from core.hardware_config import load_hardware
from core.registry import ParamError
from core.serving import headless
from core.serving.disagg import keys as pd
from core.serving.disagg import links, sides

# Qwen3-8B: 36 layers x 8 KV heads x 128 x (K and V) x 2 bytes (BF16)
QWEN_KV = 36 * 8 * 128 * 2 * 2
H200 = load_hardware("h200")
H100_PCIE = load_hardware("h100-pcie")


def test_qwen_kv_per_token_is_144_kib():
    assert QWEN_KV == 144 * 1024


def test_nic_entries_have_sources():
    for key in ("rdma-200g", "rdma-400g"):
        nic = catalog.kv_link(key)
        assert nic.source and "ConnectX-7" in nic.source
    assert catalog.kv_link("rdma-200g").bandwidth_bytes_per_s == 200e9 / 8
    assert catalog.kv_link("rdma-400g").bandwidth_bytes_per_s == 400e9 / 8


def test_transfer_whole_by_hand():
    link = links.resolve("rdma-400g", H200, H200)
    p = np.array([1000, 1, 4096])
    got = links.transfer_s(p, QWEN_KV, link)
    # 1000 tokens x 147,456 B = 147,456,000 B over 50 GB/s = 2.94912 ms, plus 5 us
    assert got[0] == pytest.approx(147_456_000 / 50e9 + 5e-6, rel=1e-15)
    assert got[1] == pytest.approx(147_456 / 50e9 + 5e-6, rel=1e-15)
    assert got[2] == pytest.approx(4096 * 147_456 / 50e9 + 5e-6, rel=1e-15)
    assert np.array_equal(links.transfer_bytes(p, QWEN_KV), p * 147_456.0)


def test_transfer_layerwise_exposes_the_last_layer_or_the_link_excess():
    link = links.resolve("25", H200, H200)  # 25 GB/s, no latency given
    assert link.latency_s == 0.0
    p = np.array([1000, 1000])
    wire = 1000 * QWEN_KV / 25e9  # 5.89824 ms over the wire
    prefill = np.array([1.0, 0.001])  # a long prefill hides all but one layer; a short one does not
    got = links.transfer_s(p, QWEN_KV, link, "layerwise", 36, prefill)
    assert got[0] == pytest.approx(wire / 36, rel=1e-14)
    assert got[1] == pytest.approx(wire - 0.001 * 35 / 36, rel=1e-14)


def test_card_links_take_the_slower_card_and_refuse_a_mismatch():
    nv = links.resolve("nvlink", H200, load_hardware("h100-sxm"))
    assert nv.bandwidth_bytes_per_s == 450e9 and nv.latency_s == 3e-6
    assert links.resolve("nvlink", H200, load_hardware("h800")).bandwidth_bytes_per_s == 200e9
    with pytest.raises(ParamError) as err:
        links.resolve("nvlink", H200, H100_PCIE)
    assert err.value.param == "kv_link" and "h100-pcie: pcie" in str(err.value) and "rdma-400g" in str(err.value)
    assert links.resolve("pcie", H100_PCIE, H100_PCIE).bandwidth_bytes_per_s == 64e9


def test_latency_override_and_ideal_link():
    assert links.resolve("rdma-200g", H200, H200, 1e-3).latency_s == 1e-3
    ideal = links.resolve("inf", H200, H200)
    assert math.isinf(ideal.bandwidth_bytes_per_s)
    assert np.array_equal(links.transfer_s(np.array([5, 10_000]), QWEN_KV, ideal), np.zeros(2))


@pytest.mark.parametrize("text", ["0", "-3", "fast", "1e9", "nan", ""])
def test_bad_links_are_refused(text):
    with pytest.raises(ParamError) as err:
        links.resolve(text, H200, H200)
    assert err.value.param == "kv_link" and "valid:" in str(err.value)


def test_pools_shorthand():
    assert pd.parse_pools("2P4D") == (2, 4)
    assert pd.parse_pools(" 1p1d ") == (1, 1)
    k = pd.split({"pools": "3P5D"})
    assert (k.prefill_replicas, k.decode_replicas, k.label) == (3, 5, "3P5D")
    for bad in ("2P", "P4D", "0P1D", "2P4D1", "1000P1D"):
        with pytest.raises(ParamError) as err:
            pd.parse_pools(bad)
        assert err.value.param == "pools"


def test_split_sides_and_refusals():
    k = pd.split({"pools": "1P2D", "tp": "2", "decode_tp": "4", "prefill_hardware": "h200", "kv_link": "rdma-200g"})
    assert k.sides["prefill"] == {"tp": "2", "hardware": "h200"}
    assert k.sides["decode"] == {"tp": "4"}
    assert k.kv_link == "rdma-200g" and k.decode_router == "least_kv" and k.prefill_router == "round_robin"
    with pytest.raises(ParamError) as err:
        pd.split({"pools": "2P4D", "prefill_replicas": "3"})
    assert err.value.param == "prefill_replicas"
    for key in ("replicas", "router"):
        with pytest.raises(ParamError) as err:
            pd.split({"pools": "1P1D", key: "2" if key == "replicas" else "least_kv"})
        assert err.value.param == key
    with pytest.raises(ParamError) as err:
        pd.split({"decode_replicas": "0"})
    assert err.value.param == "decode_replicas" and "[1, 256]" in str(err.value)
    with pytest.raises(ParamError) as err:
        pd.split({"decode_router": "fastest"})
    assert err.value.param == "decode_router" and "least_kv_demand" in str(err.value)


def test_neutral_windows_as_headless():
    assert sides.NEUTRAL_WINDOWS == headless.NEUTRAL_WINDOWS
