"""`lab simulate serving [key=value | --key value ...] [--json | --format text|json|aiperf|prometheus] [--out DIR]`:
the serving replay, headless. The command line itself is lab/cli/'s (one parser for every
command); this module runs the simulation and reports it.

Keys are serving.replay's parameters (see `lab simulate serving --help`), plus
(core/serving/simulate_keys.py):
  scenario=uniform|shift   the book's two runs (均匀混合 / 前 9:1 后 1:9); sets shares_long_input
  trace=FILE               replay a trace instead of the windows; read with format=, time_scale=,
                           window=START:END, limit=, trace_model=, trace_log_type=, hash_block_tokens=
  seeds=0,1,2,3,4          run each seed and report each metric as min / median / max
  slo_ttft_ms= slo_tpot_ms= slo_e2el_ms=   goodput SLOs (vLLM's request_goodput)
  model=KEY|config.json  hardware=KEY|card.toml   defaults for the replay's model and card
  profile=P.toml (or hardware=P.toml)  a calibration profile (lab calibrate); with its coefficient
                           sets every metric also as p50 [p5 - p95] over band_samples= sets and
                           P(meets the SLOs): the share of sets whose run has >= attainment= of its
                           requests within every SLO (defaults: core/calibrate/bands.py)
The report keeps the book's names (p95 by nearest rank, seconds) and adds `vllm bench
serve`'s (core/serving/vllm_metrics.py), and what the cards cost (core/serving/cost.py):
replicas, router, price_per_card_hour (hardware= sets it from the card; price_source says
where it is from), cost_per_hour, cost_per_million_output_tokens, and with replicas > 1
per_replica rows (core/serving/replicas.py; KV fractions of the merged run are of the
pooled KV of all replicas). --out DIR writes requests.csv, series.csv (vLLM's metric
names), preemptions.csv, trace.json (Perfetto's timeline) and summary.json
(lab/cli/simulate_files.py); --format aiperf also profile_export.jsonl there, or prints
its records to stdout without --out; --format prometheus likewise metrics.prom. Bad input
raises ParamError naming the field and its valid range. The report itself is built in
core/serving/headless.py (moved there from here, with load_shared_trace, re-exported here);
this module adds the files, the progress bar and the text. No Qt here.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from core.calibrate.bands import banded_report
from core.registry import ParamError, get
from core.serving import simulate_keys as keys
from core.serving.disagg.text import pd_lines
from core.serving.headless import PERCENTILE_LABELS, load_shared_trace, serving_report  # noqa: F401 - re-exported
from core.serving.multimodal.report import image_lines
from core.serving.vllm_metrics import LATENCIES, STATS
from lab.cli.report_units import json_view
from lab.cli.simulate_files import aiperf_lines, prometheus_text, write_all
from lab.cli.simulate_rl import simulate_rl_report
from lab.cli.simulate_voice import simulate_voice_report

__all__ = ["KINDS", "OUTPUT_FORMATS", "PERCENTILE_LABELS", "TRACE_HELP", "extra_params", "load_shared_trace",
           "report_text", "simulate", "simulate_serving"]

# The simulations `lab simulate KIND` runs, with the calculator whose parameters they take.
KINDS = {"serving": ("serving.replay", "the serving replay: the book's 480 requests through a vLLM-like engine "
                                       "(or a trace), with TTFT, request time and KV use"),
         "voice": (None, "voice-agent turns on one clock through the loaded serving engine and the jitter buffer "
                         "(lab/cli/simulate_voice.py)"),
         "rl": (None, "an RL loop whose rollout runs through the serving engine: reward, reference, update, weight "
                      "sync; synchronous, one-step, asynchronous or partial (lab/cli/simulate_rl.py)")}
TRACE_HELP = ("replay a trace file instead of the windows (the windows' parameters then do not apply): "
              "CSV or JSONL with arrival_s, input_tokens, output_tokens, or a public trace as it ships "
              "(Azure, BurstGPT, Mooncake, Bailian, Baseten Parquet, Vidur, vllm bench --save-result; see format=)")
OUTPUT_FORMATS = ("text", "json", "aiperf", "prometheus")


def extra_params(kind: str) -> tuple:
    """Parameters a simulation takes besides its calculator's (trace and the keys of
    simulate_keys.TEXT_KEYS are text, not Params)."""
    return keys.extra_params()


def simulate(kind: str, raw: dict[str, str], out: str | None = None, fmt: str = "text") -> tuple[dict, str]:
    """Run simulation `kind` (a key of KINDS) on text parameters: (report, what to print
    for fmt: the text report, or for aiperf without `out` the JSONL records)."""
    if kind == "voice":  # its own keys and report (lab/cli/simulate_voice.py)
        return simulate_voice_report(raw, out, fmt)
    if kind == "rl":  # its own keys and report (lab/cli/simulate_rl.py)
        return simulate_rl_report(raw, out, fmt)
    if fmt not in OUTPUT_FORMATS:
        hint = f" (a trace's format is the key format={fmt})" if fmt in keys.trace_formats() else ""
        raise ParamError("--format", f"got {fmt!r}{hint}; valid: {', '.join(OUTPUT_FORMATS)}")
    report, run = {"serving": simulate_serving}[kind](raw, out, aiperf=fmt == "aiperf", prometheus=fmt == "prometheus")
    if fmt == "json":  # under the one-unit rule (lab/cli/report_units.py)
        return report, json.dumps(json_view(report), ensure_ascii=False)
    if fmt == "aiperf" and out is None:
        return report, aiperf_lines(*run).rstrip("\n")
    if fmt == "prometheus" and out is None:
        return report, prometheus_text(run[0], report).rstrip("\n")
    return report, report_text(report)


class _Progress:
    """A one-line progress bar on stderr while a trace loads, only on a terminal (a pipe
    or a log file gets no carriage-return noise)."""

    def __init__(self, label: str, stream=None):
        self.stream = stream or sys.stderr
        self.label = label
        self.shown = -1

    @classmethod
    def for_terminal(cls, label: str):
        stream = sys.stderr
        return cls(label, stream) if hasattr(stream, "isatty") and stream.isatty() else None

    def __call__(self, fraction: float) -> None:
        percent = int(max(0.0, min(1.0, float(fraction))) * 100)
        if percent == self.shown:
            return
        self.shown = percent
        bar = "#" * (percent // 4)
        self.stream.write(f"\r{self.label} [{bar:<25}] {percent:3d}%")
        self.stream.flush()

    def close(self) -> None:
        if self.shown >= 0:
            self.stream.write("\r" + " " * (len(self.label) + 34) + "\r")
            self.stream.flush()


def simulate_serving(raw: dict[str, str], out: str | None = None, aiperf: bool = False,
                     workload=None, prometheus: bool = False) -> tuple[dict, tuple]:
    """Run the replay for text parameters: (the summary dict --json prints, (result,
    workload) for the files). The report is core.serving.headless.serving_report's (see
    there for workload=), with a progress bar on a terminal while a trace loads, and with
    a calibration profile's coefficient sets its bands (core/calibrate/bands.py); out adds
    the `out` and `files` keys and writes the files there."""
    report, (result, work) = banded_report(raw, workload=workload, progress=_Progress.for_terminal)
    if out is not None:
        report["out"] = str(Path(out))
        report["files"] = write_all(Path(out), result, work, report, aiperf=aiperf, prometheus=prometheus)
    return report, (result, work)


BOOK_ROWS = ("ttft_p95_s", "request_p95_s", "first_schedule_wait_p95_s", "last_completion_s", "preemptions",
             "kv_peak_fraction", "decode_steps_total", "decode_bound_s", "prefill_tokens_total")


def report_text(report: dict) -> str:
    calc = get("serving.replay")
    observed = report.get("book_observed") or {}
    band = report.get("band") or {}
    lines = [f"serving replay ({report['source']}): {report['requests']} requests, {report['engine_steps']:,} engine steps, "
             f"simulated in {report['wall_s'] * 1e3:.1f} ms"]
    if "trace" in report:
        lines.append("  " + _trace_line(report["trace"]))
    lines += [f"  warning: {text}" for text in report.get("warnings", ())]
    head = f"  {'metric (p95: nearest rank)':<28}{'simulated':>14}"
    if observed:
        head += f"{'book (vLLM)':>14}{'diff':>9}"
    if band:
        head += f"   band over seeds {report['seeds']}"
    lines.append(head)
    for name in BOOK_ROWS:
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
    lines += _vllm_lines(report)
    lines += uncertainty_lines(report)
    lines += pd_lines(report) if "disaggregation" in report else _cost_lines(report)  # P/D: both pools' lines
    lines.append(_cache_line(report))
    lines += image_lines(report)  # image requests (core/serving/multimodal/report.py)
    extras = report.get("engine_extras") or {}
    if extras.get("hit_rate_by_turn"):
        lines.append("  cache hit rate by turn: " + ", ".join(f"{r * 100:.0f}%" for r in extras["hit_rate_by_turn"][:12])
                     + (" ..." if len(extras["hit_rate_by_turn"]) > 12 else ""))
    if extras.get("tool_wait_kv_byte_s"):
        lines.append(f"  KV held during tool waits: {extras['tool_wait_kv_byte_s'] / 1e9:,.3f} GB·s")
    if "out" in report:
        lines.append(f"  wrote {', '.join(report['files'])} to {report['out']}")
    return "\n".join(lines)


def _vllm_lines(report: dict) -> list[str]:
    """vllm bench serve's figures under its names (ms; percentiles interpolated as numpy)."""
    lines = ["  vllm bench serve names (ms; median/p90/p99 interpolated linearly, as vLLM):",
             "  " + f"{'':<6}" + "".join(f"{s:>12}" for s in STATS)]
    measured = report.get("measured") or {}
    for name in LATENCIES:
        lines.append("  " + f"{name:<6}" + "".join(f"{report[f'{s}_{name}_ms']:>12.2f}" for s in STATS))
        if measured:
            lines.append("  " + f"{'  run':<6}" + "".join(f"{measured[f'{s}_{name}_ms']:>12.2f}" for s in STATS))
    if measured:
        lines.append("  (run: the vllm bench serve result the trace came from, measured)")
    lines.append(f"  completed {report['completed']}, duration {report['duration']:.2f} s, request_throughput "
                 f"{report['request_throughput']:.3f} req/s, output_throughput {report['output_throughput']:.1f} tok/s, "
                 f"total_token_throughput {report['total_token_throughput']:.1f} tok/s")
    if report.get("request_goodput") is not None:
        slos = ", ".join(f"{k} <= {v:g} ms" for k, v in report["goodput_slos_ms"].items())
        lines.append(f"  request_goodput {report['request_goodput']:.3f} req/s ({slos})")
    return lines


# The metrics the text shows with their bands (--json has every metric's).
BAND_ROWS = ("median_ttft_ms", "p90_ttft_ms", "median_tpot_ms", "p90_tpot_ms", "median_itl_ms", "median_e2el_ms",
             "p90_e2el_ms", "request_throughput", "output_throughput", "preemptions", "kv_peak_fraction",
             "cache_hit_rate", "slo_attainment")


def uncertainty_lines(report: dict) -> list[str]:
    """p50 [p5 - p95] over the profile's coefficient sets, and P(meets the SLOs)."""
    bands = report.get("bands")
    if not bands:
        return []
    lines = [f"  uncertainty over {report['band_samples']} coefficient sets of the calibration (p50 [p5 - p95]):"]
    for name in BAND_ROWS:
        if name in bands:
            b = bands[name]
            lines.append(f"    {name:<26}{_band_num(b['p50']):>12}  [{_band_num(b['p5'])} - {_band_num(b['p95'])}]")
    prob = report.get("meets_slo_probability")
    if prob is not None:
        slos = ", ".join(f"{k} <= {v:g} ms" for k, v in report["goodput_slos_ms"].items())
        met = round(prob * report["band_samples"])
        lines.append(f"  meets the SLOs ({slos} for >= {report['attainment']:.0%} of requests): probability "
                     f"{prob:.2f} ({met} of {report['band_samples']} coefficient sets)")
    return lines


def _band_num(value: float) -> str:
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:.3g}"


def _cost_lines(report: dict) -> list[str]:
    """Replicas, router and what the cards cost (USD), then one line per replica."""
    fleet = (f"  {report['replicas']} replica{'s' if report['replicas'] != 1 else ''} x "
             f"{report['cards_per_replica']} card" + (f" behind {report['router']}" if report["replicas"] > 1 else ""))
    if report.get("cost_per_hour") is None:
        lines = [fleet + f"; cost: {report['price_source']}"]
    else:
        per_million = report["cost_per_million_output_tokens"]
        lines = [fleet + f" at ${report['price_per_card_hour']:.2f}/card-hour: ${report['cost_per_hour']:.2f}/hour, "
                 + (f"${per_million:.4f} per million output tokens" if per_million is not None else "no output tokens")]
        lines.append(f"    price: {report['price_source']}")
    for row in report.get("per_replica") or []:
        line = (f"    replica {row['replica']}: {row['requests']:,} requests, {row['engine_steps']:,} steps, "
                f"{row['preemptions']} preemptions, KV peak {row['kv_peak_fraction'] * 100:.0f}%")
        if "ttft_p95_s" in row:
            line += f", TTFT p95 {row['ttft_p95_s']:.2f} s, last done {row['last_completion_s']:.1f} s"
        lines.append(line)
    return lines


def _cache_line(report: dict) -> str:
    state = "on" if report["prefix_caching"] else "off"
    if not report["prefix_information"]:
        return f"  prefix caching {state}: this workload carries no prefix or session information (nothing to reuse)"
    return (f"  prefix caching {state}: {report['cached_tokens_total']:,} prompt tokens from the cache "
            f"(hit rate {report['cache_hit_rate'] * 100:.1f}%)")


def _trace_line(trace: dict) -> str:
    rows = trace.get("rows")
    text = f"trace: {trace.get('format') or 'csv/jsonl'}, {rows:,} rows read" if isinstance(rows, int) else "trace"
    dropped = trace.get("dropped") or {}
    if dropped:
        text += f", dropped {sum(dropped.values()):,} (" + ", ".join(f"{k}: {v:,}" for k, v in dropped.items()) + ")"
    text += f", {trace['requests']:,} requests replayed"
    return text + (f"\n    timestamps: {trace['timestamps']}" if trace.get("timestamps") else "")
