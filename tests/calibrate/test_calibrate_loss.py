"""The loss's measured side (core/calibrate/loss.py): a request delivered in one chunk is
fitted by its E2E alone."""
from __future__ import annotations

import numpy as np

from core.calibrate import loss


class Run:
    def __init__(self, itl_s):
        self.itl_s = [np.asarray(g, dtype=float) for g in itl_s]
        n = len(itl_s)
        self.ttft_s = np.full(n, 0.05)
        self.tpot_s = np.array([0.0 if not np.any(np.asarray(g) > 0) else float(np.mean(g)) for g in itl_s])
        self.e2e_s = np.full(n, 0.2)

    def __len__(self) -> int:
        return len(self.itl_s)


def test_a_request_read_in_one_chunk_counts_by_its_e2e_alone():
    run = Run([[0.004, 0.0, 0.005], [0.0, 0.0, 0.0], []])  # paced, one chunk, a single token
    m = loss.measured_arrays(run)
    assert np.isnan(m["ttft"][1]) and np.isnan(m["tpot"][1]) and m["e2e"][1] == 0.2
    assert m["ttft"][0] == 0.05 and m["tpot"][0] == run.tpot_s[0] and m["ttft"][2] == 0.05
    predicted = {"ttft": np.full(3, 0.1), "tpot": np.full(3, 0.004), "e2e": np.full(3, 0.2)}
    r = loss.run_residuals(m, predicted, np.ones(3))
    # TTFT: two requests weigh, each √(1/2) · log(0.1 / 0.05); the one-chunk request none
    assert np.allclose(r[:3], [np.sqrt(0.5) * np.log(2.0), 0.0, np.sqrt(0.5) * np.log(2.0)], rtol=1e-12)
