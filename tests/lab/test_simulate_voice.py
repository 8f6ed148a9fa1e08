"""`lab simulate voice`: the issue's keys and JSON names, --out files, exit 2 on bad input."""
import csv
import json

import pytest

from core.voice import STAGES
from lab.cli import main


def _json(capsys, argv):
    assert main(["simulate", "voice", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_names_as_the_issue(capsys):
    r = _json(capsys, ["rate=1", "turns=30", "seed=3", "duration_s=30", "vad_silence_ms=120", "asr_final_ms=50",
                       "tts_ttfb_ms=60", "first_clause_tokens=5"])
    for key in ("silence_p50_ms", "silence_p95_ms", "silence_p99_ms", "underrun_turn_share", "stall_p95_ms"):
        assert isinstance(r[key], float)
    means = [k for k in r if k.startswith("mean_")]
    assert means == [f"mean_{s}_ms" for s in STAGES]  # only the stages carry the prefix
    assert sum(r[k] for k in means) == pytest.approx(r["silence_mean_ms"], abs=1e-5)  # each to the ns
    assert r["mean_vad_ms"] == pytest.approx(120) and r["mean_asr_ms"] == pytest.approx(50)
    assert r["mean_tts_ms"] == pytest.approx(60)
    assert r["turns"] == 30 and r["source"] == "rate 1/s"
    assert r["silence_p50_ms"] <= r["silence_p95_ms"] <= r["silence_p99_ms"]


def test_default_run_is_near_the_books_anchors(capsys):
    r = _json(capsys, ["turns=10"])
    assert r["background_requests"] == 0 and r["source"] == "none"
    assert 370 <= r["silence_p50_ms"] <= 400 and r["chunk_gap_p50_ms"] == pytest.approx(94, abs=0.5)


def test_scenario_background_and_barge_in(capsys):
    r = _json(capsys, ["scenario=uniform", "turns=40", "barge_in_ms=200", "reply_tokens=200"])
    assert r["background_requests"] == 480 and r["source"] == "scenario uniform"
    assert r["tail_stage"] == "queue"  # the book's load: the tail is the queue
    assert r["cancelled_turns"] > 0


def test_text_report(capsys):
    assert main(["simulate", "voice", "turns=5"]) == 0
    out = capsys.readouterr().out
    assert "silence gap" in out and "p95" in out and "94" in out
    for s in STAGES:
        assert s in out


def test_out_writes_turns_and_summary(tmp_path, capsys):
    out = tmp_path / "voice"
    assert main(["simulate", "voice", "rate=0.5", "turns=12", "duration_s=20", "barge_in_ms=400", "--out", str(out),
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["files"] == ["turns.csv", "summary.json"]
    rows = list(csv.DictReader(open(out / "turns.csv", encoding="utf-8")))
    assert len(rows) == 12
    for row in rows:
        stages = [float(row[f"{s}_end_s"]) - float(row[f"{s}_start_s"]) for s in STAGES]
        assert sum(stages) * 1000 == pytest.approx(float(row["silence_ms"]), abs=1e-6)
        assert float(row["vad_start_s"]) <= float(row["device_end_s"]) <= float(row["barge_in_start_s"])
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["silence_p95_ms"] == report["silence_p95_ms"]


@pytest.mark.parametrize("argv, field", [
    (["turns=0"], "turns"),
    (["vad_silence_ms=-1"], "vad_silence_ms"),
    (["tts_ttfb_ms=2h"], "tts_ttfb_ms"),
    (["barge_in_ms=-20"], "barge_in_ms"),
    (["reply_tokens=3"], "first_clause_tokens"),
    (["rate=1", "trace=x.csv"], "rate"),
    (["bogus=1"], "bogus"),
    (["--format", "aiperf"], "--format"),
    (["trace=/no/such/trace.csv"], "trace"),
])
def test_bad_input_exits_2_naming_the_field(argv, field, capsys):
    assert main(["simulate", "voice", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lab simulate voice: ") and f"{field}" in err and "valid" in err
    assert err.count("\n") == 1


def test_help_lists_the_keys(capsys):
    assert main(["simulate", "voice", "--help"]) == 0
    out = capsys.readouterr().out
    for key in ("--vad_silence_ms", "--asr_final_ms", "--tts_ttfb_ms", "--first_clause_tokens", "--barge_in_ms",
                "--rate", "--scenario", "--trace", "--turns", "--seed", "silence_p95_ms"):
        assert key in out


def test_trace_background_with_sessions(capsys):
    """A sessions trace: its later turns wait for their predecessor inside the engine (not
    submitted), the voice turns join as sessions of their own."""
    from pathlib import Path

    trace = Path(__file__).resolve().parents[2] / "examples" / "sessions.jsonl"
    r = _json(capsys, [f"trace={trace}", "turns=20", "barge_in_ms=100"])
    assert r["source"].startswith("trace ") and r["background_requests"] > 0
    assert r["turns"] == 20 and r["silence_p50_ms"] > 0
