"""Traces as they ship: each format read from an excerpt of the real file (tests/data/traces,
README there), the parsed numbers checked against the file's own rows; sniffing and format=."""
import csv
import json
from pathlib import Path

import numpy as np
import pytest

from core.registry import ParamError
from core.serving import traces
from core.serving.traces.datetimes import parse as parse_datetimes

DATA = Path(__file__).resolve().parents[1] / "data" / "traces"


def _clock_s(stamp: str) -> float:
    """'2023-11-16 18:17:03.9799600' -> seconds into the day, by hand (7 fraction digits)."""
    hms = stamp.split(" ")[1][:16]
    h, m, s = hms.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


@pytest.mark.parametrize("name, rows", [("azure2023_code_head.csv", 40), ("azure2023_conv_head.csv", 30)])
def test_azure_2023_rows_become_seconds_since_the_first(name, rows):
    work = traces.load_trace(DATA / name)
    with open(DATA / name) as fh:
        table = list(csv.DictReader(fh))
    assert len(work) == rows == len(table) and work.meta["format"] == "azure"
    seconds = np.array([_clock_s(r["TIMESTAMP"]) for r in table])
    order = np.argsort(seconds, kind="stable")
    assert np.allclose(work.arrival_s, (seconds - seconds.min())[order], atol=1e-6)
    assert list(work.input_tokens) == [int(table[i]["ContextTokens"]) for i in order]
    assert list(work.output_tokens) == [int(table[i]["GeneratedTokens"]) for i in order]


def test_azure_code_first_rows_by_hand():
    work = traces.load_trace(DATA / "azure2023_code_head.csv")
    # 18:17:04.0319600 - 18:17:03.9799600 = 0.052 s; row 2 is 3180 in, 8 out.
    assert work.arrival_s[1] == pytest.approx(0.052, abs=1e-9)
    assert (work.input_tokens[1], work.output_tokens[1]) == (3180, 8)


def test_azure_2024_timestamps_with_an_offset():
    work = traces.load_trace(DATA / "azure2024_code_rows.csv")
    assert work.meta["format"] == "azure"
    assert np.allclose(work.arrival_s, [0, 0.007405, 0.012384, 0.027915, 0.07396], atol=1e-9)
    assert list(work.input_tokens) == [2162, 2399, 76, 2376, 7670]
    assert list(work.output_tokens) == [5, 6, 15, 1, 8]


def test_azure_2024_mixed_precision_and_offsets(tmp_path):
    # The 2024 files mix '...00+00:00' and '...00.001163+00:00' (the notebook's comment).
    path = tmp_path / "a.csv"
    path.write_text("TIMESTAMP,ContextTokens,GeneratedTokens\n2024-05-12 00:00:00+00:00,10,2\n"
                    "2024-05-12 00:00:00.001163+00:00,20,3\n2024-05-12 01:00:01+01:00,30,4\n")
    work = traces.load_trace(path)
    assert np.allclose(work.arrival_s, [0, 0.001163, 1.0], atol=1e-9)  # 01:00:01+01:00 is 00:00:01 UTC
    assert list(work.input_tokens) == [10, 20, 30]


def test_vidur_matches_the_azure_trace_it_came_from():
    vidur = traces.load_trace(DATA / "vidur_splitwise_code_head.csv")
    azure = traces.load_trace(DATA / "azure2023_code_head.csv")
    assert vidur.meta["format"] == "vidur"
    with open(DATA / "vidur_splitwise_code_head.csv") as fh:
        table = list(csv.DictReader(fh))
    assert np.allclose(vidur.arrival_s, [float(r["arrived_at"]) for r in table])
    assert np.allclose(vidur.arrival_s, azure.arrival_s, atol=1e-6)  # Vidur rounds to the microsecond
    assert np.array_equal(vidur.input_tokens, azure.input_tokens)


@pytest.mark.parametrize("name", ["mooncake_conversation_head.jsonl", "mooncake_synthetic_head.jsonl"])
def test_mooncake_ms_and_hash_ids(name):
    lines = [json.loads(x) for x in (DATA / name).read_text().splitlines()]
    work = traces.load_trace(DATA / name)
    assert work.meta["format"] == "mooncake" and len(work) == len(lines)
    order = np.argsort([x["timestamp"] for x in lines], kind="stable")
    assert np.allclose(work.arrival_s, [(lines[i]["timestamp"] - lines[0]["timestamp"]) / 1000 for i in order])
    assert list(work.input_tokens) == [lines[i]["input_length"] for i in order]
    assert list(work.output_tokens) == [lines[i]["output_length"] for i in order]
    prefix = work.prefix
    assert prefix.block_tokens == 512 and prefix.offsets[0] == 0 and prefix.offsets[-1] == prefix.ids.size
    for k, i in enumerate(order):
        assert list(prefix.ids[prefix.offsets[k]:prefix.offsets[k + 1]]) == lines[i]["hash_ids"]


def test_mooncake_first_requests_by_hand():
    work = traces.load_trace(DATA / "mooncake_conversation_head.jsonl")
    # 6758 tokens = 14 blocks of 512 (13 full + 102); the second request shares block 0.
    assert list(work.prefix.ids[:14]) == list(range(14))
    assert work.prefix.ids[14] == 0 and work.prefix.offsets[2] - work.prefix.offsets[1] == 15


def test_burstgpt_drops_failures_and_filters():
    path = DATA / "burstgpt_schema.csv"
    work = traces.load_trace(path)
    assert work.meta["format"] == "burstgpt" and work.meta["rows"] == 6
    assert work.meta["dropped"] == {"zero response tokens": 2}
    assert list(work.arrival_s) == [0, 113, 129, 147] and list(work.input_tokens) == [472, 417, 2069, 210]
    gpt4 = traces.load_trace(path, trace_model="gpt-4")
    assert list(gpt4.input_tokens) == [417] and gpt4.meta["dropped"] == {"other Model": 4, "zero response tokens": 1}
    api = traces.load_trace(path, trace_log_type="API log")
    assert list(api.arrival_s) == [0, 16] and list(api.output_tokens) == [276, 365]


def test_burstgpt_newer_columns():
    work = traces.load_trace(DATA / "burstgpt_sessions_schema.csv")
    assert work.meta["format"] == "burstgpt" and list(work.arrival_s) == [0, 1.5]
    assert list(work.input_tokens) == [300, 120] and work.meta["dropped"] == {"zero response tokens": 1}


def test_vllm_bench_result():
    work = traces.load_trace(DATA / "vllm_bench_result.json")
    assert work.meta["format"] == "vllm_bench" and work.meta["dropped"] == {"failed requests": 1}
    assert list(work.arrival_s) == [0, 0.5, 1.5]  # request i at i / request_rate (2/s); the 3rd failed
    assert list(work.input_tokens) == [1024, 1024, 1024] and list(work.output_tokens) == [4, 5, 3]
    measured = work.meta["measured"]
    assert measured["ttfts_s"] == [0.081, 0.094, 0.077]
    assert measured["itls_s"] == [[0.021, 0.02, 0.022], [0.02, 0.021, 0.02, 0.023], [0.02, 0.019]]
    assert work.meta["request_rate"] == 2.0


def test_vllm_bench_infinite_rate_sends_all_at_once(tmp_path):
    obj = json.loads((DATA / "vllm_bench_result.json").read_text())
    obj["request_rate"] = "inf"
    path = tmp_path / "r.json"
    path.write_text(json.dumps(obj, indent=2))  # indented: one object over many lines
    work = traces.load_trace(path)
    assert list(work.arrival_s) == [0, 0, 0] and work.meta["arrivals"].startswith("all at 0")


def test_sessions_prompts_are_history_plus_new_tokens():
    work = traces.load_trace(DATA / "sessions_small.jsonl")
    s = work.sessions
    assert work.meta["format"] == "sessions" and work.meta["sessions"] == 2
    # Earliest arrivals: chat 0, agent 1.5, agent turn 1 at 1.5 + 3 (tool) + 0, chat turn 1 at 0 + 5,
    # agent turn 2 at 4.5 + 2 + 0, chat turn 2 at 30 (fixed).
    assert list(work.arrival_s) == [0, 1.5, 4.5, 5, 6.5, 30]
    assert list(s.session) == [0, 1, 1, 0, 1, 0] and list(s.turn) == [0, 0, 1, 1, 2, 2]
    assert list(s.new_input_tokens) == [900, 2000, 300, 40, 100, 10]
    # shared: 0; 0; 1800 (given); 900 + 120; 1800 + 300 + 50; 1020 + 40 + 80
    assert list(s.shared_prefix_tokens) == [0, 0, 1800, 1020, 2150, 1140]
    assert list(work.input_tokens) == [900, 2000, 2100, 1060, 2250, 1150]
    assert np.array_equal(np.isnan(s.think_time_s), [True, True, False, False, False, True])
    assert list(s.tool_wait_s) == [0, 3, 2, 0, 0, 0]
    assert list(s.keep_kv_during_tool) == [True, True, False, True, True, True]


@pytest.mark.parametrize("name, fmt", [
    ("azure2023_code_head.csv", "azure"), ("azure2024_code_rows.csv", "azure"),
    ("burstgpt_schema.csv", "burstgpt"), ("vidur_splitwise_code_head.csv", "vidur"),
    ("mooncake_synthetic_head.jsonl", "mooncake"), ("vllm_bench_result.json", "vllm_bench"),
    ("sessions_small.jsonl", "sessions"),
])
def test_sniffing_names_the_format(name, fmt):
    assert traces.sniff((DATA / name).read_bytes()) == fmt


def test_our_own_formats_are_sniffed(tmp_path):
    assert traces.sniff(b"arrival_s,input_tokens,output_tokens\n0,1,2\n") == "csv"
    assert traces.sniff(b'{"arrival_s": 0, "input_tokens": 1, "output_tokens": 2}\n') == "jsonl"


def test_format_forces_one(tmp_path):
    # BurstGPT's header read as our csv: the aliases apply, and a zero is an error, not a drop.
    with pytest.raises(ParamError, match="row 2: output_tokens is '0'"):
        traces.load_trace(DATA / "burstgpt_schema.csv", format="csv")
    with pytest.raises(ParamError, match="unknown column 'arrived_at' for format azure; valid: TIMESTAMP,ContextTokens"):
        traces.load_trace(DATA / "vidur_splitwise_code_head.csv", format="azure")
    work = traces.load_trace(DATA / "azure2023_code_head.csv", format="azure")
    assert len(work) == 40


def test_quoted_crlf_and_blank_lines(tmp_path):
    path = tmp_path / "q.csv"
    path.write_bytes(b'"arrival_s","input_tokens","output_tokens"\r\n"1","20","3"\r\n\r\n"0","10","2"\r\n')
    work = traces.load_trace(path)
    assert list(work.input_tokens) == [10, 20]
    path.write_bytes(b"arrival_s,input_tokens,output_tokens\r\n1,20,3\r\n\r\n0,10,2\r\n")
    assert list(traces.load_trace(path).arrival_s) == [0, 1]


def test_write_and_parse_text_round_trip(tmp_path):
    work = traces.load_trace(DATA / "azure2023_code_head.csv")
    out = tmp_path / "w.csv"
    traces.write_trace(out, work)
    again = traces.parse_text(out.read_text(), "csv")
    assert np.allclose(again.arrival_s, work.arrival_s, atol=1e-6)
    assert np.array_equal(again.input_tokens, work.input_tokens)


def test_plain_decimals_read_from_bytes_equal_float(tmp_path):
    # The byte-level path (digits.py) must give the very float that float(text) gives.
    rng = np.random.default_rng(3)
    values = [f"{v:.{k}f}" for v, k in zip(rng.uniform(0, 1e7, 5000), rng.integers(0, 8, 5000))]
    path = tmp_path / "d.csv"
    path.write_text("arrival_s,input_tokens,output_tokens\n" + "".join(f"{v},7,1\n" for v in values))
    work = traces.load_trace(path)
    want = np.sort(np.array([float(v) for v in values]))
    assert np.array_equal(work.arrival_s, want - want[0])


def test_other_number_spellings_take_the_per_value_path(tmp_path):
    path = tmp_path / "e.csv"
    path.write_text("arrival_s,input_tokens,output_tokens\n1e2,+5,3.0\n 0 ,6, 2\n")
    work = traces.load_trace(path)
    assert list(work.arrival_s) == [0, 100] and list(work.input_tokens) == [6, 5]
    assert list(work.output_tokens) == [2, 3]


def test_date_times_read_from_bytes_equal_numpys(tmp_path):
    # datetimes.parse reads the bytes itself; on valid values it must give numpy's nanoseconds.
    rng = np.random.default_rng(5)
    stamps = np.datetime_as_string(rng.integers(0, 7_000_000_000 * 10**9, 3000).astype("datetime64[ns]"), unit="ns")
    cut = {0: 29, 1: 26, 2: 23, 3: 19, 4: 16, 5: 10}  # ns, us, ms, s, minutes, a date alone
    texts = [s[:cut[i % 6]].replace("T", " " if i % 2 else "T") for i, s in enumerate(stamps)]
    want = np.array(texts).astype("datetime64[ns]").astype(np.int64)
    zones, minutes = ["", "Z", "+00:00", "-05:30", "+09:00"], [0, 0, 0, -330, 540]
    zoned = [t + (zones[i % 5] if len(t) > 10 else "") for i, t in enumerate(texts)]
    want -= np.array([minutes[i % 5] if len(t) > 10 else 0 for i, t in enumerate(texts)]) * 60 * 10**9
    got, ok = parse_datetimes(np.array([z.encode() for z in zoned], dtype="S"))
    assert ok.all() and np.array_equal(got, want)
    path = tmp_path / "z.csv"  # and through the file: seconds since the first, in time order
    path.write_text("TIMESTAMP,ContextTokens,GeneratedTokens\n" + "".join(f"{z},5,1\n" for z in zoned))
    work = traces.load_trace(path)
    assert np.allclose(work.arrival_s, (np.sort(want) - want.min()) / 1e9, rtol=1e-15, atol=1e-6)


JSONL_CASES = {
    "plain.jsonl": '{"arrival_s": 0.5, "input_tokens": 10, "output_tokens": 2}\n{"arrival_s": 0, "input_tokens": 7, "output_tokens": 1}\n',
    "aliases.jsonl": '{"t": 1, "p": 5, "g": 3}\r\n{"t": 2.25, "p": 6, "g": 4}\r\n',
    "bom.jsonl": '\ufeff{"timestamp": 3, "input_length": 600, "output_length": 5, "hash_ids": [4, 9]}\n',
    "blank.jsonl": '{"arrival_s": 0, "input_tokens": 1, "output_tokens": 2}\n\n{"arrival_s": 1, "input_tokens": 0, "output_tokens": 3}\n',
    "blanks.jsonl": '{"arrival_s": 0, "input_tokens": 1, "output_tokens": 2}\n  \n{"arrival_s": 1, "input_tokens": 1, "output_tokens": x}\n',
    "ids.jsonl": '{"timestamp": 3, "input_length": 600, "output_length": 5, "hash_ids": [4, 9]}\n'
                 '{"timestamp": 7, "input_length": 600, "output_length": 5, "hash_ids": [4, -2]}\n',
    "count.jsonl": '{"timestamp": 3, "input_length": 600, "output_length": 5, "hash_ids": [4]}\n',
    "float.jsonl": '{"timestamp": 3, "input_length": 600.0, "output_length": 5, "hash_ids": [4, 5]}\n',
    "zero.jsonl": '{"timestamp": 3, "input_length": 600, "output_length": 0}\n',
    "string.jsonl": '{"arrival_s": "1", "input_tokens": 5, "output_tokens": 3}\n',
    "missing.jsonl": '{"arrival_s": 1, "input_tokens": 5, "output_tokens": 3}\n{"arrival_s": 1, "input_tokens": 5}\n',
    "negative.jsonl": '{"timestamp": -3, "input_length": 6, "output_length": 5}\n',
}


@pytest.mark.parametrize("name", sorted(JSONL_CASES) + ["mooncake_conversation_head.jsonl", "mooncake_synthetic_head.jsonl"])
def test_jsonl_read_by_pyarrow_equals_json(tmp_path, monkeypatch, name):
    # A large JSON Lines file goes through pyarrow (arrow_lines.py); the same file read with
    # json gives the same workload, or the same refusal.
    from core.serving.traces import arrow_lines

    path = DATA / name if name not in JSONL_CASES else tmp_path / name
    if name in JSONL_CASES:
        path.write_bytes(JSONL_CASES[name].encode())

    def load():
        try:
            return traces.load_trace(path)
        except ParamError as err:
            return str(err)

    slow = load()
    monkeypatch.setattr(arrow_lines, "MIN_BYTES", 0)
    taken = []
    real = arrow_lines.columns
    monkeypatch.setattr(arrow_lines, "columns", lambda *a: taken.append(real(*a)) or taken[-1])
    fast = load()
    assert taken  # pyarrow was asked
    if isinstance(slow, str):
        assert fast == slow
        return
    for key in ("arrival_s", "input_tokens", "output_tokens"):
        assert np.array_equal(getattr(fast, key), getattr(slow, key))
        assert getattr(fast, key).dtype == getattr(slow, key).dtype
    assert (fast.prefix is None) == (slow.prefix is None) and fast.meta == slow.meta
    if fast.prefix is not None:
        assert np.array_equal(fast.prefix.ids, slow.prefix.ids) and np.array_equal(fast.prefix.offsets, slow.prefix.offsets)
    if name in ("plain.jsonl", "aliases.jsonl", "blank.jsonl", "ids.jsonl", "zero.jsonl", "mooncake_conversation_head.jsonl"):
        assert taken[-1] is not None  # these the fast path read itself (and refused, for ids/zero)


@pytest.mark.parametrize("name", ["mooncake_conversation_head.jsonl", "mooncake_synthetic_head.jsonl", "plain"])
def test_json_lines_parsed_in_blocks_equal_one_block(tmp_path, monkeypatch, name):
    from core.serving.traces import jsonlines

    path = DATA / name
    if name == "plain":
        path = tmp_path / "p.jsonl"
        path.write_text("".join(f'{{"t": {i * 0.25}, "p": {i + 1}, "g": {i % 7 + 1}}}\n' for i in range(50)))
    whole = traces.load_trace(path)
    monkeypatch.setattr(jsonlines, "BLOCK_LINES", 7)
    parts = traces.load_trace(path)
    for key in ("arrival_s", "input_tokens", "output_tokens"):
        assert np.array_equal(getattr(parts, key), getattr(whole, key))
    assert parts.meta == whole.meta
    if whole.prefix is not None:
        assert np.array_equal(parts.prefix.ids, whole.prefix.ids)
        assert np.array_equal(parts.prefix.offsets, whole.prefix.offsets)


def test_json_lines_in_blocks_compare_each_line_with_the_first(tmp_path, monkeypatch):
    from core.serving.traces import jsonlines

    monkeypatch.setattr(jsonlines, "BLOCK_LINES", 2)
    line = '{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [1, 2]}\n'
    path = tmp_path / "m.jsonl"
    path.write_text(line * 3 + line.replace(', "hash_ids": [1, 2]', ""))
    with pytest.raises(ParamError, match="line 4: hash_ids missing unlike line 1"):
        traces.load_trace(path)
    path.write_text('{"t": 0, "p": 1, "g": 1}\n' * 2 + '{"arrival_s": 0, "input_tokens": 1, "output_tokens": 1}\n' * 2)
    with pytest.raises(ParamError, match="lines name their fields differently"):
        traces.load_trace(path)


def test_sessions_read_by_columns_equal_line_by_line(tmp_path, monkeypatch):
    from core.serving.traces import sessions

    rng = np.random.default_rng(7)
    lines = [(DATA / "sessions_small.jsonl").read_text()]
    for s in range(40):
        for t in range(int(rng.integers(1, 5))):
            row = {"session_id": s if s % 2 else f"s{s}", "turn": t, "input_tokens": int(rng.integers(1, 900)),
                   "output_tokens": int(rng.integers(1, 90))}
            row.update({"arrival_s": float(s)} if t == 0 else {"think_time_s": float(rng.uniform(0, 3))})
            if t and rng.random() < 0.3:
                row.update(tool_wait_s=1.5, keep_kv=bool(rng.random() < 0.5))
            lines.append(json.dumps(row) + "\n")
    path = tmp_path / "s.jsonl"
    path.write_text("".join(lines))
    fast = traces.load_trace(path)
    monkeypatch.setattr(sessions, "_fields_fast", lambda *a: False)
    slow = traces.load_trace(path)
    for key in ("arrival_s", "input_tokens", "output_tokens"):
        assert np.array_equal(getattr(fast, key), getattr(slow, key))
    for key in ("session", "turn", "new_input_tokens", "shared_prefix_tokens", "think_time_s", "tool_wait_s",
                "keep_kv_during_tool"):
        a, b = getattr(fast.sessions, key), getattr(slow.sessions, key)
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)


@pytest.mark.parametrize("extra", ['"arrival_s": NaN', '"think_time_s": NaN', '"tool_wait_s": Infinity',
                                   '"shared_prefix_tokens": -1', '"keep_kv": 1', '"turn": true'])
def test_sessions_columns_leave_odd_values_to_the_line_by_line_check(tmp_path, extra):
    first = '{"session_id": "a", "turn": 0, "arrival_s": 0, "input_tokens": 5, "output_tokens": 2}\n'
    second = '{"session_id": "a", "turn": 1, "input_tokens": 5, "output_tokens": 2, "think_time_s": 1, ' + extra + "}\n"
    if '"arrival_s"' in extra or '"think_time_s"' in extra or '"turn"' in extra:
        second = second.replace('"think_time_s": 1, ', "").replace('"turn": 1, ', "")
        if '"turn"' in extra:
            second = second.replace("}\n", ', "think_time_s": 1}\n')
    path = tmp_path / "s.jsonl"
    path.write_text(first + second)
    with pytest.raises(ParamError) as err:
        traces.load_trace(path)
    assert "line 2:" in str(err.value) and "valid" in str(err.value)


def test_quoted_csv_read_in_blocks_equals_the_plain_one(tmp_path, monkeypatch):
    from core.serving.traces import columns

    monkeypatch.setattr(columns, "MIN_BLOCK_LINES", 3)  # the csv module's rows, three at a time
    plain = (DATA / "azure2023_code_head.csv").read_text().splitlines()
    quoted = [plain[0]] + [f'"{a}",{b},"{c}"' for a, b, c in (line.split(",") for line in plain[1:])]
    quoted.insert(8, "")  # a blank line keeps the row numbers after it
    path = tmp_path / "q.csv"
    path.write_text("\n".join(quoted) + "\n")
    want = traces.load_trace(DATA / "azure2023_code_head.csv")
    got = traces.load_trace(path)
    for key in ("arrival_s", "input_tokens", "output_tokens"):
        assert np.array_equal(getattr(got, key), getattr(want, key))
    quoted[20] = quoted[20].replace(",", ",x", 1)
    path.write_text("\n".join(quoted) + "\n")
    with pytest.raises(ParamError, match="row 20: ContextTokens is 'x"):
        traces.load_trace(path)
