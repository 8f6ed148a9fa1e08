"""The Params of a prefill/decode (xPyD) run of `lab simulate serving` (issue 15), apart from
the package that runs it (core/serving/disagg/): simulate_keys lists them and the disagg
package checks and runs them, so neither imports the other. No Qt here.
"""
from __future__ import annotations

import dataclasses

from core.registry import Param
from core.serving.deployment_params import DEPLOYMENT_PARAMS
from core.serving.replay import MAX_REPLICAS, PARAMS
from core.serving.routers import ROUTER_NOTES, ROUTERS

OVERLAPS = ("whole", "layerwise")  # how the KV moves: core/serving/disagg/links.py
DEMAND = "least_kv_demand"  # the decode pool's own router: core/serving/disagg/routers.py
DECODE_ROUTERS = ROUTERS + (DEMAND,)
DECODE_ROUTER_NOTES = dict(ROUTER_NOTES, **{DEMAND: "fewest KV blocks in use or promised to requests waiting "
                                                    "there (ties: fewest outstanding)"})

SIDES = ("prefill", "decode")
# Keys a side may set for itself (its card, parallelism, dtypes, engine limits, price).
SIDE_REPLAY_KEYS = ("max_num_seqs", "token_budget", "kv_pool_bytes", "price_per_card_hour", "prefix_caching",
                    "reserve_full_prompt")
SIDE_KEYS = ("hardware",) + tuple(p.name for p in DEPLOYMENT_PARAMS) + SIDE_REPLAY_KEYS
# The decode engine of remote KV replays without a prefix cache (E15's seam): no switch there.
NOT_A_SIDES = {("decode", "prefix_caching")}


def _side_params() -> tuple[Param, ...]:
    base = {p.name: p for p in PARAMS + DEPLOYMENT_PARAMS}
    return tuple(dataclasses.replace(base[k], name=f"{side}_{k}", help=f"the {side} pool's own {k}: " + base[k].help)
                 for side in SIDES for k in SIDE_KEYS if k != "hardware" and (side, k) not in NOT_A_SIDES)


PD_PARAMS = (
    Param("prefill_replicas", "engines", 1, "prefill instances (xPyD's x): each prefills its requests' prompts and "
          "samples their first token", 1, MAX_REPLICAS, kind="int"),
    Param("decode_replicas", "engines", 1, "decode instances (xPyD's y): each receives a request's KV over kv_link= "
          "and generates its other tokens", 1, MAX_REPLICAS, kind="int"),
    Param("kv_transfer", "", "whole", "how the KV moves: whole (after the prefill, vLLM's NixlConnector) or "
          "layerwise (each layer as it is computed: only the last layer's share exposed)", kind="choice",
          choices=OVERLAPS),
    Param("kv_link_latency_s", "s", None, "fixed time of one request's KV transfer (replaces kv_link='s catalog "
          "latency)", 0, 10),
    Param("prefill_router", "", ROUTERS[0], "which prefill instance a request goes to: "
          + "; ".join(f"{k} = {v}" for k, v in ROUTER_NOTES.items()), kind="choice", choices=ROUTERS),
    Param("decode_router", "", "least_kv", "which decode instance a prefilled request goes to: "
          + "; ".join(f"{k} = {v}" for k, v in DECODE_ROUTER_NOTES.items()), kind="choice", choices=DECODE_ROUTERS),
) + _side_params()
PD_TEXT_KEYS = {
    "pools": "prefill/decode disaggregation in xPyD form (2P4D: two prefill and four decode instances); "
             "cheapest[:XxY]: the cheapest xPyD up to XPYD (default 8x8) whose requests meet the slo_*= SLOs "
             "for 90% of them",
    "kv_link": "the link KV crosses from prefill to decode: nvlink, pcie (the cards'), rdma-200g, rdma-400g "
               "(ConnectX-7), a number of GB/s per GPU, or inf (no transfer time)",
    "prefill_hardware": "the prefill pool's card (as hardware=)",
    "decode_hardware": "the decode pool's card (as hardware=)",
}
PD_NAMES = tuple(p.name for p in PD_PARAMS) + tuple(PD_TEXT_KEYS)
