"""`lab sweep serving KEY=v1,v2 KEY=start:stop:step seeds=0-7 [trace=FILE | scenario=...]
[slo_*=MS] [search=max_rate attainment=0.9 tolerance=0.02] --out DIR [--engine local|ray]
[--workers N] [--address HOST:PORT] [--json] [--force]`

The command: its parser, the progress bar and the text summary. The serving kind of
core.sweep (SERVING: its keys, how a point resolves, the point evaluator, the row's
columns) moved to core/sweep/serving.py, so the Plan panel sweeps without lab. No Qt here.
"""
from __future__ import annotations

import importlib.abc
import json
import sys

from core.registry import ParamError

ENGINE_HELP = "local: a process pool on this machine (default); ray: Ray tasks on --address or a local Ray"


# -- the command -------------------------------------------------------------------------
def add_parser(sub, formatter) -> None:
    """`lab sweep KIND ...` in lab's one argparse tree (lab/cli/parser.py calls this)."""
    from core.sweep.run import KINDS  # lazy, as cmd_sweep's: only `lab sweep` loads core.sweep

    p = sub.add_parser("sweep", help="many replays on a process pool or a Ray cluster: lab sweep serving KEY=v1,v2 ...",
                       prog="lab sweep", formatter_class=formatter,
                       description="Many `lab simulate serving` runs (a grid of settings x seeds, or a capacity "
                                   "search per setting) on a process pool or a Ray cluster, kept in a resumable "
                                   "folder: results.csv, results.parquet (one row per point: every parameter, the "
                                   "seed, every --json metric) and summary.json (Pareto set, cheapest setting "
                                   "meeting the SLOs, seed bands, capacity).",
                       usage="lab sweep serving [KEY=v1,v2 | KEY=start:stop:step ...] [seeds=0-7] [search=max_rate] "
                             "--out DIR [--engine local|ray] [--workers N] [--address HOST:PORT] [--json] [--force]",
                       epilog=SYNTAX, allow_abbrev=False)
    p.add_argument("kind", metavar="KIND", choices=tuple(KINDS), help="what to sweep: " + ", ".join(KINDS))
    p.add_argument("--out", metavar="DIR", help="the sweep's folder: points.jsonl (kept as points finish), "
                                                "results.csv, results.parquet, summary.json; rerun to resume")
    p.add_argument("--engine", default="local", help=ENGINE_HELP)
    p.add_argument("--workers", default=None, help="worker processes (local: default every core; ray: tasks at once)")
    p.add_argument("--address", default=None, help="the Ray cluster (HOST:PORT of its head) with --engine ray")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.add_argument("--force", action="store_true", help="take over a --out folder written by a different sweep")


SYNTAX = """values: KEY=a,b,c (alternatives), KEY=start:stop:step (a number range, stop included),
KEY=4,4;8,8 (alternatives of a list-valued key such as rates_per_s, split at ';'),
seeds=0-7 or 0,3,9 (each setting once per seed; min/median/max bands in the summary).
Keys: every `lab simulate serving` key (see its --help; vLLM's names and dashed --keys too,
and --config FILE.toml for them from a file); trace=, slo_*= and the trace's
reading keys keep one value. search=max_rate [attainment=0.9] [tolerance=0.02]: per setting,
the highest rate (time_scale of a trace, rates_per_s of the windows) at which that share of
requests meets every SLO, by bisection to that relative tolerance.
With profile=P.toml (a `lab calibrate` profile with coefficient sets): every point also gets
p5/p50/p95 columns per metric and meets_slo_probability over band_samples= sets (default
20), and the search passes a rate where P(meets the SLOs) >= confidence= (default 0.9)."""


def cmd_sweep(kind: str, values: dict[str, str], out: str | None, engine: str, workers: str | None,
              address: str | None, as_json: bool, force: bool) -> int:
    if not out:
        raise ParamError("--out", "required; valid: a folder for the sweep's results (rerun with it to resume)")
    count = None
    if workers is not None:
        try:
            count = int(workers)
        except ValueError:
            raise ParamError("--workers", f"got {workers!r}; valid: a whole number >= 1") from None
    import lab.cli

    if engine == "local" and lab.cli.OWN_PROCESS:
        _without_pandas()
    # Lazy: the process pool, the sweep store and the serving replay, which `lab sweep` alone needs.
    from core.sweep.executors import make_executor
    from core.sweep.run import parse_sweep, run_sweep

    spec = parse_sweep(kind, values)
    executor = make_executor(engine, count, address, fork=True)  # workers forked warm from this one-thread process
    bar = _progress_bar(len(spec.points))
    try:
        summary = run_sweep(spec, out, executor, force=force, progress=bar.update if bar else None)
    except KeyboardInterrupt:
        if bar:
            bar.close()
        print(f"lab sweep: stopped; the finished points are kept in {out} (rerun the same command to resume)",
              file=sys.stderr)
        return 130
    finally:
        executor.close()
    if bar:
        bar.close()
    print(json.dumps(summary, ensure_ascii=False) if as_json else summary_text(summary, out))
    return 0


class _NoPandas(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname == "pandas" or fullname.startswith("pandas."):
            raise ImportError("lab sweep runs without pandas")
        return None


def _without_pandas() -> None:
    """pyarrow's first array imports pandas, when installed, to ask whether the values are
    pandas objects: about half a second of CPU in the serial end of every sweep
    (results.parquet), which no second worker shortens. A local `lab sweep` process holds no pandas object, so it refuses the
    import (pyarrow then takes it as not installed for the process's life); Python callers
    (loadlab, tests: not OWN_PROCESS) keep pandas."""
    if "pandas" not in sys.modules and not any(isinstance(f, _NoPandas) for f in sys.meta_path):
        sys.meta_path.insert(0, _NoPandas())


class _Bar:
    """tqdm on stderr (rate and ETA), only on a terminal: a pipe or a log gets no noise."""

    def __init__(self, total: int):
        # Lazy: tqdm (with importlib.metadata) is slow to import for every `lab` command, and
        # only a sweep on a terminal shows its bar.
        from tqdm import tqdm

        tqdm.monitor_interval = 0  # no monitor thread: the pool's workers fork from this one-thread process
        self.tqdm = tqdm(total=total, unit="pt", file=sys.stderr, dynamic_ncols=True, desc="sweep")

    def update(self, done: int, total: int) -> None:
        self.tqdm.update(done - self.tqdm.n)

    def close(self) -> None:
        self.tqdm.close()


def _progress_bar(total: int) -> _Bar | None:
    return _Bar(total) if hasattr(sys.stderr, "isatty") and sys.stderr.isatty() else None


def summary_text(summary: dict, out: str) -> str:
    n = summary["points"]
    lines = [f"lab sweep {summary['kind']}: {n['done']} of {n['total']} points ({n['reused']} reused, "
             f"{n['computed']} computed) in {out}"]
    if n.get("refused"):
        first = summary["refused"][0]
        lines.append(f"  {n['refused']} points refused by the replay, e.g. {_values(first['values'])}: {first['error']}")
    if summary["kind"] == "rl":  # the rollout/trainer split (core/rl/sweep.py): no SLOs, no Pareto of latency
        lines += [_split_line(name, summary.get(f"rl_{key}")) for key, name in (("best", "least GPU-hours"),
                                                                                 ("fastest", "fastest"))]
        lines.append(f"  wrote {', '.join(summary.get('files') or [])}")
        return "\n".join(lines)
    front = summary["pareto"]["settings"]
    if front:
        lines.append(f"  Pareto set ({summary['pareto']['y']} vs {summary['pareto']['x']}):")
        for item in front:
            lines.append(f"    {_values(item['values'])}: p99 TTFT {item['p99_ttft_ms']:.1f} ms, "
                         f"{item['cost_per_million_output_tokens']:.4g} USD per million output tokens")
    elif summary["pareto"].get("note"):
        lines.append("  Pareto set: " + summary["pareto"]["note"])
    best = summary.get("cheapest_meeting_slo")
    lines.append(f"  cheapest meeting the SLOs: {_values(best['values'])}" if best else "  cheapest meeting the SLOs: none")
    lines.append(f"    ({summary['cheapest_note']})")
    for item in summary.get("capacity") or []:
        rate = item.get("search.max_rate_per_s")
        lines.append(f"  capacity {_values(item['values'])}: {rate or 0:.3f} req/s"
                     + (" (capped: the search's upper limit, not the SLO)" if item.get("capped") else "")
                     + f", {item.get('search.replays') or 0:.0f} replays")
    lines.append(f"  wrote {', '.join(summary.get('files') or [])}")
    return "\n".join(lines)


def _split_line(name: str, item: dict | None) -> str:
    if item is None:
        return f"  {name}: none (every point refused)"
    return (f"  {name}: {item['rollout_cards']} rollout + {item['trainer_cards']} trainer cards, "
            f"{item['step_time_s']:.3f} s a step, {item['gpu_hours_per_1000_steps']:,.1f} GPU-hours per 1,000 steps")


def _values(values: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in values.items()) or "(the one setting)"
