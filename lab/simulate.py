"""`lab simulate serving [key=value | --key value ...] [--json] [--out DIR]`: the serving
replay, headless. The command line itself is lab/cli.py's (one parser for every command);
this module runs the simulation and writes its files.

Keys are serving.replay's parameters (see `lab simulate serving --help`), plus:
  scenario=uniform|shift   the book's two runs (均匀混合 / 前 9:1 后 1:9); sets shares_long_input
  trace=FILE               replay a CSV or JSONL trace (arrival time, input, output tokens)
                           instead of the windows
  seeds=0,1,2,3,4          run each seed (Poisson/Gamma arrivals or random class order) and
                           report each metric as min / median / max
--out DIR writes requests.csv (one row per request), series.csv (waiting, running, KV use
over time), preemptions.csv and summary.json. Bad input raises ParamError naming the field
and its valid range. No Qt here.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

# The simulations `lab simulate KIND` runs, with the calculator whose parameters they take.
KINDS = {"serving": ("serving.replay", "the serving replay: the book's 480 requests through a vLLM-like engine "
                                       "(or a trace), with TTFT, request time and KV use")}
TRACE_HELP = ("replay a CSV or JSONL trace (arrival_s, input_tokens, output_tokens per row) "
              "instead of the windows; the windows' parameters then do not apply")


def extra_params(kind: str) -> tuple:
    """Parameters a simulation takes besides its calculator's (trace is a path, not a Param)."""
    return _scenario_param(), _seeds_param()


def _scenario_param():
    from core.registry import Param
    from core.serving import replay as rp

    return Param("scenario", "", None, "one of the book's two runs (sets shares_long_input): "
                 + "; ".join(f"{k} = {v['label']}" for k, v in rp.SCENARIOS.items()),
                 kind="choice", choices=tuple(rp.SCENARIOS))


def _seeds_param():
    from core.registry import Param

    return Param("seeds", "", (0,), "run each seed and report every metric as min / median / max", 0, 2**31 - 1,
                 kind="floats", max_items=1000)


def simulate(kind: str, raw: dict[str, str], out: str | None = None) -> tuple[dict, str]:
    """Run simulation `kind` (a key of KINDS) on text parameters: (report, its text)."""
    report = {"serving": simulate_serving}[kind](raw, out)
    return report, report_text(report)


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
        scenario = _scenario_param().parse(scenario)
        for key, value in rp.SCENARIOS[scenario]["params"].items():
            raw.setdefault(key, ",".join(str(v) for v in value) if isinstance(value, tuple) else str(value))
    for key in raw:
        if key not in {p.name for p in calc.params}:
            names = ", ".join([p.name for p in calc.params] + ["scenario", "trace", "seeds"])
            raise ParamError(key, f"unknown parameter of lab simulate serving; valid: {names}")
    seeds = None
    if seeds_text is not None:  # checked before the run, not after it
        seeds_param = _seeds_param()
        parsed = seeds_param.parse(seeds_text)
        if any(not float(x).is_integer() for x in parsed):
            raise ParamError("seeds", f"got {seeds_text!r}; valid: {seeds_param.range_text()} (whole numbers)")
        if trace is not None:
            raise ParamError("seeds", "a trace has fixed arrivals; valid: seeds only without trace=")
        seeds = [int(x) for x in parsed]
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
    if seeds is not None:
        report["band"] = {m: {"min": lo, "median": mid, "max": hi} for m, (lo, mid, hi) in rp.band(values, seeds).items()}
        report["seeds"] = seeds
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


def report_text(report: dict) -> str:
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
