"""AIPerf's multi-turn Mooncake form (session_id, delay ms after the previous turn's end,
timestamp ms, hash_ids) read as sessions: prompts and arrivals by hand arithmetic."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from core.registry import ParamError
from core.serving.traces import load_trace, parse_text
from lab.cli import main

# a: 0 ms (100 new, 10 out), then 2,000 ms after its answer (30 new, 5 out), then at 10 s (7 new, 3 out);
# b: 500 ms (200 new, 20 out), then as soon as its answer ends (40 new, 8 out). A blank line counts.
TRACE = """{"session_id": "a", "timestamp": 0, "input_length": 100, "output_length": 10, "hash_ids": [0]}
{"session_id": "b", "timestamp": 500, "input_length": 200, "output_length": 20}

{"session_id": "a", "delay": 2000, "input_length": 30, "output_length": 5}
{"session_id": "b", "input_length": 40, "output_length": 8}
{"session_id": "a", "timestamp": 10000, "input_length": 7, "output_length": 3}
"""


def test_turns_keep_their_history_and_arrive_after_the_delay():
    w = parse_text(TRACE)
    assert w.meta["format"] == "mooncake" and w.meta["sessions"] == 2 and w.sessions is not None
    by_prompt = {int(p): (float(t), int(o)) for p, t, o in zip(w.input_tokens, w.arrival_s, w.output_tokens)}
    # prompt = the history (earlier prompts and answers) + the turn's own tokens
    assert by_prompt == {100: (0.0, 10), 200: (0.5, 20), 100 + 10 + 30: (2.0, 5), 200 + 20 + 40: (0.5, 8),
                         140 + 5 + 7: (10.0, 3)}
    think = {int(p): t for p, t in zip(w.input_tokens, w.sessions.think_time_s)}
    assert think[140] == 2.0 and think[260] == 0.0 and np.isnan(think[152]) and np.isnan(think[100])


def test_the_replay_sends_a_turn_delay_after_the_previous_answer(tmp_path, capsys):
    path = tmp_path / "aiperf.jsonl"
    path.write_text(TRACE)
    assert main(["simulate", "serving", f"trace={path}", "--out", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    with open(tmp_path / "out" / "requests.csv") as f:
        rows = {int(r["input_tokens"]): r for r in csv.DictReader(f)}
    finish = {p: float(r["finish_s"]) for p, r in rows.items()}
    arrive = {p: float(r["arrival_s"]) for p, r in rows.items()}
    assert arrive[100] == 0.0 and arrive[200] == 0.5 and arrive[152] == 10.0  # timestamps
    assert arrive[140] == pytest.approx(finish[100] + 2.0, abs=2e-6)  # delay 2,000 ms after a's first answer
    assert arrive[260] == pytest.approx(finish[200], abs=2e-6)  # no delay: at b's first answer's end
    assert int(rows[140]["cached_tokens"]) > 0  # a's history is served from the prefix cache


def test_format_mooncake_given_and_rows_without_a_session(tmp_path):
    text = TRACE + '{"timestamp": 3000, "input_length": 9, "output_length": 4}\n'
    path = tmp_path / "t.jsonl"
    path.write_text(text)
    w = load_trace(path, format="mooncake")
    assert w.meta["sessions"] == 3  # a row without session_id is a conversation of its own
    assert (3.0, 9) in zip(w.arrival_s.tolist(), w.input_tokens.tolist())


@pytest.mark.parametrize("line, said", [
    ('{"session_id": "c", "delay": 100, "input_length": 5, "output_length": 1}', "line 7: session 'c''s first turn has a delay"),
    ('{"session_id": "a", "delay": 1, "timestamp": 5, "input_length": 5, "output_length": 1}', "line 7: both timestamp and delay"),
    ('{"session_id": "a", "text_input": "hi", "output_length": 1}', "line 7: unknown field 'text_input' (exact text needs a tokenizer"),
    ('{"session_id": "a", "input_length": 5}', "line 7: no field 'output_length'"),
    ('{"session_id": "a", "delay": -1, "input_length": 5, "output_length": 1}', "line 7: delay is -1; valid: milliseconds"),
    ('{"session_id": "a", "input_length": 5.5, "output_length": 1}', "line 7: input_length is 5.5"),
    ('{"session_id": "a", "input_length": 5, "output_length": 1, "hash_ids": [1, -2]}', "line 7: hash_ids is"),
    ('{"session_id": "a", "timestamp": 1000, "input_length": 5, "output_length": 1}', "before the session's previous turn"),
])
def test_bad_rows_are_refused_naming_the_line(line, said):
    with pytest.raises(ParamError) as err:
        parse_text(TRACE + line + "\n")
    assert err.value.param == "trace" and said in err.value.message, err.value.message


def test_a_plain_mooncake_trace_is_read_as_before():
    w = parse_text('{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [0, 1]}\n'
                   '{"timestamp": 1000, "input_length": 600, "output_length": 5, "hash_ids": [0, 2]}\n')
    assert w.sessions is None and w.meta["format"] == "mooncake" and w.prefix is not None
    assert json.dumps(w.arrival_s.tolist()) == "[0.0, 1.0]"
