"""The serving kind of core.sweep (SERVING: its keys, how a point resolves, the point
evaluator), moved here from lab/cli/sweep.py, which keeps the command (`lab sweep serving`).
A point is exactly `lab simulate serving` for its keys (core.serving.headless.serving_report,
the trace read once and shared); its row is that report flattened plus the sweep's columns:
  point, setting, seed          the point's key, its setting's key (no seed), the seed
  param.NAME                    every resolved serving.replay parameter and every extra key
                                given (scenario, model, time_scale, slo_*...; lists as JSON text)
  <report keys>                 as --json prints them; a dict or list value as JSON text
  slo_attainment                share of requests within every SLO given (None without SLOs)
  error                         why the replay refused the point (then no metrics)
  search.*                      with search=max_rate: the capacity found; the report is then
                                the replay at search.max_rate_multiplier times the setting's
                                rate (param.* stay the setting's own)
  band.METRIC.p5|p50|p95        with a calibration profile's coefficient sets (profile=, or
  meets_slo_probability         hardware= naming a profile; core/calibrate/bands.py): each
                                metric over band_samples= sets (default 20) and the share of
                                sets whose run meets the SLOs (attainment of its requests >=
                                the sweep's attainment); the search then passes a rate when
                                that probability is >= confidence= (core/sweep/spec.py)
A point with bands costs 1 + B replays (a search, that many per rate it tries); keep B
small (band_samples=5..20). The profile's bytes are part of the point's key.
No Qt here.
"""
from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from core.calibrate.bands import banded_report, parse_band_keys
from core.registry import ParamError, get
from core.serving import simulate_keys as keys
from core.serving.headless import load_shared_trace
from core.serving.vllm_metrics import meets_slo
from core.sweep.points import file_digest
from core.sweep.search import max_multiplier
from core.sweep.spec import DEFAULT_CONFIDENCE, as_json_value

SLO_KEYS = ("slo_ttft_ms", "slo_tpot_ms", "slo_e2el_ms")
# Keys the whole sweep shares: the trace is read once, and the SLOs define "meets".
FIXED_KEYS = ("trace", "format", "window", "limit", "trace_model", "trace_log_type", "hash_block_tokens",
              "band_samples") + SLO_KEYS
BAND_KEY = "band_samples"


class ServingKind:
    name = "serving"
    evaluate: Callable[[Any, dict], dict]  # evaluate_point, set once it is defined below

    def _params(self) -> dict:
        params = {p.name: p for p in get("serving.replay").params}
        params.update({p.name: p for p in keys.extra_params() if p.name != "seeds"})
        return params

    def value_kind(self, key: str) -> str | None:
        p = self._params().get(key)
        if p is not None:
            return {"floats": "list", "float": "number", "int": "int"}.get(p.kind, "text")
        if key == BAND_KEY:
            return "int"
        return "text" if key in keys.TEXT_KEYS or key == "trace" else None

    def unit(self, key: str) -> str | None:
        p = self._params().get(key)
        return None if p is None else p.unit

    def valid_keys(self) -> list[str]:
        return list(self._params()) + list(keys.TEXT_KEYS) + ["trace", BAND_KEY]

    def fixed_keys(self) -> tuple[str, ...]:
        return FIXED_KEYS

    def check_spec(self, spec) -> None:
        """Called once per parse_sweep, before its points resolve."""
        self._resolve.cache_clear()  # a model config or card TOML may have changed since the last sweep
        if spec.seeds is not None and "trace" in spec.fixed:
            raise ParamError("seeds", "a trace has fixed arrivals; valid: seeds only without trace=")

    def check_search(self, fixed: dict) -> None:
        if not any(k in fixed for k in SLO_KEYS):
            raise ParamError("search", "needs an SLO to search against; valid: with slo_ttft_ms=, slo_tpot_ms= "
                                       "and/or slo_e2el_ms=")

    def resolve(self, raw: dict) -> dict:
        """What the point's report depends on, as simulate_serving reads raw: the resolved
        serving.replay values (scenario, model and hardware expanded) and the extra keys.
        The seeds of one setting resolve once (a seed is a checked whole number that no
        cross-field check reads), so a seeded grid checks each setting once."""
        seed = raw.get("seed")
        rest = tuple(sorted((k, v) for k, v in raw.items() if k != "seed"))
        if seed is None:
            return self._resolve(rest)
        params = self._resolve(rest)
        values = dict(params["values"], seed=get("serving.replay").param("seed").parse(seed))
        return dict(params, values=values)

    @functools.lru_cache(maxsize=4096)  # noqa: B019 - one ServingKind (SERVING) for the process: it is never freed
    def _resolve(self, items: tuple) -> dict:
        return self._resolve_raw(dict(items))

    def _resolve_raw(self, raw: dict) -> dict:
        band = {BAND_KEY: parse_band_keys({BAND_KEY: raw.pop(BAND_KEY)})[0]} if BAND_KEY in raw else {}
        files = _profile_digests(raw)
        raw, got, _ = keys.expand(raw, lambda: f"unknown key of lab sweep serving; valid: {', '.join(self.valid_keys())}")
        values = get("serving.replay").resolve(raw)
        extras = {k: as_json_value(v) for k, v in got.items() if k != "trace"}  # the trace is in by content
        extras.update(band)
        extras.update(files)
        return {"values": {k: as_json_value(v) for k, v in dict(values).items()}, "extras": extras,
                "trace": "trace" in got}

    def load_shared(self, fixed: dict):
        return load_shared_trace(fixed)


def evaluate_point(shared, payload: dict) -> dict:
    """One point's row (runs in a worker process or a Ray task). A point the replay
    refuses (a trace request larger than this setting's KV pool...) is a row with its
    `error` and no metrics: one impossible setting does not end a sweep of thousands; the
    refusal is as deterministic as a result, so it is kept and reused like one."""
    try:
        if payload.get("search"):
            return _search_row(shared, payload)
        report, run = _simulate(payload["raw"], shared)
    except ParamError as err:
        return dict(make_row(payload, {}, None), error=str(err))
    return make_row(payload, report, _attainment(run[0], payload["raw"]))


SERVING = ServingKind()
SERVING.evaluate = evaluate_point  # a module-level function: workers unpickle it by name


def _simulate(raw: dict, shared, attainment: float | None = None):
    return banded_report(raw, workload=shared, attainment=attainment)


def _profile_digests(raw: dict) -> dict:
    """The bytes of a TOML that profile= or hardware= names (a profile's coefficient sets
    are read at each point, so its content, not its name, keys the point)."""
    out = {}
    for key in ("profile", "hardware"):
        path = str(raw.get(key, ""))
        if path.endswith(".toml"):
            try:
                out[f"{key}_sha256"] = file_digest(path)
            except OSError:
                pass  # a missing file is refused by name when the keys expand
    return out


def _attainment(result, raw: dict) -> float | None:
    slos = {k: float(raw[k]) for k in SLO_KEYS if k in raw}
    if not slos:
        return None
    good = meets_slo(result, **slos)
    return float(good.mean()) if good.size else 0.0


def flat(value):
    """A report value as one cell: scalars as they are, dicts and lists as JSON text."""
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False)
    return value


def make_row(payload: dict, report: dict, attainment: float | None) -> dict:
    row = {"point": payload["key"], "setting": payload["setting"], "seed": payload["seed"]}
    for name, value in payload["params"]["values"].items():
        row[f"param.{name}"] = flat(value)
    for name, value in payload["params"]["extras"].items():  # scenario, model, time_scale, slo_*...
        row[f"param.{name}"] = flat(value)
    for name, value in report.items():
        if name == "bands":  # a column per metric and end, not one JSON cell
            for metric, band in value.items():
                row.update({f"band.{metric}.{end}": band[end] for end in ("p5", "p50", "p95")})
        else:
            row[name] = flat(value)
    row["slo_attainment"] = attainment
    return row


def _search_row(shared, payload: dict) -> dict:
    search, raw, params = payload["search"], payload["raw"], payload["params"]
    runs: dict[float, tuple] = {}
    refusals: list[ParamError] = []

    confidence = search.get("confidence", DEFAULT_CONFIDENCE)

    def attains(m: float):
        try:
            # A coefficient set's run "meets" the SLOs as the search's own test does.
            report, run = _simulate(scaled(raw, params, m), shared, float(search["attainment"]))
        except ParamError as err:  # too many (or too few) requests to replay at this rate: a limit, not the SLO
            refusals.append(err)
            return None, None
        share = _attainment(run[0], raw)
        runs[m] = (report, run, share)
        prob = report.get("meets_slo_probability")
        if prob is not None:  # coefficient sets: P(meets the SLOs) >= confidence, not the point estimate
            return prob >= confidence, m
        return share >= search["attainment"], m

    found = max_multiplier(attains, search["tolerance"])
    at = found.multiplier if found.found else min(runs) if runs else None
    if at is None:  # refused at every rate tried: the setting itself (evaluate_point makes it an error row)
        raise refusals[0]
    report, run, share = runs[at]
    row = make_row(payload, report, share)
    work = run[1]
    rate = offered_rate(params, work, at)
    row.update({"search.max_rate_multiplier": found.multiplier, "search.max_rate_per_s": rate if found.found else 0.0,
                "search.goodput": report.get("request_goodput") if found.found else 0.0,
                "search.attainment": share, "search.upper_multiplier": found.upper, "search.replays": found.replays,
                "search.capped": found.capped, "search.tolerance": search["tolerance"]})
    if report.get("meets_slo_probability") is not None:
        row.update({"search.confidence": confidence, "search.meets_slo_probability": report["meets_slo_probability"]})
    return row


def scaled(raw: dict, params: dict, m: float) -> dict:
    """raw at m times its offered rate: a trace's time_scale, or the windows' rates."""
    out = dict(raw)
    if params["trace"]:
        out["time_scale"] = repr(float(params["extras"].get("time_scale", 1.0)) * m)
    else:
        out["rates_per_s"] = ",".join(repr(float(r) * m) for r in params["values"]["rates_per_s"])
    return out


def offered_rate(params: dict, work, m: float) -> float:
    """Requests per second offered at multiplier m: Σ rate·duration / Σ duration for the
    windows; a trace's requests over its arrival span."""
    if not params["trace"]:
        v = params["values"]
        return sum(r * m * d for r, d in zip(v["rates_per_s"], v["durations_s"])) / sum(v["durations_s"])
    span = float(work.arrival_s.max() - work.arrival_s.min()) if len(work) > 1 else 0.0
    return len(work) / span if span > 0 else float("nan")
