"""The files `lab simulate serving --out DIR` writes: requests.csv (one row per request),
series.csv (waiting, running, KV use and vLLM's counters over time, under the names of
vLLM's Prometheus metrics: core/serving/vllm_series.py), preemptions.csv, trace.json (the
timeline for Perfetto / chrome://tracing: core/serving/trace_events.py), summary.json, and
with --format aiperf profile_export.jsonl (AIPerf's per-request records), with --format
prometheus metrics.prom (the final metrics in Prometheus's text format:
core/serving/prometheus_text.py). With replicas > 1 requests.csv gains a replica column and
replicas.csv holds each replica's series. No Qt here.
"""
from __future__ import annotations

import contextlib
import csv
import io
import json
from pathlib import Path

from core.atomic_file import write_atomic_all
from core.registry import ParamError
from core.serving import vllm_series as vs
from core.serving.disagg.text import request_columns
from core.serving.prometheus_text import exposition
from core.serving.trace_events import chrome_trace
from core.serving.vllm_metrics import aiperf_records, tpot_s
from lab.cli.report_units import json_view

REQUEST_COLUMNS = ("request", "arrival_s", "input_tokens", "output_tokens", "cached_tokens", "first_schedule_s",
                   "first_token_s", "finish_s", "first_schedule_wait_s", "ttft_s", "tpot_s", "request_s",
                   "preemptions")
AIPERF_FILE = "profile_export.jsonl"
PROMETHEUS_FILE = "metrics.prom"
TRACE_FILE = "trace.json"


def write_all(folder: Path, result, workload, report: dict, aiperf: bool = False, prometheus: bool = False,
              pools=None) -> list[str]:
    """Write the run's files into folder (made if missing), all of them whole or none
    (core.atomic_file.write_atomic_all: a full disk leaves the folder as it was); returns
    their names. pools: a pool name per replica for trace.json (chrome_trace)."""
    files = {"requests.csv": requests_csv(result), "series.csv": series_csv(result),
             "preemptions.csv": preemptions_csv(result), TRACE_FILE: trace_json(result, workload, pools)}
    if "replicas" in (result.extras or {}):
        files["replicas.csv"] = replicas_csv(result)
    if aiperf:
        files[AIPERF_FILE] = aiperf_lines(result, workload)
    if prometheus:
        files[PROMETHEUS_FILE] = prometheus_text(result, report)
    files["summary.json"] = json.dumps(json_view(report), ensure_ascii=False, indent=1)  # one unit: report_units
    write_folder(folder, {name: text.encode("utf-8") for name, text in files.items()})
    return list(files)


def write_folder(folder: Path, files: dict[str, bytes]) -> None:
    """files (name -> bytes) into folder, all or none: ParamError('--out') saying why not.
    A folder this call made is removed again when nothing could be written into it."""
    made = not folder.exists()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic_all({folder / name: data for name, data in files.items()})
    except OSError as exc:
        if made:
            with contextlib.suppress(OSError):
                folder.rmdir()  # only if empty
        raise ParamError("--out", f"cannot write to {str(folder)!r} ({exc.strerror}); valid: a writable directory "
                         "with room (nothing was written)") from None


def _csv_text(rows_of) -> str:
    out = io.StringIO(newline="")
    rows_of(csv.writer(out))
    return out.getvalue()


def requests_csv(result) -> str:
    return _csv_text(lambda w: _request_rows(w, result))


def _request_rows(w, result) -> None:
    tpot = tpot_s(result)
    cached = result.cached_tokens
    replica_of = (result.extras or {}).get("replica_of")
    transfer = request_columns(result)  # a P/D run's transfer phase (core/serving/disagg)
    w.writerow(REQUEST_COLUMNS + (("replica",) if replica_of is not None else ()) + tuple(transfer))
    for i in range(result.arrival_s.size):
        a = result.arrival_s[i]
        w.writerow([i, f"{a:.6f}", int(result.input_tokens[i]), int(result.output_tokens[i]),
                    0 if cached is None else int(cached[i]),
                    f"{result.first_schedule_s[i]:.6f}", f"{result.first_token_s[i]:.6f}", f"{result.finish_s[i]:.6f}",
                    f"{result.first_schedule_s[i] - a:.6f}", f"{result.first_token_s[i] - a:.6f}",
                    "" if tpot[i] != tpot[i] else f"{tpot[i]:.6f}",  # no TPOT with one output token
                    f"{result.finish_s[i] - a:.6f}", int(result.preemptions[i])]
                   + ([int(replica_of[i])] if replica_of is not None else []) + [c[i] for c in transfer.values()])


def replicas_csv(result) -> str:
    """Each replica's own series (core.serving.replicas), one block of rows per replica."""
    return _csv_text(lambda w: _replica_rows(w, result))


def _replica_rows(w, result) -> None:
    w.writerow(["replica", "t_s", vs.WAITING, vs.RUNNING, "kv_blocks", vs.KV_USE])
    for entry in result.extras["replicas"]:
        blocks = entry["num_blocks"] or 1
        for t, q, r, kv in zip(entry["series_t"], entry["series_waiting"], entry["series_running"],
                               entry["series_kv_blocks"]):
            w.writerow([entry["replica"], f"{t:.6f}", int(q), int(r), int(kv), f"{kv / blocks:.6f}"])


def series_csv(result) -> str:
    return _csv_text(lambda w: _series_rows(w, result))


def _series_rows(w, result) -> None:
    w.writerow(vs.COLUMNS)
    w.writerows(vs.series_rows(result))


def trace_json(result, workload, pools=None) -> str:
    """trace.json: compact (the caps of core/serving/trace_events.py bound its size)."""
    return json.dumps(chrome_trace(result, workload, pools), ensure_ascii=False, separators=(",", ":"))


def prometheus_text(result, report: dict) -> str:
    """metrics.prom: model_name is the model= key's, else the lab's."""
    return exposition(result, model=str(report.get("model") or "load-lab"))


def preemptions_csv(result) -> str:
    def rows(w):
        w.writerow(["request", "preempted_s", "rescheduled_s"])
        for rid, t0, t1 in result.preempt_log:
            w.writerow([rid, f"{t0:.6f}", f"{t1:.6f}"])
    return _csv_text(rows)


def aiperf_lines(result, workload) -> str:
    """AIPerf's profile_export.jsonl: one JSON record per line."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in aiperf_records(result, workload))

