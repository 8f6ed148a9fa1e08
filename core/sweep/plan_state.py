"""The Plan panel's state (issue 12), pure Python: the sweep as the user wrote it, one text
per `lab sweep serving` key (what the form shows; core.sweep.run.parse_sweep checks it
when the sweep runs), the capacity search toggle and the results folder. Sessions save it
and reset brings back the sweep the page opens on.

The engine (local pool or a Ray address) is not here: it is where this machine runs
sweeps, kept in the user's settings, not part of a session another machine opens.
"""
from __future__ import annotations

from core.state_model import PanelModel

# The knobs the form shows, in its order (each "v1,v2,…" or "start:stop:step"; "" = not swept).
KNOB_KEYS = ("replicas", "router", "max_num_seqs", "token_budget", "model", "hardware", "scenario", "seeds")
SLO_KEYS = ("slo_ttft_ms", "slo_tpot_ms", "slo_e2el_ms")


class PlanState(PanelModel):
    key = "plan"
    # The sweep the page opens on: the book's 9:1→1:9 run with Poisson arrivals, 1, 2 and 4
    # replicas by two batch limits, two seeds, and SLOs a chat service would set.
    VIEW = {
        "replicas": "1,2,4", "router": "", "max_num_seqs": "64,128", "token_budget": "", "model": "",
        "hardware": "", "scenario": "shift", "seeds": "0-1",
        "other": "arrival=poisson",  # further KEY=VALUE pairs (trace=…, rates_per_s=…)
        "slo_ttft_ms": "2000", "slo_tpot_ms": "100", "slo_e2el_ms": "",
        "search": False, "attainment": "0.9",
        "out": "",  # results folder ('' = in memory only)
    }
