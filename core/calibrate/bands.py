"""Predictions with uncertainty bands (issue 13): the same replay once per coefficient set
drawn by the calibration (a profile's samples: bootstrap refits, core/calibrate/fit.py), and
every metric reported as its p5 / p50 / p95 over those replays; "meets the SLO" becomes a
probability: the share of coefficient sets whose run meets it.

A run meets the SLOs when the share of its requests within every SLO given (vLLM's goodput
test, core.serving.vllm_metrics.meets_slo) is >= `attainment` (DEFAULT_ATTAINMENT, equal to
the sweep's own default, so "meets" means the same in simulate, sweep and the capacity search).

Percentiles over the B runs: numpy's linear interpolation (np.percentile): p5 sits at
h = 0.05 · (B − 1) in the sorted values, between the smallest two for B of a few tens.

Cost: B replays besides the point estimate's. B is DEFAULT_SAMPLES unless `band_samples=`
says (0: no bands): a few tens of sets put p5/p95 a run or two inside each end, the least
that still tells a tail from one outlier; the samples taken are the profile's first B
(bootstrap draws are independent, so any B of them are a fair draw). The replays share the
process's compiled engine (numba compiles once per process and caches on disk) and a
trace read once (workload=).

Explicit keys win: a coefficient the user gave (coef_seq_s=...) stays fixed in every replay;
only the others vary with the samples. No Qt here.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from core.registry import ParamError
from core.serving import replay as rp
from core.serving.headless import load_shared_trace, serving_report
from core.serving.vllm_metrics import LATENCIES, STATS, meets_slo

DEFAULT_SAMPLES = 20
MAX_SAMPLES = 1000
DEFAULT_ATTAINMENT = 0.9  # core.sweep.spec's DEFAULT_ATTAINMENT (core.sweep imports this package, not back)
SLO_KEYS = ("slo_ttft_ms", "slo_tpot_ms", "slo_e2el_ms")
# The report keys banded: the book's, vllm bench serve's and the run's totals.
BAND_METRICS = rp.METRICS + tuple(f"{s}_{m}_ms" for m in LATENCIES for s in STATS) + (
    "duration", "request_throughput", "output_throughput", "total_token_throughput", "request_goodput",
    "cache_hit_rate", "cost_per_million_output_tokens", "slo_attainment")
# A profile's coefficient names that are keys under another name (step_basis.COEFFICIENTS
# calls the fixed per-step time overhead_s; lab simulate serving calls it coef_step_s).
KEY_OF = {"overhead_s": "coef_step_s"}
BAND_KEYS = ("band_samples", "attainment")


def coefficient_raw(raw: Mapping[str, str], coefs: Mapping[str, float]) -> dict[str, str]:
    """raw with one coefficient set as keys; a key raw gives itself is kept (explicit wins)."""
    out = dict(raw)
    for name, value in coefs.items():
        key = KEY_OF.get(name, name)
        if key not in raw:
            out[key] = repr(float(value))
    return out


def percentile_band(values: Sequence[float]) -> dict[str, float] | None:
    """{"p5", "p50", "p95"} of the finite values (np.percentile, linear); None when none."""
    v = np.asarray([x for x in values if x is not None and np.isfinite(x)], dtype=float)
    if v.size == 0:
        return None
    p5, p50, p95 = np.percentile(v, [5, 50, 95])
    return {"p5": float(p5), "p50": float(p50), "p95": float(p95)}


def slos_of(raw: Mapping[str, str]) -> dict[str, float]:
    return {k: float(raw[k]) for k in SLO_KEYS if k in raw}


def attainment_share(result, slos: Mapping[str, float]) -> float | None:
    """Share of a run's requests within every SLO (None without SLOs)."""
    if not slos:
        return None
    good = meets_slo(result, **slos)
    return float(good.mean()) if good.size else 0.0


def parse_band_keys(raw: dict) -> tuple[int, float]:
    """Pop band_samples= and attainment= from raw (text values): (B, attainment)."""
    b, a = DEFAULT_SAMPLES, DEFAULT_ATTAINMENT
    if "band_samples" in raw:
        text = raw.pop("band_samples")
        try:
            b = int(str(text).strip())
        except ValueError:
            b = -1
        if not 0 <= b <= MAX_SAMPLES:
            raise ParamError("band_samples", f"got {text!r}; valid: a whole number 0..{MAX_SAMPLES} "
                                             "(coefficient sets replayed for the bands; 0: none)")
    if "attainment" in raw:
        text = raw.pop("attainment")
        try:
            a = float(str(text).strip())
        except ValueError:
            a = -1.0
        if not 0.0 < a <= 1.0:
            raise ParamError("attainment", f"got {text!r}; valid: a share in (0, 1], e.g. 0.9 (of a run's "
                                           "requests within every SLO for the run to meet them)")
    return b, a


def bands_from_runs(runs: Sequence[tuple[dict, float | None]], attainment: float = DEFAULT_ATTAINMENT) -> dict:
    """The bands block from (report, SLO share) per coefficient set: "bands" {metric:
    {p5, p50, p95}}, "meets_slo_probability" (share of sets with share >= attainment;
    None without SLOs), "band_samples" (B), "attainment"."""
    bands = {}
    for name in BAND_METRICS:
        values = [_number(r.get(name) if name != "slo_attainment" else s) for r, s in runs]
        band = percentile_band([v for v in values if v is not None])
        if band is not None:
            bands[name] = band
    shares = [s for _, s in runs if s is not None]
    prob = None if not runs or len(shares) < len(runs) else float(np.mean([s >= attainment for s in shares]))
    return {"bands": bands, "meets_slo_probability": prob, "band_samples": len(runs), "attainment": attainment}


def serving_bands(raw: Mapping[str, str], samples: Sequence[Mapping[str, float]],
                  replay: Callable[[dict], tuple[dict, tuple]], b: int = DEFAULT_SAMPLES,
                  attainment: float = DEFAULT_ATTAINMENT) -> dict:
    """Replay raw once per coefficient set (the first b of samples) with replay(raw) ->
    (report, (result, workload)) (headless.serving_report without bands) and band the
    reports (bands_from_runs)."""
    slos = slos_of(raw)
    runs = []
    for coefs in list(samples)[:b]:
        report, (result, _) = replay(coefficient_raw(raw, coefs))
        runs.append((report, attainment_share(result, slos)))
    return bands_from_runs(runs, attainment)


def banded_report(raw: Mapping[str, str], workload=None, progress=None,
                  samples: Sequence[Mapping[str, float]] | None = None,
                  attainment: float | None = None) -> tuple[dict, tuple]:
    """headless.serving_report's (report, (result, workload)) plus, with coefficient sets
    (samples, else the samples of the profile raw names: profile_samples), the bands block
    (bands_from_runs's keys). band_samples= and attainment= are read here (refused without
    coefficient sets: they would change nothing); attainment (the argument) is a caller's
    own (the capacity search's), taken with or without sets. The sets replay the report's
    own seed (seeds= still bands the point estimate over seeds), a trace read once."""
    raw = dict(raw)
    given = [k for k in BAND_KEYS if k in raw]
    b, share = parse_band_keys(raw)
    if samples is None:
        samples = profile_samples(raw)
    if not samples and given:
        raise ParamError(given[0], "applies to a calibration profile's coefficient sets; valid: with profile=P.toml "
                                   "(or hardware=P.toml) naming a profile that has [[samples]]")
    if attainment is not None:
        share = attainment
    if not samples or b <= 0:
        return serving_report(raw, workload=workload, progress=progress)
    if workload is None and "trace" in raw:
        workload = load_shared_trace(raw)
    report, run = serving_report(raw, workload=workload, progress=progress)
    plain = {k: v for k, v in raw.items() if k != "seeds"}
    report.update(serving_bands(plain, samples, lambda r: serving_report(r, workload=workload), b, share))
    return report, run


def profile_samples(raw: Mapping[str, str]) -> list[dict] | None:
    """The coefficient sets of the calibration profile raw names (profile=P.toml, or
    hardware=P.toml when that file is a profile, not a plain card); None when none. A bad
    profile is left for the keys' own check (core/serving/simulate_keys.py) to refuse."""
    path = raw.get("profile") or raw.get("hardware")
    try:
        from core.serving.profile import is_profile, read_cached
    except ImportError:  # the calibration's profile module not there yet
        return None
    if not path or not is_profile(path):
        return None
    try:
        samples = read_cached(path).samples
    except (ParamError, OSError):
        return None
    return [dict(s) for s in samples] or None


def _number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)
