"""trace.json beside every `lab simulate serving --out`: the Chrome trace event format,
checked by a strict JSON schema of the format (tests/api/trace_event_format.schema.json;
Perfetto's trace processor needs a binary this machine cannot download) and by what a
viewer needs: slices nest on each track, counters are numbers, and the numbers are the
run's own (hand sums against requests.csv and the report)."""
import csv
import json
from collections import defaultdict
from pathlib import Path

import jsonschema
import pytest

from core.serving.headless import serving_report
from core.serving.trace_events import EVENT_BYTES, bound_bytes, chrome_trace
from lab.cli import main

SCHEMA = json.loads((Path(__file__).parent / "trace_event_format.schema.json").read_text(encoding="utf-8"))
SMALL = ["durations_s=20", "rates_per_s=2", "shares_long_input=0.5"]


def check_format(trace: dict) -> None:
    """Valid Trace Event Format, and every track's complete slices nest (a viewer stacks a
    slice inside the one it starts in; overlapping siblings would be drawn wrongly)."""
    jsonschema.validate(trace, SCHEMA, cls=jsonschema.Draft202012Validator)
    tracks = defaultdict(list)
    for e in trace["traceEvents"]:
        if e["ph"] == "X":
            tracks[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
    for key, spans in tracks.items():
        open_ends: list[float] = []
        for t0, t1 in sorted(spans, key=lambda s: (s[0], -s[1])):
            while open_ends and open_ends[-1] <= t0 + 1e-3:
                open_ends.pop()
            assert not open_ends or t1 <= open_ends[-1] + 1e-3, (key, t0, t1, open_ends[-1])
            open_ends.append(t1)


def _run(tmp_path, argv):
    out = tmp_path / "run"
    assert main(["simulate", "serving", *argv, "--out", str(out)]) == 0
    with open(out / "requests.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return json.loads((out / "trace.json").read_text(encoding="utf-8")), rows, out


def test_the_books_run_as_a_timeline(tmp_path, capsys):
    trace, rows, out = _run(tmp_path, ["--json"])
    report = json.loads(capsys.readouterr().out)
    assert "trace.json" in report["files"]
    check_format(trace)
    events = trace["traceEvents"]
    steps = [e for e in events if e["ph"] == "X" and e["cat"] == "step"]
    # every engine step once: a closed-form decode run is one slice of its k steps
    assert sum(e["args"]["steps"] for e in steps) == report["engine_steps"]
    assert sum(e["args"]["prefill_tokens"] * e["args"]["steps"] for e in steps) == report["prefill_tokens_total"]
    names = {e["name"].split(" x")[0] for e in steps}
    assert names <= {"prefill", "decode", "mixed"} and "decode" in names
    phases = defaultdict(dict)
    for e in events:
        if e["ph"] == "X" and e["cat"] == "request":
            phases[e["tid"] - 1].setdefault(e["name"], []).append(e)
    assert len(phases) == 480
    for i in (0, 17, 479):  # the slices are requests.csv's times, in µs
        r = rows[i]
        queued, prefill, decode = (phases[i][k][0] for k in ("queued", "prefill", "decode"))
        assert queued["ts"] == pytest.approx(float(r["arrival_s"]) * 1e6, abs=1.0)
        assert prefill["ts"] == pytest.approx(float(r["first_schedule_s"]) * 1e6, abs=1.0)
        assert decode["ts"] == pytest.approx(float(r["first_token_s"]) * 1e6, abs=1.0)
        assert decode["ts"] + decode["dur"] == pytest.approx(float(r["finish_s"]) * 1e6, abs=1.0)
        assert queued["args"]["input_tokens"] == int(r["input_tokens"])
    with open(out / "preemptions.csv", encoding="utf-8") as fh:
        preempted = list(csv.DictReader(fh))
    assert sum(len(p.get("preempted", ())) for p in phases.values()) == len(preempted) > 0
    counters = {e["name"] for e in events if e["ph"] == "C"}
    assert counters == {"vllm:num_requests_waiting", "vllm:num_requests_running", "vllm:kv_cache_usage_perc"}
    assert trace["otherData"]["step_events_per_slice"] == 1 and trace["otherData"]["requests_shown"] == 480


def test_replicas_are_processes_and_pools_name_them(tmp_path, capsys):
    trace, rows, _ = _run(tmp_path, [*SMALL, "replicas=2", "router=least_kv"])
    capsys.readouterr()
    check_format(trace)
    names = {e["pid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "process_name"}
    assert names == {1: "replica 0", 2: "replica 1"}
    for e in trace["traceEvents"]:
        if e["ph"] == "X" and e["cat"] == "request":  # a request's track is under its replica
            assert e["pid"] == int(rows[e["tid"] - 1]["replica"]) + 1
    report, (result, work) = serving_report(dict(a.split("=") for a in SMALL) | {"replicas": "2"})
    pooled = chrome_trace(result, work, pools=["prefill", "decode"])
    check_format(pooled)
    labels = [e["args"]["labels"] for e in pooled["traceEvents"] if e["name"] == "process_labels"]
    assert labels == ["pool=prefill", "pool=decode"] and pooled["otherData"]["pools"] == ["prefill", "decode"]
    steps = [e for e in pooled["traceEvents"] if e["ph"] == "X" and e["cat"] == "step"]
    assert sum(e["args"]["steps"] for e in steps) == report["engine_steps"]


def test_sessions_show_their_tool_waits(tmp_path, capsys):
    trace_file = tmp_path / "s.jsonl"
    # the sessions layout: each turn of a session waits 0.5 s for a tool after it finishes
    turns = [dict({"session_id": f"s{s}", "turn": t, "input_tokens": 200, "output_tokens": 20, "tool_wait_s": 0.5},
                  **({"arrival_s": s * 0.2} if t == 0 else {"think_time_s": 0.1})) for s in range(3) for t in range(3)]
    trace_file.write_text("".join(json.dumps(t) + "\n" for t in turns), encoding="utf-8")
    assert main(["simulate", "serving", f"trace={trace_file}", "format=sessions", "--out", str(tmp_path / "run")]) == 0
    capsys.readouterr()
    trace = json.loads((tmp_path / "run" / "trace.json").read_text(encoding="utf-8"))
    check_format(trace)
    waits = [e for e in trace["traceEvents"] if e["name"] == "tool wait"]
    assert len(waits) == 9 and all(e["dur"] == pytest.approx(0.5e6, abs=1e-3) for e in waits)


def test_large_runs_are_capped_within_the_bound(capsys):
    report, (result, work) = serving_report({})
    caps = {"max_steps": 50, "max_requests": 30, "max_points": 40}
    trace = chrome_trace(result, work, **caps)
    check_format(trace)
    events = trace["traceEvents"]
    steps = [e for e in events if e["ph"] == "X" and e["cat"] == "step"]
    assert len(steps) <= 50 and steps[0]["name"] == "steps (merged)"
    assert sum(e["args"]["steps"] for e in steps) == report["engine_steps"]  # merged, none lost
    assert sum(e["args"]["decode_tokens"] for e in steps) == result.decode_tokens
    assert sum(e["args"]["prefill_tokens"] for e in steps) == result.prefill_tokens
    assert len({e["tid"] for e in events if e["ph"] == "X" and e["cat"] == "request"}) == 30
    for name in ("vllm:num_requests_waiting", "vllm:kv_cache_usage_perc"):
        points = [e for e in events if e["name"] == name]
        assert len(points) <= 40
    # the bucket's peak is kept: the largest KV use of the run is a point
    kv = max(e["args"]["value"] for e in events if e["name"] == "vllm:kv_cache_usage_perc")
    assert kv == pytest.approx(float(result.series_kv_fraction.max()), abs=1e-6)
    size = len(json.dumps(trace, separators=(",", ":")))
    assert size <= bound_bytes(1, preemptions=len(result.preempt_log), **caps)
    for e in events:  # each event within the size the bound counts for its kind
        kind = "meta" if e["ph"] == "M" else "counter" if e["ph"] == "C" else e["cat"]
        assert len(json.dumps(e, separators=(",", ":"))) <= EVENT_BYTES[kind], e


def test_disaggregated_pools_name_their_processes(tmp_path, capsys):
    pytest.importorskip("core.serving.disagg.run")  # issue 15's pools (helper PD's)
    trace, rows, out = _run(tmp_path, [*SMALL, "pools=1P2D", "model=qwen3-8b", "hardware=h100-sxm",
                                       "--format", "prometheus"])
    capsys.readouterr()
    check_format(trace)
    names = [e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "process_name"]
    assert names == ["replica 0 (prefill pool)", "replica 1 (decode pool)", "replica 2 (decode pool)"]
    text = (out / "metrics.prom").read_text(encoding="utf-8")
    generated = [float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                 if line.startswith("vllm:generation_tokens_total{")]
    assert len(generated) == 3 and sum(generated) == sum(int(r["output_tokens"]) for r in rows)
