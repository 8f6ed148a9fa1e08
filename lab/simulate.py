"""`lab simulate serving [key=value ...] [--json] [--out DIR]`: the serving replay, headless.

Keys are serving.replay's parameters (see `lab list`), plus:
  scenario=uniform|shift   the book's two runs (均匀混合 / 前 9:1 后 1:9); sets shares_long_input
  trace=FILE               replay a CSV or JSONL trace (arrival time, input, output tokens)
                           instead of the windows
  seeds=0,1,2,3,4          run each seed (Poisson/Gamma arrivals or random class order) and
                           report each metric as min / median / max
--out DIR writes requests.csv (one row per request), series.csv (waiting, running, KV use
over time), preemptions.csv and summary.json. Bad input: one line on stderr naming the
field and its valid range, exit code 2. No Qt here.
"""
from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from typing import Sequence

EXIT_OK = 0
EXIT_USAGE = 2
KINDS = ("serving",)
_EXTRA = ("scenario", "trace", "seeds")


def _seeds_param():
    from core.registry import Param

    return Param("seeds", "", (0,), "seeds of a band", 0, 2**31 - 1, kind="floats", max_items=1000)


class _Usage(Exception):
    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")


def _parse(argv: Sequence[str]) -> tuple[dict[str, str], bool, str | None]:
    values: dict[str, str] = {}
    as_json, out = False, None
    items = list(argv)
    i = 0
    while i < len(items):
        item = items[i]
        if item == "--json":
            as_json = True
        elif item == "--out" or item.startswith("--out="):
            if item == "--out":
                if i + 1 >= len(items):
                    raise _Usage("--out", "needs a directory; valid: --out DIR")
                out = items[i + 1]
                i += 1
            else:
                out = item.split("=", 1)[1]
        elif item.startswith("--") and "=" not in item:
            raise _Usage(item, "unknown option; valid: --json, --out DIR, key=value")
        else:
            key, sep, value = item.lstrip("-").partition("=")
            if not sep or not key:
                raise _Usage(item, "not key=value; valid: NAME=VALUE with a serving.replay parameter name")
            values[key.strip()] = value.strip()
        i += 1
    return values, as_json, out


def run_simulation(kind: str, argv: list[str]) -> int:
    """Entry point used by lab/cli.py for `lab simulate KIND ...`; returns the exit code."""
    from core.registry import ParamError

    try:
        if kind not in KINDS:
            raise _Usage("KIND", f"no simulation {kind!r}; valid: {', '.join(KINDS)}")
        values, as_json, out = _parse(argv)
        report = simulate_serving(values, out)
    except (ParamError, _Usage) as err:
        print(f"lab simulate {kind}: {err}", file=sys.stderr)
        return EXIT_USAGE
    if as_json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print(_text(report))
    return EXIT_OK


def simulate_serving(raw: dict[str, str], out: str | None = None) -> dict:
    """Run the replay for text parameters; returns the summary dict (what --json prints)."""
    from core.registry import ParamError, get
    from core.serving import replay as rp
    from core.serving import traces
    from core.serving.engine import replay, validate

    calc = get("serving.replay")
    raw = dict(raw)
    scenario = raw.pop("scenario", None)
    trace = raw.pop("trace", None)
    seeds_text = raw.pop("seeds", None)
    if scenario is not None:
        if scenario not in rp.SCENARIOS:
            raise ParamError("scenario", f"got {scenario!r}; valid: one of {', '.join(rp.SCENARIOS)}")
        for key, value in rp.SCENARIOS[scenario]["params"].items():
            raw.setdefault(key, ",".join(str(v) for v in value) if isinstance(value, tuple) else str(value))
    for key in raw:
        if key not in {p.name for p in calc.params}:
            names = ", ".join([p.name for p in calc.params] + list(_EXTRA))
            raise ParamError(key, f"unknown parameter of lab simulate serving; valid: {names}")
    if trace is not None:
        # A trace replaces the windows, so their cross-checks do not apply.
        values = calc.resolve({k: v for k, v in raw.items()})
        work = traces.load_trace(trace)
        config = rp.config_from(values)
        validate(config, work)
        result = replay(work, config)
    else:
        values = calc.resolve(raw)
        result, work, config = rp.run_replay(values)
    summary = rp.summarize(result, work, config)
    report = {k: v for k, v in summary.items() if not k.startswith("series_")}
    report["source"] = f"trace {trace}" if trace else (f"scenario {scenario}" if scenario else "windows")
    observed = _observed_for(values, rp) if trace is None else None
    if observed is not None:
        report["book_observed"] = observed
    if seeds_text is not None:
        _SEEDS = _seeds_param()
        seeds = _SEEDS.parse(seeds_text)
        if any(not float(x).is_integer() for x in seeds):
            raise ParamError("seeds", f"got {seeds_text!r}; valid: {_SEEDS.range_text()} (whole numbers)")
        if trace is not None:
            raise ParamError("seeds", "a trace has fixed arrivals; valid: seeds only without trace=")
        report["band"] = {m: {"min": lo, "median": mid, "max": hi}
                          for m, (lo, mid, hi) in rp.band(values, [int(s) for s in seeds]).items()}
        report["seeds"] = [int(s) for s in seeds]
    if out is not None:
        _write(Path(out), result, report)
        report["out"] = str(Path(out))
    return report


def _observed_for(values: dict, rp) -> dict | None:
    """The book's observed run when the parameters are one of its two scenarios."""
    key = rp.matching_scenario(values)
    return None if key is None else dict(rp.OBSERVED[key], scenario=key)


def _write(folder: Path, result, report: dict) -> None:
    from core.registry import ParamError

    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ParamError("--out", f"cannot create {str(folder)!r} ({exc.strerror}); valid: a writable directory") from None
    with open(folder / "requests.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["request", "arrival_s", "input_tokens", "output_tokens", "first_schedule_s", "first_token_s",
                    "finish_s", "first_schedule_wait_s", "ttft_s", "request_s", "preemptions"])
        for i in range(result.arrival_s.size):
            a = result.arrival_s[i]
            w.writerow([i, f"{a:.6f}", int(result.input_tokens[i]), int(result.output_tokens[i]),
                        f"{result.first_schedule_s[i]:.6f}", f"{result.first_token_s[i]:.6f}", f"{result.finish_s[i]:.6f}",
                        f"{result.first_schedule_s[i] - a:.6f}", f"{result.first_token_s[i] - a:.6f}",
                        f"{result.finish_s[i] - a:.6f}", int(result.preemptions[i])])
    with open(folder / "series.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["t_s", "waiting", "running", "kv_blocks", "kv_fraction", "tokens_in_step"])
        frac = result.series_kv_fraction
        for row in zip(result.series_t, result.series_waiting, result.series_running, result.series_kv_blocks,
                       frac, result.series_tokens):
            w.writerow([f"{row[0]:.6f}", int(row[1]), int(row[2]), int(row[3]), f"{row[4]:.6f}", int(row[5])])
    with open(folder / "preemptions.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["request", "preempted_s", "rescheduled_s"])
        for rid, t0, t1 in result.preempt_log:
            w.writerow([rid, f"{t0:.6f}", f"{t1:.6f}"])
    (folder / "summary.json").write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")


def _text(report: dict) -> str:
    from core.registry import get

    calc = get("serving.replay")
    observed = report.get("book_observed") or {}
    band = report.get("band") or {}
    lines = [f"serving replay ({report['source']}): {report['requests']} requests, {report['engine_steps']:,} engine steps, "
             f"simulated in {report['wall_s'] * 1e3:.1f} ms"]
    head = f"  {'metric':<28}{'simulated':>14}"
    if observed:
        head += f"{'book (vLLM)':>14}{'diff':>9}"
    if band:
        head += f"   band over seeds {report['seeds']}"
    lines.append(head)
    for name in ("ttft_p95_s", "request_p95_s", "first_schedule_wait_p95_s", "last_completion_s", "preemptions",
                 "kv_peak_fraction", "decode_steps_total", "decode_bound_s", "prefill_tokens_total"):
        value = report[name]
        line = f"  {name:<28}{calc.format_output(name, value):>14}"
        if observed:
            if name in observed:
                book = observed[name]
                diff = (value - book) / book * 100 if book else 0.0
                line += f"{calc.format_output(name, book):>14}{diff:>+8.1f}%"
            else:
                line += " " * 23
        if name in band:
            lo, mid, hi = band[name]["min"], band[name]["median"], band[name]["max"]
            line += f"   {calc.format_output(name, lo)} / {calc.format_output(name, mid)} / {calc.format_output(name, hi)}"
        lines.append(line)
    if "out" in report:
        lines.append(f"  wrote requests.csv, series.csv, preemptions.csv, summary.json to {report['out']}")
    return "\n".join(lines)
