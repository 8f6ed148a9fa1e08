"""Bad trace files and options: one ParamError naming the file, the row and the field (or the
option), with the valid range. Hostile files (fifo, /dev/zero, huge) are in
test_serving_replay.py; truncated ones are here."""
import json
from pathlib import Path

import numpy as np
import pytest

from core.registry import ParamError
from core.serving import traces

DATA = Path(__file__).resolve().parents[1] / "data" / "traces"
MOONCAKE = '{"timestamp": 0, "input_length": 1000, "output_length": 5, "hash_ids": [0, 1]}\n'


def refused(tmp_path, name, text, param="trace", **options):
    path = tmp_path / name
    path.write_bytes(text) if isinstance(text, bytes) else path.write_text(text)
    with pytest.raises(ParamError) as err:
        traces.load_trace(path, **options)
    assert err.value.param == param
    assert "valid" in str(err.value)
    return str(err.value)


@pytest.mark.parametrize("name, text, words", [
    # unknown or mixed formats
    ("u.csv", "when,size,out\n1,2,3\n", "unknown column 'when'"),
    ("u.json", '[{"arrival_s": 1}]', "is a JSON array"),
    ("m.jsonl", MOONCAKE + '{"session_id": 1, "turn": 0, "arrival_s": 0, "input_tokens": 5, "output_tokens": 1}\n',
     "line 2: unknown field 'turn' for format mooncake with sessions"),  # AIPerf's session_id, our turn
    ("m.csv", "TIMESTAMP,ContextTokens,Response tokens\n1,2,3\n", "unknown column 'ContextTokens'; valid columns"),
    ("m.jsonl", '{"arrival_s": 0, "input_tokens": 1, "output_tokens": 2}\n{"t": 1, "p": 1, "g": 2}\n',
     "lines name their fields differently"),
    ("m.csv", "arrival_s,input_tokens,output_tokens\n0,1,2\n" + MOONCAKE, "row 2 has a different number of fields"),
    ("m.csv", "arrival_s,input_tokens,output_tokens\n0,1\n1,2,3,4\n", "row 1 has a different number of fields "
     "than the header (2 for 3)"),  # two wrong rows whose fields add up
    # a date-time that does not parse
    ("d.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.9799600,5,2\n2023-11-16 25:99:00,5,2\n",
     "row 2: TIMESTAMP is '2023-11-16 25:99:00', not a date-time"),
    ("d.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\nyesterday,5,2\n", "row 1: TIMESTAMP is 'yesterday'"),
    # numpy's parser takes these ('5' is the year 5, wrapped around; 'today' is today)
    ("d.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.9799600,5,2\n5,5,2\n",
     "row 2: TIMESTAMP is '5', not a date-time"),
    ("d.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\ntoday,5,2\n", "row 1: TIMESTAMP is 'today'"),
    ("d.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n20231116,5,2\n", "row 1: TIMESTAMP is '20231116'"),
    ("d.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-02-29 00:00:00,5,2\n", "row 1: TIMESTAMP is '2023-02-29"),
    ("d.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n1900-01-01 00:00:00,5,2\n", "year 1970..2200"),
    ("d.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.9+25:00,5,2\n", "not a date-time"),
    # text fields are bounded before they are laid out in a matrix
    ("d.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03." + "9" * 100 + ",5,2\n",
     "row 1: TIMESTAMP is 120 characters long; valid: at most 64"),
    # hash_ids that are not integers, or not one per block
    ("h.jsonl", MOONCAKE + MOONCAKE.replace("[0, 1]", '[0, "a"]'), "line 2: hash_ids holds 'a'; valid: whole numbers"),
    ("h.jsonl", MOONCAKE.replace("[0, 1]", "[0, 1.5]"), "line 1: hash_ids holds 1.5"),
    ("h.jsonl", MOONCAKE.replace("[0, 1]", "[0, -1]"), "line 1: hash_ids holds -1"),
    ("h.jsonl", MOONCAKE.replace("[0, 1]", '"abc"'), "line 1: hash_ids is 'abc'"),
    ("h.jsonl", MOONCAKE.replace("[0, 1]", "[0]"), "line 1: hash_ids has 1 ids for input_length 1,000; valid: 2"),
    ("h.jsonl", MOONCAKE + MOONCAKE.replace(', "hash_ids": [0, 1]', ""), "line 2: hash_ids missing"),
    # truncated files
    ("t.csv", "arrival_s,input_tokens,output_tokens\n0,1,2\n1,5", "row 2 has a different number of fields than the header (2 for 3)"),
    ("t.jsonl", MOONCAKE + MOONCAKE[:30], "line 2 is not JSON"),
    ("t.json", (DATA / "vllm_bench_result.json").read_text()[:300], "line 1 is not JSON"),
    # vllm bench results we cannot replay
    ("v.json", json.dumps({"backend": "openai", "num_prompts": 4, "request_throughput": 1.0}),
     "no per-request input_lens/output_lens; valid: a result saved with --save-detailed"),
    ("v.json", (DATA / "vllm_bench_result.json").read_text() + "\n" + (DATA / "vllm_bench_result.json").read_text(),
     "several results"),
    # rows keep the row number through blank lines and name the field
    ("b.csv", "arrival_s,input_tokens,output_tokens\n0,5,3\n\n1,abc,3\n", "row 3: input_tokens is 'abc', not a number"),
    ("b.csv", "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,-4,3,7,API log\n",
     "row 1: Request tokens is '-4'; valid: a whole number >= 1"),
    ("b.csv", b"arrival_s,input_tokens,output_tokens\n0,\xff,3\n", "not UTF-8 text (byte 39)"),
])
def test_bad_files_name_file_row_and_field(tmp_path, name, text, words):
    message = refused(tmp_path, name, text)
    assert words in message
    assert f"{name}" in message  # the file is named


SESSION = {"session_id": "s", "turn": 0, "arrival_s": 10.0, "input_tokens": 100, "output_tokens": 20}


def _turn(**changes):
    row = dict(SESSION, **changes)
    return json.dumps({k: v for k, v in row.items() if v is not None}) + "\n"


@pytest.mark.parametrize("text, words", [
    (_turn() + _turn(turn=1, arrival_s=5.0), "line 2: arrival_s 5 s is before the session's previous turn (10 s)"),
    (_turn() + _turn(turn=2), "line 2: session 's' turn 2 follows turn 0; valid: consecutive turns"),
    (_turn() + _turn(), "turn 0 follows turn 0"),
    (_turn() + _turn(turn=1, shared_prefix_tokens=121), "line 2: shared_prefix_tokens is 121, longer than the previous "
     "turn's prompt + output (120); valid: [0, 120]"),
    (_turn(shared_prefix_tokens=5), "line 1: shared_prefix_tokens is 5, longer than the previous turn's prompt + output (0)"),
    (_turn(arrival_s=None, think_time_s=1.0), "line 1: session 's''s first turn has no arrival_s"),
    (_turn() + _turn(turn=1, think_time_s=2.0), "line 2: both arrival_s and think_time_s"),
    (_turn(keep_kv="yes"), "line 1: keep_kv is 'yes'; valid: true or false"),
    (_turn(tool_wait_s=-1), "line 1: tool_wait_s is -1"),
    (_turn(input_tokens=0), "line 1: input_tokens is 0; valid: a whole number >= 1"),
    (_turn(colour="red"), "line 1: unknown field 'colour' for format sessions"),
])
def test_bad_sessions(tmp_path, text, words):
    assert words in refused(tmp_path, "s.jsonl", text)


@pytest.mark.parametrize("options, param, words", [
    ({"format": "parquet"}, "format", "valid: auto, csv, jsonl"),
    ({"window": (5, 2)}, "window", "0 <= start_s < end_s"),
    ({"window": (200, 300)}, "window", "no request arrives in [200, 300) s; valid: a window within the trace's [0, 147.000] s"),
    ({"limit": 0}, "limit", "valid: a whole number of rows"),
    ({"time_scale": 0}, "time_scale", "2 = twice as fast"),
    ({"hash_block_tokens": 0}, "hash_block_tokens", "Mooncake: 512"),
    ({"hash_block_tokens": 64}, "hash_block_tokens", "a trace of format burstgpt has no hash_ids; valid: only for Mooncake"),
    ({"trace_model": "Claude"}, "trace_model", "no row has Model 'Claude'; valid: one of ChatGPT, GPT-4"),
    ({"trace_log_type": "batch"}, "trace_log_type", "valid: one of API log, Conversation log"),
])
def test_bad_options_name_the_option(options, param, words):
    with pytest.raises(ParamError) as err:
        traces.load_trace(DATA / "burstgpt_schema.csv", **options)
    assert err.value.param == param and words in str(err.value)


def test_filters_need_their_column():
    with pytest.raises(ParamError) as err:
        traces.load_trace(DATA / "azure2023_code_head.csv", trace_model="GPT-4")
    assert err.value.param == "trace_model" and "no Model column" in str(err.value)
    with pytest.raises(ParamError) as err:
        traces.load_trace(DATA / "mooncake_synthetic_head.jsonl", trace_log_type="API log")
    assert err.value.param == "trace_log_type"


def test_an_all_failed_burstgpt_file_says_what_was_left_out(tmp_path):
    words = refused(tmp_path, "f.csv", "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
                    "1,ChatGPT,5,0,5,API log\n")
    assert "no requests" in words and "1 zero response tokens" in words


def test_a_bad_date_time_deep_in_a_large_file_is_refused_not_a_crash(tmp_path):
    # numpy 2.4's astype("datetime64[ns]") segfaults when one value of a large array does not parse.
    good = "2023-11-16 18:17:03.9799600,4808,10\n" * 5000
    words = refused(tmp_path, "big.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n" + good + "2023-11-16 25:17:04.1,1,1\n")
    assert "row 5001: TIMESTAMP is '2023-11-16 25:17:04.1', not a date-time" in words


def test_a_long_model_name_is_refused_before_the_filter_lays_out_its_column(tmp_path):
    rows = "".join(f"{i},ChatGPT,100,10,110,API log\n" for i in range(3))
    text = ("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n" + rows
            + "9," + "G" * 3000 + ",100,10,110,API log\n")
    words = refused(tmp_path, "m.csv", text, param="trace", trace_model="ChatGPT")
    assert "row 4: Model is 3,000 characters long; valid: at most 64 characters" in words


def test_a_file_over_the_size_limit_says_how_to_cut_it(tmp_path, monkeypatch):
    monkeypatch.setattr(traces, "MAX_TRACE_BYTES", 100)
    words = refused(tmp_path, "week.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n" + "2024-05-12 00:00:00,5,2\n" * 10)
    assert "week.csv' is 280 bytes; valid: at most 100 bytes; limit=N reads only a larger file's first N rows" in words


def test_limit_reads_the_head_of_a_file_over_the_size_limit(tmp_path, monkeypatch):
    from core.serving.trace_source import TraceSource, summary_text

    path = tmp_path / "week.csv"
    rows = "".join(f"2024-05-12 00:00:{i:02d}.5+00:00,{i + 1},2\n" for i in range(60))
    path.write_text("TIMESTAMP,ContextTokens,GeneratedTokens\n" + rows)
    whole = traces.load_trace(path, limit=5)
    monkeypatch.setattr(traces, "MAX_TRACE_BYTES", 400)  # the file is 2,080 bytes
    head = traces.load_trace(path, limit=5)
    assert np.array_equal(head.arrival_s, whole.arrival_s) and list(head.input_tokens) == [1, 2, 3, 4, 5]
    text = path.read_text()
    first = len("".join(text.splitlines(keepends=True)[:6]))  # the header and limit + 1 rows
    assert head.meta["head_of_file"] == {"bytes_read": first, "file_bytes": len(text)}
    assert "read its first 0 of 0 MB" in summary_text(TraceSource(str(path)), head)
    assert "head_of_file" not in whole.meta
    words = refused(tmp_path, "week.csv", path.read_text(), limit=20)  # 20 rows pass 400 bytes
    assert "its first 21 lines pass 400 bytes; valid: a smaller limit=" in words
    words = refused(tmp_path, "week.csv", path.read_text())
    assert "limit=N reads only a larger file's first N rows" in words
    sessions = tmp_path / "s.jsonl"
    sessions.write_text('{"session_id": 1, "turn": 0, "arrival_s": 0, "input_tokens": 5, "output_tokens": 2}\n' * 9)
    with pytest.raises(ParamError, match="only for one request per row"):
        traces.load_trace(sessions, limit=1)
