"""AIPerf's other custom-dataset layouts: Baseten's Parquet trace is read (open-loop arrivals
as ms from the first row, each row its whole prompt, total_hashes per block_size tokens);
the text-only layouts (single_turn, multi_turn, random_pool, mooncake_trace's text_input)
are refused naming the missing input_length."""
from __future__ import annotations

import csv
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from core.registry import ParamError
from core.serving.traces import load_trace, parse_bytes, parse_text
from lab.cli import main

T0 = 1_733_011_200_000  # a Unix start in ms (2024-12-01): the arrivals are from the first row


def _baseten(path, **over):
    cols = {"timestamp_start_unix_ms": [T0 + 500, T0, T0 + 2250, T0 + 4001],
            "prompt": ["p1", "p0", "p2", "p3"], "input_tokens": [40, 20, 33, 16], "output_tokens": [5, 0, 7, 3],
            "total_hashes": [[7, 8, 9], [7, 8], [7, 8, 11], [5]], "block_size": [16, 16, 16, 16],
            "provided_session_id": ["s", "s", "t", None], "request_canceled": [0, 1, 0, 0]}
    cols.update(over)
    pq.write_table(pa.table({k: v for k, v in cols.items() if v is not None}), path)
    return path


def test_baseten_rows_arrive_at_their_recorded_starts(tmp_path):
    w = load_trace(_baseten(tmp_path / "b.parquet"))
    assert w.meta["format"] == "baseten" and w.sessions is None
    # (T0+500, T0, T0+2250, T0+4001) ms, less the first T0, in seconds, in arrival order
    assert w.arrival_s.tolist() == [0.0, 0.5, 2.25, 4.001]
    assert w.input_tokens.tolist() == [20, 40, 33, 16]
    assert w.output_tokens.tolist() == [1, 5, 7, 3]  # the cancelled row's 0 raised to 1, as AIPerf sends it
    assert w.meta["output_tokens_raised"] == 1
    # ceil(20/16) = 2, ceil(40/16) = 3, ceil(33/16) = 3, ceil(16/16) = 1 ids; 7, 8, 9, 11, 5 -> 0, 1, 2, 3, 4 (file order)
    assert w.prefix.block_tokens == 16
    assert w.prefix.offsets.tolist() == [0, 2, 5, 8, 9]
    assert w.prefix.ids.tolist() == [0, 1, 0, 1, 2, 0, 1, 3, 4]


def test_baseten_is_sniffed_or_named_and_the_transforms_apply(tmp_path):
    path = _baseten(tmp_path / "trace.bin")
    data = path.read_bytes()
    named = parse_bytes(data, "trace.bin", "baseten", time_scale=2, window=(0.4, 3.0))
    # in [0.4, 3.0) s: 0.5 and 2.25; the window's start becomes 0, then twice as fast
    assert named.arrival_s.tolist() == [(0.5 - 0.4) / 2, (2.25 - 0.4) / 2]
    assert named.input_tokens.tolist() == [40, 33]
    assert parse_bytes(data, "trace.bin").meta["format"] == "baseten"


def test_baseten_whole_floats_and_a_timestamp_column_read_as_ms(tmp_path):
    stamps = pa.array([T0 + 500, T0, T0 + 2250, T0 + 4001], pa.int64()).cast(pa.timestamp("ms"))
    w = load_trace(_baseten(tmp_path / "b.parquet", timestamp_start_unix_ms=stamps,
                            input_tokens=[40.0, 20.0, 33.0, 16.0]))
    assert w.arrival_s.tolist() == [0.0, 0.5, 2.25, 4.001] and w.input_tokens.tolist() == [20, 40, 33, 16]


def test_baseten_hashes_without_a_block_size_are_not_a_prefix(tmp_path):
    w = load_trace(_baseten(tmp_path / "b.parquet", block_size=None))
    assert w.prefix is None and "block_size" in w.meta["hash_ids"]
    w = load_trace(_baseten(tmp_path / "c.parquet", total_hashes=[[7, 8, 9], [7], [7, 8, 11], [5]]))
    assert w.prefix is None and w.meta["hash_ids"].startswith("row 2 has 1 total_hashes for input_tokens 20")
    assert load_trace(_baseten(tmp_path / "d.parquet", total_hashes=None, block_size=None)).prefix is None


@pytest.mark.parametrize("over, said", [
    ({"input_tokens": None}, "no column 'input_tokens' for format baseten"),
    ({"input_tokens": [40, 20, 0, 16]}, "row 3: input_tokens is 0"),
    ({"timestamp_start_unix_ms": [T0, None, T0, T0]}, "row 2: timestamp_start_unix_ms is empty"),
    ({"output_tokens": [5.0, 1.5, 7.0, 3.0]}, "row 2: output_tokens is 1.5; valid: a whole number >= 0"),
    ({"output_tokens": ["5", "0", "7", "3"]}, "column output_tokens holds string"),
    ({"output_tokens": [5, -1, 7, 3]}, "row 2: output_tokens is -1"),
])
def test_baseten_refusals_name_the_row_and_column(tmp_path, over, said):
    with pytest.raises(ParamError) as err:
        load_trace(_baseten(tmp_path / "b.parquet", **over))
    assert err.value.param == "trace" and said in err.value.message and "b.parquet: " in err.value.message


def test_a_broken_parquet_file_is_refused(tmp_path):
    data = _baseten(tmp_path / "b.parquet").read_bytes()
    cut = data[:4] + b"\0" * 64 + data[-8:]  # the magic bytes at both ends, nothing readable between
    with pytest.raises(ParamError, match="not a readable Parquet file"):
        parse_bytes(cut, "cut.parquet")
    with pytest.raises(ParamError, match="no PAR1 at its start and end"):
        parse_bytes(b"timestamp,input_tokens\n", "x.csv", "baseten")
    with pytest.raises(ParamError, match="no PAR1 at its start and end"):  # sniffed by its start, then refused
        parse_bytes(b"PAR1,input_tokens,output_tokens\n0,1,1\n", "x.csv")
    with pytest.raises(ParamError) as err:
        parse_bytes(data, "b.parquet", "baseten", hash_block_tokens=16)
    assert err.value.param == "hash_block_tokens"


def test_a_baseten_trace_replays_with_its_shared_blocks(tmp_path, capsys):
    path = _baseten(tmp_path / "b.parquet")
    assert main(["simulate", "serving", f"trace={path}", "--out", str(tmp_path / "o")]) == 0
    capsys.readouterr()
    with open(tmp_path / "o" / "requests.csv") as f:
        rows = list(csv.DictReader(f))
    assert [float(r["arrival_s"]) for r in rows] == [0.0, 0.5, 2.25, 4.001]
    # the 40-token prompt finds the 20-token one's first block whole (16 tokens); the
    # 33-token one the 40-token one's first two blocks (32 tokens); the last shares nothing
    assert [int(r["cached_tokens"]) for r in rows] == [0, 16, 32, 0]


@pytest.mark.parametrize("line, layout, field", [
    ('{"text": "What is machine learning?", "output_length": 50}', "single_turn", "text"),
    ('{"texts": ["a", "b"], "timestamp": 0}', "single_turn", "texts"),
    ('{"text": "Describe this.", "image": "img1.png"}', "single_turn or random_pool", "text"),
    ('{"session_id": "chat_1", "turns": [{"text": "Hi"}, {"text": "More", "delay": 1000}]}', "multi_turn",
     "turns[].text"),
    ('{"text_input": "Hello world", "output_length": 4}', "mooncake_trace", "text_input"),
    ('{"messages": [{"role": "user", "content": "Hello"}], "output_length": 4}', "mooncake_trace", "messages"),
])
def test_text_only_layouts_name_the_missing_length(line, layout, field):
    with pytest.raises(ParamError) as err:
        parse_text("\n" + line + "\n")
    msg = err.value.message
    assert err.value.param == "trace"
    assert f"line 2: AIPerf's {layout} layout gives the prompt as text ({field})" in msg
    assert "no field 'input_length'" in msg and "valid: input_length" in msg


def test_our_jsonl_with_images_is_not_taken_for_text():
    w = parse_text('{"arrival_s": 0, "input_tokens": 10, "output_tokens": 2, "images": "224x224"}\n')
    assert w.input_tokens.tolist() == [10]


def test_a_later_mooncake_row_with_text_names_the_missing_length():
    text = ('{"timestamp": 0, "input_length": 10, "output_length": 2}\n'
            '{"timestamp": 5, "text_input": "Hello", "output_length": 2}\n')
    with pytest.raises(ParamError, match=r"line 2: AIPerf's mooncake_trace layout gives the prompt as text "
                                         r"\(text_input\).*no field 'input_length'"):
        parse_text(text)


def test_a_large_parquet_file_is_not_read_by_its_head(tmp_path, monkeypatch):
    import core.serving.traces as traces

    path = _baseten(tmp_path / "b.parquet")
    monkeypatch.setattr(traces, "MAX_TRACE_BYTES", path.stat().st_size - 1)
    with pytest.raises(ParamError, match="a Parquet file is read whole: its footer, at its end, says where the rows"):
        load_trace(path, limit=2)


def test_columns_that_decode_to_too_much_are_refused_from_the_footer(tmp_path, monkeypatch):
    from core.serving.traces import baseten

    path = _baseten(tmp_path / "b.parquet")
    monkeypatch.setattr(baseten, "MAX_DECODED_BYTES", 10)
    with pytest.raises(ParamError, match="its columns decode to .* bytes; valid: at most 10"):
        load_trace(path)


NO_TIMESTAMPS = ('{"input_length": 100, "output_length": 10, "hash_ids": [1]}\n'
                 '{"input_length": 200, "output_length": 20, "hash_ids": [1]}\n'
                 '{"input_length": 300, "output_length": 5, "hash_ids": [2]}\n')


def test_mooncake_rows_without_a_timestamp_arrive_at_0_in_file_order():
    # AIPerf's mooncake_trace form for --concurrency / --request-rate runs (no timestamp field)
    w = parse_text(NO_TIMESTAMPS, hash_block_tokens=512)
    assert w.arrival_s.tolist() == [0.0, 0.0, 0.0]
    assert w.input_tokens.tolist() == [100, 200, 300] and w.output_tokens.tolist() == [10, 20, 5]
    assert w.meta["timestamps"].startswith("none: every request arrives at 0 s, in file order")
    assert w.prefix.ids.tolist() == [1, 1, 2]  # the hash ids still feed the prefix cache
    assert "timestamps" not in parse_text('{"timestamp": 5, "input_length": 1, "output_length": 1}\n').meta


def test_timestamps_on_some_rows_only_are_refused():
    with pytest.raises(ParamError, match=r"line 2: timestamp present unlike line 1; valid: timestamp on every line "
                                         r"or on none"):
        parse_text('{"input_length": 10, "output_length": 2}\n{"timestamp": 5, "input_length": 10, "output_length": 2}\n')


def test_without_timestamps_max_concurrency_sends_them_as_aiperfs_concurrency(tmp_path, capsys):
    path = tmp_path / "conc.jsonl"
    path.write_text(NO_TIMESTAMPS)
    assert main(["simulate", "serving", f"trace={path}", "max_concurrency=1", "--out", str(tmp_path / "o")]) == 0
    assert "timestamps: none: every request arrives at 0 s" in capsys.readouterr().out
    with open(tmp_path / "o" / "requests.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["input_tokens"]) for r in rows] == [100, 200, 300]
    # one in flight: each request is sent when the one before it has finished (AIPerf --concurrency 1)
    assert float(rows[0]["arrival_s"]) == 0.0
    assert [r["arrival_s"] for r in rows[1:]] == [r["finish_s"] for r in rows[:-1]]
    assert main(["simulate", "serving", "dataset=trace_lengths", f"lengths={path}", "num_prompts=6",
                 "request_rate=2", "--json"]) == 0  # its lengths resampled at a rate
    assert json.loads(capsys.readouterr().out)["completed"] == 6
