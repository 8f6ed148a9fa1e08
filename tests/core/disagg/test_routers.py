"""The decode pool's routers: least_kv_demand counts the blocks promised to requests still
waiting for their first allocation; the four routers of core/serving/routers.py as they are."""
from __future__ import annotations

import math

import numpy as np
import pytest

from core.registry import ParamError
from core.serving.disagg.routers import DECODE_ROUTERS, LeastKvDemand, decode_router
from core.serving.routers import ROUTERS, LeastKV


class FakeEngine:
    """What a router reads of an engine: blocks in use, outstanding, waiting ids, allocations."""

    def __init__(self, used: int, waiting: list[int], allocated: dict[int, float] | None = None, outstanding=None):
        self.used, self.waiting, self.allocated = used, waiting, allocated or {}
        self.count = len(waiting) if outstanding is None else outstanding

    def kv_used_blocks(self):
        return self.used

    def outstanding(self):
        return self.count

    def waiting_ids(self):
        return list(self.waiting)

    def kv_alloc_s(self, r):
        return self.allocated.get(r, math.nan)


PROMPTS = np.array([4000, 15, 16, 31, 100])  # by engine id


def test_blocks_needed_by_the_engines_rule():
    router = decode_router("least_kv_demand", 2, PROMPTS, 16)
    assert isinstance(router, LeastKvDemand)
    # ceil((P + 1) / 16): 4001 -> 251, 16 -> 1, 17 -> 2, 32 -> 2, 101 -> 7
    assert router.blocks_needed.tolist() == [251, 1, 2, 2, 7]


def test_demand_sees_what_least_kv_does_not():
    # engine 0: nothing in use yet, a 4,000-token request waiting for its blocks;
    # engine 1: 10 blocks in use by a running request.
    engines = [FakeEngine(0, [0]), FakeEngine(10, [], outstanding=1)]
    assert LeastKV(2).pick(4, engines) == 0
    assert decode_router("least_kv_demand", 2, PROMPTS, 16).pick(4, engines) == 1


def test_demand_does_not_count_a_request_already_holding_its_blocks():
    # request 0 landed and waits for a seat: its 251 blocks are in `used` already
    engines = [FakeEngine(251, [0], {0: 1.0}), FakeEngine(300, [])]
    assert decode_router("least_kv_demand", 2, PROMPTS, 16).pick(4, engines) == 0


def test_demand_ties_go_to_fewer_outstanding_then_in_turn():
    router = decode_router("least_kv_demand", 3, PROMPTS, 16)
    engines = [FakeEngine(7, [], outstanding=2), FakeEngine(0, [4], outstanding=2), FakeEngine(7, [], outstanding=1)]
    assert router.pick(1, engines) == 2  # 7, 7, 7 blocks: the fewest outstanding
    idle = [FakeEngine(0, []) for _ in range(3)]
    assert [router.pick(1, idle) for _ in range(4)] == [0, 1, 2, 0]


def test_the_four_routers_serve_the_decode_pool_and_a_bad_name_is_refused():
    assert DECODE_ROUTERS[:4] == ROUTERS
    for name in ROUTERS:
        assert decode_router(name, 2, PROMPTS, 16).name == name
    with pytest.raises(ParamError) as err:
        decode_router("random", 2, PROMPTS, 16)
    assert err.value.param == "decode_router" and "least_kv_demand" in str(err.value)
