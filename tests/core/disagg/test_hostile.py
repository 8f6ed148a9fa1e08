"""P/D argument lists whose implied work is too large are refused up front, within the
hostile corpus's bound (tests/hostile/bounds.py), one line naming the field; the largest
P/D run the bounds let through finishes."""
from __future__ import annotations

import pytest

from tests.hostile.bounds import run_cli

CASES = {
    "256 prefill and 256 decode instances behind least_kv, 100k requests": (
        "simulate serving pools=256P256D durations_s=1000 rates_per_s=100 shares_long_input=0.5", 2, "decode_replicas"),
    "a 16x16 cheapest-pools search over 10k requests": (
        "simulate serving pools=cheapest:16x16 slo_ttft_ms=1 durations_s=100 rates_per_s=100 shares_long_input=0",
        2, "pools"),
    "a cheapest-pools search no candidate can pass": (
        "simulate serving pools=cheapest slo_ttft_ms=1 durations_s=50 rates_per_s=100 shares_long_input=0", 2, "pools"),
    "1P1D over 100k requests": (
        "simulate serving pools=1P1D durations_s=1000 rates_per_s=100 shares_long_input=0", 0, None),
    "1P1D over 100k image requests, each encoded (E -> P -> D)": (
        "simulate serving pools=1P1D image_share=1 image_ids=100 durations_s=1000 rates_per_s=100 "
        "shares_long_input=0", 0, None),
}


@pytest.mark.parametrize("name", CASES)
def test_hostile_pd_argument_list(name):
    args, rc, field = CASES[name]
    run_cli(args.split()).check(name, rc, field, one_line=True)
