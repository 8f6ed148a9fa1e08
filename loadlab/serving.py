"""loadlab.simulate_serving: `lab simulate serving` from Python, its result as an object."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from core.serving import vllm_series as vs
from core.serving.vllm_metrics import tpot_s
from loadlab import _keys
from loadlab.tables import table, write_parquet

REQUEST_COLUMNS = ("request", "arrival_s", "input_tokens", "output_tokens", "cached_tokens", "first_schedule_s",
                   "first_token_s", "finish_s", "first_schedule_wait_s", "ttft_s", "tpot_s", "request_s",
                   "preemptions")


@dataclass
class ServingRun:
    """One replay. summary: the dict `lab simulate serving --json` prints (vLLM bench
    serve's names, times in ms; the book's figures, in seconds, under summary["book"]:
    lab/cli/report_units.py); requests, series, preemptions: tables
    (pandas DataFrames when pandas is installed, else pyarrow Tables) with requests.csv's,
    series.csv's (vLLM's Prometheus names) and preemptions.csv's columns, unrounded;
    trace: trace.json's dict; result / workload: the engine's own records."""

    summary: dict
    result: Any = field(repr=False)
    workload: Any = field(repr=False)
    report: dict = field(default_factory=dict, repr=False)  # the flat report the text and sweeps read

    @cached_property
    def requests(self):
        r = self.result
        tpot = tpot_s(r)  # NaN with one output token, as requests.csv leaves it empty
        cached = np.zeros(r.arrival_s.size, dtype=np.int64) if r.cached_tokens is None else r.cached_tokens
        cols = {"request": np.arange(r.arrival_s.size), "arrival_s": r.arrival_s, "input_tokens": r.input_tokens,
                "output_tokens": r.output_tokens, "cached_tokens": cached, "first_schedule_s": r.first_schedule_s,
                "first_token_s": r.first_token_s, "finish_s": r.finish_s, "first_schedule_wait_s": r.first_schedule_wait_s,
                "ttft_s": r.ttft_s, "tpot_s": tpot, "request_s": r.request_s, "preemptions": r.preemptions}
        replica_of = (r.extras or {}).get("replica_of")
        if replica_of is not None:
            cols["replica"] = np.asarray(replica_of)
        transfer = (r.extras or {}).get("request_columns")
        if transfer:  # a P/D run's transfer phase, as requests.csv has it (NaN: never reached the decode pool)
            cols.update({k: np.asarray(v) for k, v in transfer.items()})
            cols["decode_instance"] = np.where(cols["decode_instance"] < 0, np.nan, cols["decode_instance"])
            for name in ("kv_alloc_s", "kv_ready_s"):
                if getattr(r, name, None) is not None:
                    cols[name] = np.asarray(getattr(r, name))
        return table(cols)

    @cached_property
    def series(self):
        r = self.result
        cols = {"t_s": r.series_t, vs.WAITING: r.series_waiting, vs.RUNNING: r.series_running,
                vs.KV_USE: r.series_kv_fraction, "kv_blocks": r.series_kv_blocks, "tokens_in_step": r.series_tokens}
        cols.update(vs.counters(r))
        return table(cols)

    @cached_property
    def preemptions(self):
        log = self.result.preempt_log
        return table({"request": np.array([p[0] for p in log], dtype=np.int64),
                      "preempted_s": np.array([p[1] for p in log], dtype=float),
                      "rescheduled_s": np.array([p[2] for p in log], dtype=float)})

    @property
    def trace(self) -> dict:
        from core.serving.trace_events import chrome_trace

        return chrome_trace(self.result, self.workload)

    def prometheus(self) -> str:
        """The final metrics in Prometheus's text format (what --format prometheus writes)."""
        from lab.cli.simulate_files import prometheus_text

        return prometheus_text(self.result, self.report)

    def to_parquet(self, folder: str | os.PathLike) -> dict[str, Path]:
        """requests.parquet, series.parquet and preemptions.parquet in folder (made if
        missing); returns their paths by table name."""
        base = Path(folder)
        return {name: write_parquet(getattr(self, name), base / f"{name}.parquet")
                for name in ("requests", "series", "preemptions")}

    def save(self, folder: str | os.PathLike, aiperf: bool = False, prometheus: bool = False) -> list[str]:
        """The files `lab simulate serving --out folder` writes (requests.csv, series.csv,
        preemptions.csv, trace.json, summary.json; profile_export.jsonl, metrics.prom on
        request), all or none; returns their names."""
        from lab.cli.simulate_files import write_all

        return write_all(Path(folder), self.result, self.workload, self.report, aiperf=aiperf, prometheus=prometheus)


def simulate_serving(*, config: str | os.PathLike | None = None, **params: Any) -> ServingRun:
    """Replay requests through the serving engine: `lab simulate serving` with keywords.

    Every key of `lab simulate serving --help` is a keyword, under our name or vLLM's
    (max_num_batched_tokens= is token_budget=, request_rate=, num_prompts=, ...), with the
    CLI's defaults (the book's 480-request uniform run) and checks: a bad value or an
    unknown key raises loadlab.ParamError naming the field and what is valid. Values are
    Python's (numbers, lists, bools, paths) or the CLI's text ("12GiB", "0.5s").
    config: a TOML/JSON(/YAML) file of keys, as --config (keywords win).

    Example, the book's shift run with four seeds and an SLO::

        >>> import loadlab
        >>> run = loadlab.simulate_serving(scenario="shift", seeds=[0, 1, 2, 3], slo_ttft_ms=2000)
        >>> run.summary["requests"], run.summary["book"]["observed"]["scenario"]
        (480, 'shift')
        >>> run.summary["book"]["ttft_p95_s"] * 1e3 >= run.summary["median_ttft_ms"]   # the book's p95, in s
        True
        >>> run.summary["p99_ttft_ms"] > run.summary["median_ttft_ms"]
        True
        >>> run.requests.num_rows if hasattr(run.requests, "num_rows") else len(run.requests)
        480
    """
    from lab.cli.report_units import json_view
    from lab.cli.simulate import simulate_serving as cli_simulate

    raw = _keys.with_config(config, _keys.as_text(params))
    report, (result, work) = cli_simulate(raw)
    return ServingRun(json_view(report), result, work, report)
