"""What the Plan panel's tests share: a small sweep's form values, a run to the sweep's end and
settings held in a dict (the panel factory is tests/widgets/conftest.py's plan_panel)."""
from __future__ import annotations

import numpy as np

SMALL = {"max_num_seqs": "32,64", "token_budget": "2048,8192", "replicas": "", "scenario": "uniform",
         "seeds": "", "slo_ttft_ms": "2000", "slo_tpot_ms": "", "other": ""}


def close_points(got, expected) -> bool:
    """Two sets of (x, y) points equal to float precision (the plot holds log10 of y)."""
    a, b = np.array(sorted(got), dtype=float), np.array(sorted(expected), dtype=float)
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-12)


class MemorySettings:
    """The window's settings as a dict (values, as lab.settings.Settings stores them)."""

    def __init__(self):
        self.values = {}

    def get(self, key, default=None):
        return self.values.get(key, default)

    def set(self, key, value):
        self.values[key] = value


def run_sweep(qtbot, p, engine="inprocess", timeout=60_000):
    """Run the form's sweep to its end; its summary (no error under any field)."""
    assert p.run(engine)
    qtbot.waitUntil(lambda: not p.runner.running, timeout=timeout)
    errors = {k: f.error_label.text() for k, f in p.form.fields.items() if f.error_label.text()}
    assert not errors
    assert p.runner.summary is not None
    return p.runner.summary
