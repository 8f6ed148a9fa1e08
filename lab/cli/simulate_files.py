"""The files `lab simulate serving --out DIR` writes: requests.csv (one row per request),
series.csv (waiting, running, KV use over time), preemptions.csv, summary.json, and with
--format aiperf profile_export.jsonl (AIPerf's per-request records). With replicas > 1
requests.csv gains a replica column and replicas.csv holds each replica's series. No Qt here.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

from core.registry import ParamError
from core.serving.vllm_metrics import aiperf_records, tpot_s

REQUEST_COLUMNS = ("request", "arrival_s", "input_tokens", "output_tokens", "cached_tokens", "first_schedule_s",
                   "first_token_s", "finish_s", "first_schedule_wait_s", "ttft_s", "tpot_s", "request_s",
                   "preemptions")
AIPERF_FILE = "profile_export.jsonl"


def write_all(folder: Path, result, workload, report: dict, aiperf: bool = False) -> list[str]:
    """Write the run's files into folder (made if missing); returns their names."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        written = [write_requests(folder / "requests.csv", result), write_series(folder / "series.csv", result),
                   write_preemptions(folder / "preemptions.csv", result)]
        if "replicas" in (result.extras or {}):
            written.append(write_replicas(folder / "replicas.csv", result))
        if aiperf:
            written.append(write_aiperf(folder / AIPERF_FILE, result, workload))
        (folder / "summary.json").write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    except OSError as exc:
        raise ParamError("--out", f"cannot write to {str(folder)!r} ({exc.strerror}); valid: a writable directory") from None
    return written + ["summary.json"]


def write_requests(path: Path, result) -> str:
    tpot = tpot_s(result)
    cached = result.cached_tokens
    replica_of = (result.extras or {}).get("replica_of")
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(REQUEST_COLUMNS + (("replica",) if replica_of is not None else ()))
        for i in range(result.arrival_s.size):
            a = result.arrival_s[i]
            w.writerow([i, f"{a:.6f}", int(result.input_tokens[i]), int(result.output_tokens[i]),
                        0 if cached is None else int(cached[i]),
                        f"{result.first_schedule_s[i]:.6f}", f"{result.first_token_s[i]:.6f}", f"{result.finish_s[i]:.6f}",
                        f"{result.first_schedule_s[i] - a:.6f}", f"{result.first_token_s[i] - a:.6f}",
                        "" if tpot[i] != tpot[i] else f"{tpot[i]:.6f}",  # no TPOT with one output token
                        f"{result.finish_s[i] - a:.6f}", int(result.preemptions[i])]
                       + ([int(replica_of[i])] if replica_of is not None else []))
    return path.name


def write_replicas(path: Path, result) -> str:
    """Each replica's own series (core.serving.replicas), one block of rows per replica."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["replica", "t_s", "waiting", "running", "kv_blocks", "kv_fraction"])
        for entry in result.extras["replicas"]:
            blocks = entry["num_blocks"] or 1
            for t, q, r, kv in zip(entry["series_t"], entry["series_waiting"], entry["series_running"],
                                   entry["series_kv_blocks"]):
                w.writerow([entry["replica"], f"{t:.6f}", int(q), int(r), int(kv), f"{kv / blocks:.6f}"])
    return path.name


def write_series(path: Path, result) -> str:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["t_s", "waiting", "running", "kv_blocks", "kv_fraction", "tokens_in_step"])
        for row in zip(result.series_t, result.series_waiting, result.series_running, result.series_kv_blocks,
                       result.series_kv_fraction, result.series_tokens):
            w.writerow([f"{row[0]:.6f}", int(row[1]), int(row[2]), int(row[3]), f"{row[4]:.6f}", int(row[5])])
    return path.name


def write_preemptions(path: Path, result) -> str:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["request", "preempted_s", "rescheduled_s"])
        for rid, t0, t1 in result.preempt_log:
            w.writerow([rid, f"{t0:.6f}", f"{t1:.6f}"])
    return path.name


def aiperf_lines(result, workload) -> str:
    """AIPerf's profile_export.jsonl: one JSON record per line."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in aiperf_records(result, workload))


def write_aiperf(path: Path, result, workload) -> str:
    path.write_text(aiperf_lines(result, workload), encoding="utf-8")
    return path.name
