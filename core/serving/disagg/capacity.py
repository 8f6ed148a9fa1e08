"""How many prefill and decode instances meet an SLO at the lowest cost.

    found = cheapest_pools(raw, attainment=0.9, max_prefill=8, max_decode=8)

raw: the keys of a P/D run (`lab simulate serving`'s, with slo_ttft_ms= / slo_tpot_ms= /
slo_e2el_ms=); each candidate xPyD replaces pools=. Candidates are tried in order of cost
per hour (x · prefill cards · prefill price + y · decode cards · decode price; a pool
without a price counts its cards), fewer instances first at equal cost; the first whose
share of requests meeting every SLO is >= attainment is the answer, so nothing cheaper
met it. A candidate with no more prefill and no more decode instances than one that
failed is skipped without a run (more of either never lengthens a queue: the search
assumes it). A grid sweep (`lab sweep serving prefill_replicas=1:8:1
decode_replicas=1:8:1 slo_...`) reports the same setting as its cheapest_meeting_slo,
running every point. No Qt here.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from core.cancel import NEVER, CancelToken
from core.registry import ParamError
from core.serving.disagg.report import build, disagg_report
from core.serving.disagg.sides import load_once
from core.serving.replicas import MAX_ROUTED_WORK
from core.serving.vllm_metrics import meets_slo

SLO_KEYS = ("slo_ttft_ms", "slo_tpot_ms", "slo_e2el_ms")
MAX_SIDE = 16
# Engines x requests the search may co-simulate over all its candidates (each candidate
# is a whole P/D run of x + y engines; the dominance rule usually skips most, but the
# refusal must not depend on the SLOs' luck): four times one routed run's bound.
MAX_SEARCH_WORK = 4 * MAX_ROUTED_WORK
DEFAULT_MAX = 8
DEFAULT_ATTAINMENT = 0.9  # as lab sweep's search


@dataclass
class PoolsFound:
    prefill: int  # 0 when none met the SLOs
    decode: int
    cost_per_hour: float | None
    attainment: float | None  # of the answer
    report: dict | None
    run: tuple | None = None  # (result, workload) of the answer
    tried: list = field(default_factory=list)  # (x, y, attainment) of every run, in order
    skipped: int = 0


def cheapest_pools(raw: dict, attainment: float = 0.9, max_prefill: int = 8, max_decode: int = 8,
                   cancel: CancelToken = NEVER, one: Callable[..., tuple[dict, tuple]] = disagg_report) -> PoolsFound:
    """one(raw, workload=): a candidate's run (disagg_report; a run with images passes its own)."""
    slos = {k: float(raw[k]) for k in SLO_KEYS if k in raw}
    if not slos:
        raise ParamError("slo_ttft_ms", "the search needs an SLO; valid: slo_ttft_ms=, slo_tpot_ms= and/or slo_e2el_ms=")
    if not 0 < attainment <= 1:
        raise ParamError("attainment", f"got {attainment!r}; valid: (0, 1]")
    for name, n in (("max_prefill", max_prefill), ("max_decode", max_decode)):
        if not 1 <= n <= MAX_SIDE:
            raise ParamError(name, f"got {n!r}; valid: a whole number in [1, {MAX_SIDE}]")
    base = {k: v for k, v in raw.items() if k not in ("pools", "prefill_replicas", "decode_replicas")}
    _, work, prefill, decode, _ = build(dict(base, pools="1P1D"))
    engines = max_prefill * max_decode * (max_prefill + max_decode + 2) // 2  # Σ (x + y) over the grid
    if engines * len(work) > MAX_SEARCH_WORK:
        raise ParamError("pools", f"cheapest:{max_prefill}x{max_decode} over {len(work):,} requests: {engines:,} "
                         f"engines over the candidates x {len(work):,} requests = {engines * len(work):,}, over "
                         f"{MAX_SEARCH_WORK:,}; valid: "
                         f"a smaller cheapest:XxY (X · Y · (X + Y + 2) / 2 · requests <= {MAX_SEARCH_WORK:,}) "
                         "or fewer requests")
    unit_p, unit_d = _unit(prefill), _unit(decode)
    shared = load_once(base)

    def cost(xy):
        return xy[0] * unit_p + xy[1] * unit_d

    candidates = sorted(((x, y) for x in range(1, max_prefill + 1) for y in range(1, max_decode + 1)),
                        key=lambda xy: (cost(xy), xy[0] + xy[1], xy[0]))
    found = PoolsFound(0, 0, None, None, None)
    runs: dict[tuple[int, int], tuple] = {}

    def trial(x: int, y: int) -> float:
        cancel.check()
        report, run = one(dict(base, pools=f"{x}P{y}D"), workload=shared)
        share = float(meets_slo(run[0], **slos).mean())
        found.tried.append((x, y, share))
        runs[x, y] = (report, run, share)
        return share

    # The largest first: when it fails, every candidate does (the same assumption).
    if trial(max_prefill, max_decode) < attainment:
        return found
    failed: list[tuple[int, int]] = []
    for x, y in candidates:
        if any(x <= fx and y <= fy for fx, fy in failed):
            found.skipped += 1
            continue
        share = runs[x, y][2] if (x, y) in runs else trial(x, y)
        if share >= attainment:
            report, run, _ = runs[x, y]
            found.prefill, found.decode, found.attainment, found.report, found.run = x, y, share, report, run
            found.cost_per_hour = report["cost_per_hour"]
            return found
        failed.append((x, y))
    return found  # pragma: no cover - the largest met them, so the loop returns


def _unit(side) -> float:
    """One instance's cost per hour (its cards when the card has no price)."""
    price = side.price_per_card_hour
    return side.cards_per_instance * (price if price is not None else 1.0)



def parse_cheapest(text: str) -> tuple[int, int] | None:
    """pools=cheapest (up to 8P8D) or cheapest:XxY -> (X, Y); None for any other pools=."""
    name, sep, size = str(text).strip().lower().partition(":")
    if name != "cheapest":
        return None
    if not sep:
        return DEFAULT_MAX, DEFAULT_MAX
    x, _, y = size.partition("x")
    valid = f"valid: cheapest or cheapest:XxY with whole numbers 1..{MAX_SIDE} (e.g. cheapest:4x8)"
    if not (x.isdigit() and y.isdigit() and 1 <= int(x) <= MAX_SIDE and 1 <= int(y) <= MAX_SIDE):
        raise ParamError("pools", f"got {text!r}; {valid}")
    return int(x), int(y)


def cheapest_report(raw: dict, limits: tuple[int, int],
                    one: Callable[..., tuple[dict, tuple]] = disagg_report) -> tuple[dict, tuple]:
    """`lab simulate serving pools=cheapest ...`: the report of the cheapest xPyD meeting
    the SLOs for >= 90% of requests, with "pools_search" saying what was tried."""
    found = cheapest_pools(raw, DEFAULT_ATTAINMENT, *limits, one=one)
    tried = [{"pools": f"{x}P{y}D", "slo_attainment": share} for x, y, share in found.tried]
    if found.report is None:
        best = max(tried, key=lambda t: t["slo_attainment"])
        raise ParamError("pools", f"no xPyD up to {limits[0]}P{limits[1]}D meets the SLOs for "
                                  f"{DEFAULT_ATTAINMENT:.0%} of requests (best: {best['pools']}, "
                                  f"{best['slo_attainment']:.0%}); valid: a larger search (cheapest:16x16) or looser SLOs")
    report = found.report
    report["pools_search"] = {"found": f"{found.prefill}P{found.decode}D", "attainment": DEFAULT_ATTAINMENT,
                              "limits": f"{limits[0]}P{limits[1]}D", "tried": tried, "skipped": found.skipped,
                              "order": "by cost per hour; a candidate no larger on both sides than one that "
                                       "failed is skipped"}
    assert found.run is not None  # kept with its report
    return report, found.run
