"""`lab fidelity RESULTS_DIR | RESULT.json ... [profile=P.toml | model=... hardware=... keys]
[--json] [--plot FILE.png]`: for each measured run (vllm bench serve / lab observe result
JSONs; a folder gives every result under it) the replay's prediction beside what was
measured, per metric with its error, then the median and the worst |error| per metric,
over all runs and per regime (low load / saturated, from the concurrency the measured run
reached). The report itself is core/calibrate/fidelity.py's; the plot
lab/cli/fidelity_plot.py's. Bad input exits 2 naming the field.
"""
from __future__ import annotations

import json
from pathlib import Path

from lab.cli.args import input_error

USAGE = ("lab fidelity RESULTS_DIR | RESULT.json ... [profile=P.toml | model=KEY hardware=KEY|card.toml] "
         "[key=value ...] [--json] [--plot FILE.png]")
DESCRIPTION = """How far off is the lab on your card? Each measured run is replayed as it was measured (its
requests, its client's concurrency, its server's KV pool and prefix caching when lab observe
recorded them) and its prediction laid beside the measurement: median and p90 TTFT, TPOT, ITL
and E2E, output throughput, and preemptions and prefix-cache hit rate when the result's
lab_observe block has the server's counters. error = (predicted - measured) / measured (the hit
rate's in points). A run is "saturated" when the mean concurrency it reached (Little's law: sum of
E2E / (last finish - first arrival)) is >= 4 requests in flight (saturated_at=N), else "low load".
With a profile that has coefficient sets, each metric also gets the prediction's p5 - p95 over
band_samples= sets (default 20) and whether the measurement lies inside."""


def add_parser(sub, formatter, keys: bool = True) -> None:  # keys: observe's and calibrate's; none here
    p = sub.add_parser("fidelity", help="measured vs predicted for a set of runs, with errors per metric and regime",
                       prog="lab fidelity", usage=USAGE, description=DESCRIPTION, formatter_class=formatter,
                       allow_abbrev=False)
    p.add_argument("items", nargs="*", metavar="RESULT|KEY=VALUE",
                   help="result files or folders, and lab simulate serving keys (profile=, model=, hardware=, ...)")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.add_argument("--plot", metavar="FILE.png", default=None,
                   help="also draw measured vs predicted per metric (PNG, SVG or PDF by suffix; written whole or not at all)")


def split_items(items) -> tuple[list[str], dict[str, str]]:
    """Result paths and key=value words (a word with '=' that is not an existing file is a key)."""
    paths, keys = [], {}
    for item in items:
        key, sep, value = item.partition("=")
        if sep and not Path(item).exists():
            if not key:
                raise input_error(item, "an empty key; valid: KEY=VALUE")
            keys[key] = value
        else:
            paths.append(item)
    return paths, keys


def run(args, extras) -> int:
    from core.calibrate.fidelity import fidelity  # lazy: the engine and numpy

    items = list(args.items)
    for extra in extras:
        if extra.startswith("-"):
            raise input_error(extra, "unknown option; valid: --json, --plot FILE.png (see lab fidelity --help)")
        items.append(extra)
    paths, keys = split_items(items)
    report = fidelity(paths, keys)
    if args.plot:
        from lab.cli.fidelity_plot import write_plot

        report["plot"] = write_plot(report, args.plot)
    print(json.dumps(report, ensure_ascii=False) if args.json else report_text(report))
    return 0


def _num(value: float | None, unit: str = "") -> str:
    if value is None:
        return "-"
    if unit == "":
        return f"{value:.4g}"
    return f"{value:.2f}" if abs(value) < 1e4 else f"{value:,.0f}"


def _err(entry: dict) -> str:
    if "error_points" in entry:
        return f"{entry['error_points']:+.1f} pts"
    e = entry.get("error_pct")
    if e is None:
        return f"{entry['predicted'] - entry['measured']:+.3g} (abs)"
    return f"{e:+.1f}%"


def _ok(entry: dict) -> str:
    if "within" not in entry:
        return ""
    unit = " pts" if "error_points" in entry else "%"
    return f"{'yes' if entry['within'] else 'NO'} ({entry['tolerance']:.0f}{unit})"


def report_text(report: dict) -> str:
    runs = report["runs"]
    keys = " ".join(f"{k}={v}" for k, v in report["keys"].items()) or "the lab's defaults"
    lines = [f"lab fidelity: {len(runs)} measured run{'s' if len(runs) != 1 else ''}, predicted with {keys}"]
    banded = report.get("band_samples", 0)
    if banded:
        lines.append(f"  bands: p5 - p95 of the prediction over {banded} coefficient sets of the profile")
    if report["skipped"]:
        lines.append(f"  skipped {len(report['skipped'])} JSON files that are not vllm bench results")
    for r in runs:
        lines += _run_lines(r, banded)
    for g in report.get("repeats") or []:
        spread = ", ".join(f"{m} {v:.0f}{' pts' if m == 'prefix_cache_hit_rate' else '%'}"
                           for m, v in g["spread"].items() if m.startswith("median_") or m == "prefix_cache_hit_rate")
        lines.append(f"  repeats of one load ({', '.join(g['runs'])}): measured spread {spread}")
    lines += _step_lines(report.get("steps") or [])
    lines += _summary_lines(report, banded)
    lines.append(f"  tolerance: {report['tolerance']}")
    lines.append(f"  regime: {report['regime_rule']}")
    if report.get("refused"):
        lines.append(f"  {report['refused']} run(s) not compared (see above)")
    if report.get("plot"):
        lines.append(f"  wrote {report['plot']}")
    return "\n".join(lines)


def _run_lines(r: dict, banded: int) -> list[str]:
    from core.calibrate.fidelity import ALL_METRICS, UNITS

    fit = "" if "held_out" not in r else (", held out" if r["held_out"] else ", fitted on")
    if r.get("beyond_fit"):  # docs/vllm_cpu.md: what a fit on another regime cannot know
        fit += ", beyond the fit's loads (its per-sequence costs extrapolated)"
    lines = [f"  {r['run']}: {r['requests']:,} requests, {r['regime']}{fit} (mean concurrency "
             f"{r['mean_concurrency']:.1f}, queueing share of median TTFT {r['queueing_share']:.2f})"]
    if "error" in r:
        return lines + [f"    not compared: the replay refused it: {r['error']}"]
    lines.append(f"    {'metric':<24}{'measured':>12}{'predicted':>12}{'error':>14}{'ok (tolerance)':>18}"
                 + (f"{'band p5 - p95':>24}" if banded else ""))
    for m in ALL_METRICS:
        if m in r["metrics"]:
            e = r["metrics"][m]
            line = (f"    {m:<24}{_num(e['measured'], UNITS[m]):>12}{_num(e['predicted'], UNITS[m]):>12}"
                    f"{_err(e):>14}{_ok(e):>18}")
            if "band" in e:
                b = e["band"]
                cell = f"{_num(b['p5'], UNITS[m])} - {_num(b['p95'], UNITS[m])}" + (" in" if e["inside"] else " out")
                line += f"{cell:>24}"
            lines.append(line)
    return lines


def _step_lines(logs: list[dict]) -> list[str]:
    """Each step log: the median |step error| against the 15% bar, and per kind of step
    the measured and predicted median step times."""
    from core.calibrate.fidelity_steps import STEP_TOLERANCE

    lines = []
    for log in logs:
        whole = log["kinds"].get("all", {})
        lines.append(f"  step log {Path(log['log']).name}: {log['steps']:,} engine steps, median |step error| "
                     f"{whole.get('median_abs_step_error', float('nan')) * 100:.1f}% "
                     f"({'within' if log['within'] else 'NOT within'} {STEP_TOLERANCE:.0%})")
        for kind in ("prefill", "decode", "mixed"):
            k = log["kinds"].get(kind)
            if k:
                lines.append(f"    {kind:<8} {k['steps']:>5} steps: median {k['measured_median_ms']:.2f} ms measured, "
                             f"{k['predicted_median_ms']:.2f} ms predicted ({k['median_error'] * 100:+.1f}%), "
                             f"median |step error| {k['median_abs_step_error'] * 100:.1f}%")
    return lines


def _summary_lines(report: dict, banded: int) -> list[str]:
    from core.calibrate.fidelity import HELD_OUT, REGIMES, in_group

    compared = [r for r in report["runs"] if "error" not in r]
    lines = ["  over the runs: median / worst |error| (worst run), {k ok}: runs within tolerance"
             + (", [k in]: inside the predicted p5 - p95" if banded else "")]
    shown = ("all",) + tuple(g for g in REGIMES + (HELD_OUT,) if any(in_group(r, g) for r in compared))
    table = [[f"{g} ({sum(1 for r in compared if in_group(r, g))} runs)" for g in shown]]
    names = ["metric"]
    for m, groups in report["summary"].items():
        names.append(m)
        table.append([_summary_cell(groups.get(g)) for g in shown])
    widths = [max(len(row[i]) for row in table) + 3 for i in range(len(shown))]
    for name, cells in zip(names, table):
        lines.append(f"    {name:<24}" + "".join(f"{c:>{w}}" for c, w in zip(cells, widths)))
    return lines


def _summary_cell(s: dict | None) -> str:
    if not s:
        return "-"
    unit = " pts" if s["unit"] == "points" else "%"
    cell = (f"{s['median_abs_error']:.1f}{unit} / {s['worst_abs_error']:.1f}{unit} ({s['worst_run']})"
            if "median_abs_error" in s else "no error defined")
    if "within_tolerance" in s:
        cell += f" {{{s['within_tolerance']} ok}}"
    if "inside_band" in s:
        cell += f" [{s['inside_band']} in]"
    return cell
