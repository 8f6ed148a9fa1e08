"""The one entry of a P/D run for core/serving/headless.py: pools=cheapest[:XxY] searches
the cheapest xPyD meeting the SLOs (capacity.py), any other P/D keys run one (report.py).
No Qt here."""
from __future__ import annotations

from core.serving.disagg.capacity import cheapest_report, parse_cheapest
from core.serving.disagg.report import disagg_report


def pd_report(raw: dict, workload=None, progress=None) -> tuple[dict, tuple]:
    limits = parse_cheapest(raw["pools"]) if "pools" in raw else None
    if limits is not None:
        return cheapest_report({k: v for k, v in raw.items() if k != "pools"}, limits)
    return disagg_report(raw, workload, progress)
