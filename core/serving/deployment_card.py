"""The Serving panel's deployment as state: the card of `lab simulate serving`'s deployment
keys (tp, pp, ep, quantization, kv_cache_dtype, gpu_memory_utilization) and the client's
max_concurrency, and the step-time coefficients a profile or a calibration sets. Both are
part of core.serving.state.ServingState, so sessions, talks, reset and undo carry them;
widgets/serving/deployment.py expands them as the CLI does."""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from core.registry import BookRef, Calculator, Param, ParamError
from core.serving import bench_keys
from core.serving.deployment_params import DEPLOYMENT_PARAMS
from core.serving.profile import COEF_KEYS, COEF_RANGE  # what a profile's [coefficients] may hold

MAX_CONCURRENCY = Param("max_concurrency", "requests", 0, "the client's limit on requests in flight (vllm bench "
                        "--max-concurrency: a request is sent when one of them finishes; 0: no limit)", 0,
                        bench_keys.MAX_PROMPTS, kind="int")
PARAMS = DEPLOYMENT_PARAMS + (MAX_CONCURRENCY,)
NAMES = tuple(p.name for p in PARAMS)
HEADING = "部署 · deployment"


def _calculator() -> Calculator:
    """The deployment fields as a card (not a registered calculator: the panel's own form)."""
    return Calculator(name="serving.deployment", title=HEADING, ref=BookRef("3.1.3"), params=PARAMS, outputs=(),
                      compute=lambda **_: {})


DEPLOYMENT = _calculator()


def check_coefficients(raw: Any) -> dict[str, float]:
    """A coefficient set as the state keeps it ({key: value}: the keys a profile may set,
    by their lab simulate serving names, each in its range); ParamError naming
    coefficients.<key>."""
    if not isinstance(raw, Mapping):
        raise ParamError("coefficients", f"got {type(raw).__name__}; valid: an object of coefficient key -> number")
    out: dict[str, float] = {}
    for name, value in raw.items():
        if name not in COEF_RANGE:
            raise ParamError(f"coefficients.{name}", f"unknown; valid: {', '.join(COEF_KEYS)}")
        low, high = COEF_RANGE[name]
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        if not ok or not low <= value <= high:
            raise ParamError(f"coefficients.{name}", f"got {value!r}; valid: a number in [{low:g}, {high:g}]")
        out[name] = float(value)
    return out
