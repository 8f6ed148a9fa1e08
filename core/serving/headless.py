"""The serving replay's report, headless: what `lab simulate serving --json` prints, for
text parameters (serving.replay's plus core/serving/simulate_keys.py's). Moved here from
lab/simulate.py so that the sweep's evaluator (core/sweep/serving.py) runs in core; lab's
simulate_serving adds the --out files and the text on top. No Qt here.

    report, (result, work) = serving_report({"scenario": "shift", "seeds": "0,1,2"})

The report keeps the book's names (p95 by nearest rank, seconds) and adds `vllm bench
serve`'s (core/serving/vllm_metrics.py), and what the cards cost (core/serving/cost.py):
replicas, router, price_per_card_hour (hardware= sets it from the card; price_source says
where it is from), cost_per_hour, cost_per_million_output_tokens, and with replicas > 1
per_replica rows (core/serving/replicas.py; KV fractions of the merged run are of the
pooled KV of all replicas). With model=, hardware= or a deployment key (tp, pp, ep,
quantization, kv_cache_dtype, gpu_memory_utilization) a "deployment" block names the
model on its cards (core/serving/deployment.py): per-card weights, KV per token, the KV
pool and its blocks; a model that does not fit is refused. Bad input raises ParamError naming the field and its range.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from core.registry import ParamError, get
from core.serving import bench_keys, traces
from core.serving import replay as rp
from core.serving import simulate_keys as keys
from core.serving.cost import cost_report
from core.serving.disagg import keys as pd_keys
from core.serving.disagg.entry import pd_report
from core.serving.engine import validate
from core.serving.multimodal import keys as mm_keys
from core.serving.multimodal.pd import pd_images_report
from core.serving.multimodal.report import multimodal_report
from core.serving.traces.transforms import time_scaled
from core.serving.vllm_metrics import bench_metrics, measured_metrics

PERCENTILE_LABELS = {"*_p95_s": "nearest rank, the book's (⌈0.95·n⌉-th smallest)",
                     "median_/p90_/p99_*_ms": "linear interpolation, numpy's default (as vllm bench serve)"}


def serving_report(raw: dict[str, str], workload=None, progress=None) -> tuple[dict, tuple]:
    """Run the replay for text parameters: (the summary dict --json prints, (result,
    workload) for the files).

    workload: a trace the caller already read (load_shared_trace: time_scale=1, the same
    format/window/limit/... keys as raw's); raw must still name its trace=. The file is not
    read again; raw's time_scale is applied with the loader's own transform, so the report
    equals the one reading the file gives, bit for bit (a sweep reads a trace once).
    progress: progress(label) -> a bar (called with the fraction read; its close(), if
    any, runs once the trace is read) or None, asked only when a trace file is read."""

    if pd_keys.is_disaggregated(raw):  # prefill/decode pools (core/serving/disagg/entry.py)
        if mm_keys.is_multimodal(raw):  # with images: E -> P -> D (core/serving/multimodal/pd.py)
            return pd_images_report(raw, workload, progress)
        return pd_report(raw, workload, progress)
    if mm_keys.is_multimodal(raw):  # image requests (core/serving/multimodal/report.py)
        return multimodal_report(raw, workload, progress, trace_values)
    calc = get("serving.replay")
    expanded = keys.expand_checked(raw, lambda: "unknown parameter of lab simulate serving; valid: "
                                   + ", ".join([p.name for p in calc.params] + list(keys.names())))
    raw, got, price_note = expanded.raw, expanded.got, expanded.price_note
    scenario = got.get("scenario")
    trace = got.get("trace")
    if workload is not None and trace is None:
        raise ParamError("trace", "a preloaded workload needs the trace= it was read from; valid: trace=FILE")
    if trace is not None:
        result, work, config, values = _replay_trace(calc, raw, got, workload, progress, expanded)
    else:
        values = calc.resolve(raw)
        result, work, config = _replay_windows(values, got, expanded)
    summary = rp.summarize(result, work, config)
    report = {k: v for k, v in summary.items() if not k.startswith("series_")}
    report["source"] = (f"trace {trace}" if trace else f"dataset {got['dataset']}" if got.get("dataset")
                        else f"scenario {scenario}" if scenario else "windows")
    if "model" in got or "hardware" in got:
        report["model"], report["hardware"] = got.get("model"), got.get("hardware")
    if expanded.deployment is not None:
        report["deployment"] = expanded.deployment.report()
        report["step_model"] = dict({"kind": "basis"}, **config.cost.coefficients()) if (
            expanded.step_coefs is not None) else {"kind": "roofline"}
    slos = {k: got[k] for k in ("slo_ttft_ms", "slo_tpot_ms", "slo_e2el_ms") if k in got}
    report.update(bench_metrics(result, work, cost=config.cost, **slos))
    if slos:
        report["goodput_slos_ms"] = {k[4:-3]: v for k, v in slos.items()}
    report["percentiles"] = PERCENTILE_LABELS
    cards = expanded.deployment.cards if expanded.deployment is not None else 1
    report.update(_cost_and_replicas(result, values, price_note, cards))
    report.update(_cache_report(result, values, work))
    report["client"] = bench_keys.report(config, work, result)
    if trace is not None:
        report["trace"] = _trace_report(work)
        measured = dict(getattr(work, "meta", None) or {}).get("measured")
        if measured:  # a vllm bench serve result: its own figures beside the replay's
                report["measured"] = measured_metrics(measured, work.output_tokens)
    observed = _observed_for(values) if trace is None and not got.get("dataset") else None  # the book ran its windows
    if observed is not None:
        report["book_observed"] = observed
    if "seeds" in got:
        seeds = got["seeds"]
        bands = _band(values, seeds, got, expanded)
        report["band"] = {m: {"min": lo, "median": mid, "max": hi} for m, (lo, mid, hi) in bands.items()}
        report["seeds"] = seeds
    return report, (result, work)


def _replay_windows(values: Mapping[str, Any], got: dict, expanded, seed: int | None = None):
    """The book's windows, or a vllm bench workload (dataset=), through the engine with the
    client and front end the keys give (core/serving/bench_keys.py)."""
    if seed is not None:
        values = dict(values, seed=seed)
    cost = expanded.step_cost(values)

    def client(config):
        return bench_keys.with_client(config, got, _frontend_default(expanded), int(values["replicas"]), False)

    if "dataset" not in got:
        kw: dict = {} if cost is None else {"cost": cost}
        if bench_keys.active(got, _frontend_default(expanded)):
            kw["client"] = client
        return rp.run_replay(values, **kw)
    config = client(rp.config_from(values, cost))
    work = bench_keys.workload(got, int(values["seed"]))
    validate(config, work)
    return rp.replay_workload(work, config, values), work, config


def _frontend_default(expanded) -> bool:
    """The front end is on by default where a deployment is priced by the basis step model
    (model=, hardware=, a deployment key; not step_model=roofline, the book's knobs)."""
    return expanded.deployment is not None and expanded.step_coefs is not None


def _band(values: dict, seeds, got: dict, expanded) -> dict:
    """(min, median, max) of the book's metrics over seeds, each run as the report's."""
    runs = [rp.summarize(*_replay_windows(values, got, expanded, int(seed))) for seed in seeds]
    return {m: (float(np.min([r[m] for r in runs])), float(np.median([r[m] for r in runs])),
                float(np.max([r[m] for r in runs]))) for m in rp.METRICS}


def load_shared_trace(raw: dict[str, str]):
    """The trace raw names, read once with time_scale=1 (raw's format/window/limit/...
    keys applied), for serving_report(..., workload=) at any time_scale; None without
    trace=. Bad keys raise ParamError as serving_report does."""

    got = keys.pop_extras(dict(raw))
    if "trace" not in got:
        return None
    got.pop("time_scale", None)
    return traces.load_trace(got["trace"], **keys.load_kwargs(got, None))


def _replay_trace(calc, raw: dict, got: dict, preloaded=None, progress=None, expanded=None):
    """A trace replaces the windows, so their cross-checks do not apply."""

    values = trace_values(calc, raw)
    cost = expanded.step_cost(values) if expanded is not None else None
    if preloaded is not None:
        work = time_scaled(preloaded, got.get("time_scale", 1.0))
    else:
        bar = progress(f"reading {Path(got['trace']).name}") if progress is not None else None
        try:
            work = traces.load_trace(got["trace"], **keys.load_kwargs(got, bar))
        finally:
            if bar is not None and hasattr(bar, "close"):
                bar.close()
    config = rp.config_from(values, cost)
    config = bench_keys.with_client(config, bench_keys.with_trace_limit(got, work, int(values["replicas"])),
                                    expanded is not None and _frontend_default(expanded), int(values["replicas"]),
                                    getattr(work, "sessions", None) is not None)
    # A request the pool cannot hold: refused naming kv_pool_bytes and the pool it needs, the
    # same words whether the trace was read here or once for a sweep.
    validate(config, work)
    return rp.replay_workload(work, config, values), work, config, values


# The book's windows as one 2-token request: serving.replay's cross-field check (the
# windows' request count, prefill steps, and their largest request, 8,192 + 256 tokens by
# default, against the KV pool) then checks only the engine's own settings.
NEUTRAL_WINDOWS = {"durations_s": "1", "rates_per_s": "1", "shares_long_input": "0", "long_input_in_tokens": "1",
                   "long_input_out_tokens": "1", "long_output_in_tokens": "1", "long_output_out_tokens": "1"}


def trace_values(calc, raw: Mapping[str, Any]):
    """serving.replay's values for a trace's replay: the keys given checked as ever, the
    windows (which a trace replaces) neutral unless given, so a small KV pool that holds
    every request of the trace is not refused for the book's 8,448-token request."""
    return calc.resolve(dict(NEUTRAL_WINDOWS, **raw))


def _cache_report(result, values, work) -> dict:
    """Prefix caching acts only on a workload with prefix or session information."""
    cached = 0 if result.cached_tokens is None else int(np.sum(result.cached_tokens))
    prompt = int(np.sum(result.input_tokens))
    extras = {k: v for k, v in dict(result.extras or {}).items() if k not in ("replicas", "replica_of")}
    rate = extras.pop("cache_hit_rate", cached / prompt if prompt else 0.0)
    report: dict[str, Any] = {"prefix_caching": bool(values["prefix_caching"]), "cached_tokens_total": cached,
              "cache_hit_rate": float(rate),
              "prefix_information": getattr(work, "prefix", None) is not None or getattr(work, "sessions", None) is not None}
    if extras:
        report["engine_extras"] = {k: _plain(v) for k, v in extras.items()}
    return report


def _cost_and_replicas(result, values, price_note: str | None, cards_per_replica: int = 1) -> dict:
    """replicas, router, the price and its source, cost per hour and per million output
    tokens (core.serving.cost; each replica pays for its tp · pp cards), and with
    replicas > 1 a summary of each replica."""
    price = None if price_note is None else float(values["price_per_card_hour"])
    report = cost_report(result, int(values["replicas"]), price, cards_per_replica)
    report["router"] = str(values["router"])
    report["price_source"] = price_note or "this card has no price; give price_per_card_hour= (USD per card-hour)"
    extras = result.extras or {}
    if "replicas" in extras:
        replica_of = np.asarray(extras["replica_of"])
        rows = []
        for entry in extras["replicas"]:
            mine = replica_of == entry["replica"]
            row = {"replica": entry["replica"], "requests": entry["requests"], "engine_steps": entry["engine_steps"],
                   "preemptions": entry["preemptions"],
                   "kv_peak_fraction": entry["kv_peak_blocks"] / entry["num_blocks"] if entry["num_blocks"] else 0.0}
            if mine.any():
                row["ttft_p95_s"] = rp.nearest_rank_p95(result.ttft_s[mine])
                row["last_completion_s"] = float(np.max(result.finish_s[mine]))
            rows.append(row)
        report["per_replica"] = rows
    return report


def _plain(value):
    """numpy values and containers as JSON takes them."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _trace_report(work) -> dict:
    meta = dict(getattr(work, "meta", None) or {})
    return {"format": meta.get("format"), "rows": meta.get("rows", len(work)),
            "dropped": {str(k): int(v) for k, v in dict(meta.get("dropped") or {}).items()},
            "requests": len(work), **({"timestamps": meta["timestamps"]} if "timestamps" in meta else {})}


def _observed_for(values: dict) -> dict | None:
    """The book's observed run when the parameters are one of its two scenarios."""
    key = rp.matching_scenario(values)
    return None if key is None else dict(rp.OBSERVED[key], scenario=key)
