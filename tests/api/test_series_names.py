"""series.csv under vLLM's Prometheus names: the gauges as the engine's series, the
counters cumulative and ending at the run's totals (hand sums over requests.csv)."""
import csv
import json

from core.serving import vllm_series as vs
from lab.cli import main


def _rows(path):
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_the_books_run_series_end_at_its_totals(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["simulate", "serving", "--out", str(out)]) == 0
    capsys.readouterr()
    series = _rows(out / "series.csv")
    requests = _rows(out / "requests.csv")
    assert list(series[0]) == list(vs.COLUMNS)
    last = series[-1]
    assert int(last[vs.PREEMPTIONS]) == len(_rows(out / "preemptions.csv")) > 0
    assert int(last[vs.PROMPT]) == sum(int(r["input_tokens"]) for r in requests)
    assert int(last[vs.GENERATION]) == sum(int(r["output_tokens"]) for r in requests)
    assert int(last[vs.SUCCESS]) == len(requests) == 480
    for name in vs.COUNTERS:  # counters never go down
        values = [int(r[name]) for r in series]
        assert all(b >= a for a, b in zip(values, values[1:])), name
    kv = [float(r[vs.KV_USE]) for r in series]
    assert 0 <= min(kv) and max(kv) <= 1


def test_lab_names_map_the_header_back():
    assert vs.lab_names(["t_s", vs.WAITING, vs.RUNNING, vs.KV_USE, "kv_blocks"]) == [
        "t_s", "waiting", "running", "kv_fraction", "kv_blocks"]


def test_a_session_workload_counts_its_cache_hits(tmp_path, capsys):
    trace = tmp_path / "sessions.jsonl"
    # AIPerf's multi-turn Mooncake form: turn 2's prompt is turn 1's history plus its own tokens
    lines = []
    for s in range(4):
        lines.append(f'{{"session_id": "s{s}", "timestamp": {s * 500}, "input_length": 64, "output_length": 8}}')
        lines.append(f'{{"session_id": "s{s}", "delay": 100, "input_length": 96, "output_length": 8}}')
    trace.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "run"
    assert main(["simulate", "serving", f"trace={trace}", "--json",
                 "--out", str(out)]) == 0
    report = json.loads(capsys.readouterr().out)
    last = _rows(out / "series.csv")[-1]
    assert int(last[vs.CACHE_HITS]) == report["cached_tokens_total"] > 0
    assert int(last[vs.CACHE_QUERIES]) == sum(int(r["input_tokens"]) for r in _rows(out / "requests.csv"))
