"""A replay written as a `vllm bench serve --save-result --save-detailed` result, to be
read back as if measured: simulate → write → calibrate must give back the coefficients
that generated it (the calibration's own check), and fidelity against itself 0% error.

Per request: ttfts (first token − send), itls (the request's decode span split evenly
over its output − 1 gaps: the engine keeps per-step, not per-request, token times, and
TPOT and E2E, the figures a fit uses, depend only on their sum), input_lens, output_lens,
optionally start_times (send times, as lab observe writes them) and the run's settings at the top level as vllm bench saves them. No Qt here.
"""
from __future__ import annotations

import math

import numpy as np

from core.serving.vllm_metrics import bench_metrics


def bench_result(result, work, *, model_id: str = "synthetic", request_rate: float | None = None,
                 max_concurrency: int | None = None, burstiness: float = 1.0, start_times: bool = False,
                 extra: dict | None = None) -> dict:
    """The result's JSON object. start_times: write the send times too (lab observe does;
    vllm bench's own results have none, and the lab's loader then spaces arrivals by
    request_rate, or sends all at 0 with request_rate inf)."""
    g = np.asarray(result.output_tokens, dtype=np.int64)
    ttft = np.asarray(result.ttft_s, dtype=float)
    span = np.asarray(result.finish_s - result.first_token_s, dtype=float)
    itls = [[float(s / (n - 1))] * int(n - 1) if n > 1 else [] for s, n in zip(span, g)]
    out: dict = {"date": "synthetic", "backend": "vllm", "model_id": model_id, "tokenizer_id": model_id,
                 "num_prompts": int(g.size),
                 "request_rate": "inf" if request_rate is None or math.isinf(request_rate) else float(request_rate),
                 "burstiness": float(burstiness), "max_concurrency": max_concurrency}
    metrics = bench_metrics(result, work)
    out.update({k: (float(v) if isinstance(v, (int, float, np.floating)) and v is not None else v)
                for k, v in metrics.items()})
    out.update(input_lens=[int(x) for x in result.input_tokens], output_lens=[int(x) for x in g],
               ttfts=[float(x) for x in ttft], itls=itls, generated_texts=[""] * int(g.size), errors=[""] * int(g.size))
    if start_times:
        out["start_times"] = [float(x) for x in result.arrival_s]
    if extra:
        out.update(extra)
    return out
