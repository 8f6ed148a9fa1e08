"""`lab simulate voice [trace=FILE | scenario=uniform|shift | rate=R] turns=N seed=S [stage keys]
[barge_in_ms=MS] [--json] [--out DIR]`: voice-agent turns through the loaded serving engine
and the jitter buffer (core.voice), headless.

--json prints the summary (core/voice/summary.py): silence_p50_ms, silence_p95_ms,
silence_p99_ms, underrun_turn_share, stall_p95_ms and mean_<stage>_ms for every stage of the
silence gap (they alone carry the mean_ prefix and sum to silence_mean_ms), then the tail's
stage, the book's anchors (first_arrival_p50_ms, chunk_gap_p50_ms) and the run's size.
--out DIR writes turns.csv (one row per turn: every span's start and end, the silence, the
underruns) and summary.json. Bad input: ParamError naming the field (exit 2). No Qt here.
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from core.registry import ParamError
from core.voice import AFTER, PARAMS, STAGES, VoiceParams, simulate_voice
from lab.cli.args import ARGS, SUFFIXES, Formatter, add_params, help_text, json_ready, wrapped
from lab.cli.simulate_files import write_folder

ABOUT = ("voice-agent turns on one clock: VAD, ASR, the LLM request in the loaded serving engine, TTS, "
         "network and the jitter buffer (issue 13)")
FORMATS = ("text", "json")


def add_parser(sub, kind: str = "voice") -> None:
    """The `lab simulate voice` sub-command, its options generated from core.voice.PARAMS."""
    keys = ", ".join(summary_keys())
    p = sub.add_parser(kind, prog=f"lab simulate {kind}", help=help_text(ABOUT),
                       usage=f"lab simulate {kind} [{ARGS} ...] [--json] [--out DIR]",
                       description=help_text(f"{ABOUT}. One background of trace=, scenario=, rate= (rate=0: none); "
                                              "the turns' LLM requests join the same engine."),
                       epilog=help_text(f"prints (--json keys):\n{wrapped(keys)}\n\n{wrapped(SUFFIXES)}"),
                       formatter_class=Formatter, allow_abbrev=False)
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.add_argument("--format", dest="fmt", choices=FORMATS, default=None, help="text (default) or json")
    p.add_argument("--out", metavar="DIR", help="write turns.csv (every span of every turn) and summary.json")
    add_params(p, PARAMS, f"parameters ({ARGS})")


def summary_keys() -> list[str]:
    return (["silence_p50_ms", "silence_p95_ms", "silence_p99_ms", "silence_mean_ms", "underrun_turn_share",
             "stall_p95_ms"] + [f"mean_{s}_ms" for s in STAGES]
            + ["tail_stage", "tail_stage_share", "first_arrival_p50_ms", "chunk_gap_p50_ms", "reply_p50_ms", "turns",
               "cancelled_turns", "background_requests", "source", "wall_ms"])


# One unit per JSON (as lab simulate serving's): the summary's two times in seconds go out in ms.
IN_SECONDS = ("reply_p50_s", "wall_s")


def json_view(summary: dict) -> dict:
    """The summary as --json, summary.json and loadlab print it: every time in ms."""
    return {(k[:-2] + "_ms" if k in IN_SECONDS else k): (v * 1e3 if k in IN_SECONDS and v is not None else v)
            for k, v in summary.items()}


def simulate_voice_report(raw: dict[str, str], out: str | None = None, fmt: str = "text") -> tuple[dict, str]:
    """(the summary --json prints, what to print for fmt)."""
    if fmt not in FORMATS:
        raise ParamError("--format", f"got {fmt!r}; valid: {', '.join(FORMATS)} (lab simulate voice)")
    run = simulate_voice(VoiceParams.from_raw(raw))
    report = dict(run.summary)
    if out is not None:
        report["out"] = str(Path(out))
        report["files"] = write_files(Path(out), run, report)
    if fmt == "json":
        return report, json.dumps(json_ready(json_view(report)), ensure_ascii=False)
    return report, report_text(report)


def turn_rows(run) -> tuple[list[str], list[list]]:
    """turns.csv: one row per turn, every span's start and end (seconds on the replay's clock)."""
    names = list(STAGES) + [a for a in AFTER if a != "barge_in" or run.params.barge_in_ms is not None]
    header = ["turn", "request", "silence_ms", "underruns", "stall_ms", "reply_s", "cancelled"]
    header += [f"{n}_{edge}_s" for n in names for edge in ("start", "end")]
    rows = []
    for t in run.turns:
        spans = {s.name: s for s in t.spans}
        row = [t.index, t.request, t.silence_s * 1e3, t.underruns, t.stall_s * 1e3, t.reply_s, int(t.cancelled)]
        for n in names:
            s = spans.get(n)
            row += [s.start_s, s.end_s] if s is not None else ["", ""]
        rows.append(row)
    return header, rows


def write_files(out: Path, run, report: dict) -> list[str]:
    """turns.csv and summary.json into out, both whole or neither (a full disk leaves the
    folder as it was: lab/cli/simulate_files.write_folder)."""
    header, rows = turn_rows(run)
    table = io.StringIO(newline="")
    w = csv.writer(table)
    w.writerow(header)
    w.writerows([repr(v) if isinstance(v, float) else v for v in row] for row in rows)
    summary = json_view(dict(report, files=["turns.csv", "summary.json"]))
    write_folder(out, {"turns.csv": table.getvalue().encode("utf-8"),
                       "summary.json": (json.dumps(json_ready(summary), ensure_ascii=False, indent=1) + "\n").encode("utf-8")})
    return ["turns.csv", "summary.json"]


def report_text(r: dict) -> str:
    lines = [f"voice turns ({r['source']} background, {r['background_requests']:,} requests): {r['turns']} turns, "
             f"simulated in {r['wall_s'] * 1e3:.1f} ms",
             f"  silence gap (user's last word -> first audible sample; nearest rank): p50 {r['silence_p50_ms']:.1f} ms, "
             f"p95 {r['silence_p95_ms']:.1f} ms, p99 {r['silence_p99_ms']:.1f} ms, mean {r['silence_mean_ms']:.1f} ms",
             "  mean stage breakdown (sums to the mean silence):"]
    for s in STAGES:
        lines.append(f"    {s:<10}{r[f'mean_{s}_ms']:>12.1f} ms")
    lines.append(f"  tail (turns at or above p95): {r['tail_stage']} is {r['tail_stage_share'] * 100:.0f}% of their silence")
    lines.append(f"  underruns: {r['underrun_turn_share'] * 100:.1f}% of turns; stall p95 {r['stall_p95_ms']:.1f} ms; "
                 f"reply p50 {r['reply_p50_s']:.2f} s heard")
    gap = r.get("chunk_gap_p50_ms")
    lines.append(f"  book anchors (§3.3.3: ~400 / 370 ms to the first chunk, ~94 ms between chunks): first chunk "
                 f"p50 {r['first_arrival_p50_ms']:.1f} ms, chunk gap p50 "
                 + (f"{gap:.1f} ms" if gap is not None else "— (one chunk)"))
    if r.get("cancelled_turns"):
        lines.append(f"  barge-in cancelled {r['cancelled_turns']} LLM requests (KV freed at the backend stop)")
    if "out" in r:
        lines.append(f"  wrote {', '.join(r['files'])} to {r['out']}")
    return "\n".join(lines)
