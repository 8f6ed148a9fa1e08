"""`lab simulate rl [key=value ...] [--json] [--out DIR]`: an RL loop whose rollout runs
through the lab's serving engine (core.rl), headless.

--json prints the summary (core/rl/summary.py's keys). --out DIR writes steps.csv (one
row per step: every lane's start and end, the trainer's wait), samples.csv (one row per
sample per step it generated in), trace.json (Perfetto / chrome://tracing: a process
per pool, a thread per lane and replica, a slice per stage) and summary.json, all or none. Bad input: ParamError
naming the field (exit 2). No Qt here.
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from core.registry import ParamError
from core.rl import PARAMS, SUMMARY_KEYS, RLParams, simulate, summarize
from core.rl.summary import SAMPLE_HEADER, STEP_HEADER, sample_rows, step_rows
from core.rl.timeline import trace_events
from lab.cli.args import ARGS, SUFFIXES, Formatter, add_params, help_text, json_ready, wrapped
from lab.cli.simulate_files import write_folder

ABOUT = ("an RL loop: rollout through the serving engine, reward, reference, update and weight sync, "
         "synchronous, one-step off-policy, asynchronous (staleness eta) or partial rollouts (issue 16)")
FORMATS = ("text", "json")
FILES = ["steps.csv", "samples.csv", "trace.json", "summary.json"]


def add_parser(sub, kind: str = "rl") -> None:
    """The `lab simulate rl` sub-command, its options generated from core.rl.PARAMS."""
    p = sub.add_parser(kind, prog=f"lab simulate {kind}", help=help_text(ABOUT),
                       usage=f"lab simulate {kind} [{ARGS} ...] [--json] [--out DIR]",
                       description=help_text(f"{ABOUT}. The book's 例题 3-4 is the default: Qwen3-8B, P = 1024, "
                                              "G = 256, 16 kept of 32."),
                       epilog=help_text(f"prints (--json keys):\n{wrapped(', '.join(SUMMARY_KEYS))}\n\n"
                                        f"{wrapped(SUFFIXES)}"),
                       formatter_class=Formatter, allow_abbrev=False)
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.add_argument("--format", dest="fmt", choices=FORMATS, default=None, help="text (default) or json")
    p.add_argument("--out", metavar="DIR", help="write steps.csv, samples.csv, trace.json (Perfetto) and summary.json")
    add_params(p, PARAMS, f"parameters ({ARGS})")


def simulate_rl_report(raw: dict[str, str], out: str | None = None, fmt: str = "text") -> tuple[dict, str]:
    """(the summary --json prints, what to print for fmt)."""
    if fmt not in FORMATS:
        raise ParamError("--format", f"got {fmt!r}; valid: {', '.join(FORMATS)} (lab simulate rl)")
    run = simulate(RLParams.from_raw(raw))
    report = summarize(run)
    if out is not None:
        report["out"] = str(Path(out))
        report["files"] = write_files(Path(out), run, report)
    if fmt == "json":
        return report, json.dumps(json_ready(report), ensure_ascii=False)
    return report, report_text(report)


def _csv(header, rows) -> bytes:
    table = io.StringIO(newline="")
    w = csv.writer(table)
    w.writerow(header)
    w.writerows([repr(v) if isinstance(v, float) else v for v in row] for row in rows)
    return table.getvalue().encode("utf-8")


def write_files(out: Path, run, report: dict) -> list[str]:
    summary = dict(report, files=FILES)
    write_folder(out, {"steps.csv": _csv(STEP_HEADER, step_rows(run)),
                       "samples.csv": _csv(SAMPLE_HEADER, sample_rows(run)),
                       "trace.json": json.dumps(trace_events(run)).encode(),
                       "summary.json": (json.dumps(json_ready(summary), ensure_ascii=False, indent=1) + "\n").encode()})
    return list(FILES)


def report_text(r: dict) -> str:
    cost = "—" if r["cost_per_1000_steps"] is None else f"${r['cost_per_1000_steps']:,.0f}"
    lines = [f"RL loop ({r['mode']}, {r['placement']} pools, {r['cards']} cards: {r['rollout_cards']} rollout, "
             f"{r['trainer_cards']} trainer): {r['steps']} steps simulated in {r['wall_s']:.2f} s",
             f"  time per step {r['step_time_s']:.3f} s; each stage's own time per step:"]
    notes = {"idle": "  (trainer waiting for samples)", "sync_wait": "  (trainer waiting for the pool to take the weights)"}
    for name in ("rollout", "reward", "reference", "update", "sync", "switch", "idle", "sync_wait"):
        lines.append(f"    {name:<10}{r[f'{name}_s']:>12.3f} s" + notes.get(name, ""))
    lines += [f"  utilisation: rollout pool {r['rollout_pool_utilisation'] * 100:.1f}%, trainer "
              f"{r['trainer_pool_utilisation'] * 100:.1f}%; seats idle on the long tail "
              f"{r['rollout_tail_idle_share'] * 100:.1f}%",
              f"  kept {r['kept_samples']:,} of {r['consumed_samples']:,} consumed samples "
              f"({r['kept_samples_per_step']:.1f} per step), {r['kept_tokens_per_s']:,.0f} kept tokens/s",
              f"  staleness (policy versions): max {r['staleness_max']}, mean {r['staleness_mean']:.2f}",
              f"  {r['gpu_hours_per_1000_steps']:,.1f} GPU-hours per 1,000 steps, {cost}"]
    if "out" in r:
        lines.append(f"  wrote {', '.join(r['files'])} to {r['out']}")
    return "\n".join(lines)
