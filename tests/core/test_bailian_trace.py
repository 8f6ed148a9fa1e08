"""Bailian usage traces as AIPerf reads them: timestamp in seconds, each row its whole context,
hash_ids one per 16 tokens (64-bit ids renumbered) giving the shared prefix."""
from __future__ import annotations

import csv

import pytest

from core.registry import ParamError
from core.serving.traces import parse_text
from lab.cli import main

BIG = 2**64 - 5  # SipHash ids span 64 bits
TRACE = (
    '{"chat_id": 1, "parent_chat_id": -1, "timestamp": 0.5, "input_length": 40, "output_length": 4, '
    f'"type": "text", "turn": 1, "hash_ids": [{BIG}, 7, 8]}}\n'
    '{"chat_id": 2, "parent_chat_id": 1, "timestamp": 3.25, "input_length": 64, "output_length": 6, '
    f'"type": "text", "turn": 2, "hash_ids": [{BIG}, 7, 9, 10]}}\n'
)


def test_rows_are_requests_with_their_prefix():
    w = parse_text(TRACE)
    assert w.meta["format"] == "bailian" and w.sessions is None
    assert w.arrival_s.tolist() == [0.0, 2.75] and w.input_tokens.tolist() == [40, 64]
    assert w.output_tokens.tolist() == [4, 6]
    ids, offsets = w.prefix.ids, w.prefix.offsets
    assert w.prefix.block_tokens == 16 and offsets.tolist() == [0, 3, 7] and ids.tolist() == [0, 1, 2, 0, 1, 3, 4]  # renumbered densely


def test_the_replay_reuses_the_shared_blocks(tmp_path, capsys):
    path = tmp_path / "bailian.jsonl"
    path.write_text(TRACE)
    assert main(["simulate", "serving", f"trace={path}", "--out", str(tmp_path / "o")]) == 0
    capsys.readouterr()
    with open(tmp_path / "o" / "requests.csv") as f:
        rows = list(csv.DictReader(f))
    assert [float(r["arrival_s"]) for r in rows] == [0.0, 2.75]  # from the first request, as every trace
    assert int(rows[1]["cached_tokens"]) == 32  # two shared blocks of 16 tokens


def test_counts_that_are_not_one_per_16_tokens_drop_the_prefix():
    w = parse_text(TRACE.replace("[18446744073709551611, 7, 8]", "[1, 2]"))
    assert w.prefix is None and "2 hash_ids for input_length 40" in w.meta["hash_ids"]


@pytest.mark.parametrize("old, new, said", [
    ('"turn": 2,', '"turn": 2, "x": 1,', "line 2: unknown field 'x' for format bailian"),
    ('"output_length": 6, ', '', "line 2: no field 'output_length'"),
    ('"timestamp": 3.25', '"timestamp": "3.25"', "line 2: timestamp is '3.25'"),
    ('"input_length": 64', '"input_length": 0', "input_length"),
])
def test_bad_rows_name_the_line(old, new, said):
    with pytest.raises(ParamError) as err:
        parse_text(TRACE.replace(old, new), fmt="bailian")
    assert said in err.value.message, err.value.message
