"""Transforms (window, limit, time_scale) by hand arithmetic, progress and cancel while loading."""
import json
from pathlib import Path

import numpy as np
import pytest

from core.cancel import Cancelled, CancelToken
from core.serving import traces

DATA = Path(__file__).resolve().parents[1] / "data" / "traces"


@pytest.fixture
def ten(tmp_path):
    path = tmp_path / "ten.csv"
    path.write_text("arrival_s,input_tokens,output_tokens\n" + "".join(f"{100 + t},{10 + t},2\n" for t in range(10)))
    return path


def test_window_limit_and_time_scale_in_that_order(ten):
    # Rebased: 0..9 s. Window [2, 5) keeps 2, 3, 4 and shifts them to 0, 1, 2; limit 2 keeps
    # the first two; time_scale 2 halves the times (twice as fast).
    work = traces.load_trace(ten, window=(2, 5), limit=2, time_scale=2)
    assert list(work.arrival_s) == [0, 0.5]
    assert list(work.input_tokens) == [12, 13]
    assert work.meta["dropped"] == {"outside window": 7, "beyond limit": 1}
    assert work.meta["rows"] == 10 and work.meta["requests"] == 2
    assert work.meta["window"] == (2.0, 5.0) and work.meta["limit"] == 2 and work.meta["time_scale"] == 2.0


def test_time_scale_below_one_slows_arrivals(ten):
    work = traces.load_trace(ten, time_scale=0.5)
    assert work.arrival_s[-1] == 18.0 and work.meta["span_s"] == 18.0


def test_window_keeps_the_prefix_blocks_of_its_requests():
    path = DATA / "mooncake_synthetic_head.jsonl"
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    full = traces.load_trace(path)
    start = float(full.arrival_s[2])
    work = traces.load_trace(path, window=(start, 1e9), limit=3)
    assert len(work) == 3
    for k in range(3):
        got = work.prefix.ids[work.prefix.offsets[k]:work.prefix.offsets[k + 1]]
        want = full.prefix.ids[full.prefix.offsets[k + 2]:full.prefix.offsets[k + 3]]
        assert np.array_equal(got, want)
    assert list(work.input_tokens) == [x["input_length"] for x in lines[2:5]]


def test_sessions_are_kept_whole():
    path = DATA / "sessions_small.jsonl"
    # agent-7 starts at 1.5 s: a window from 1 s keeps its three turns, not chat-1's later ones.
    work = traces.load_trace(path, window=(1, 100))
    assert list(work.sessions.turn) == [0, 1, 2] and list(work.arrival_s) == [0.5, 3.5, 5.5]
    # limit 4 rows: chat-1 (3 turns) fits, agent-7 (3 more) does not.
    work = traces.load_trace(path, limit=4)
    assert len(work) == 3 and set(work.sessions.session) == {0}
    # time_scale divides arrivals and think times, not tool waits.
    fast = traces.load_trace(path, time_scale=2)
    assert fast.arrival_s[-1] == 15.0 and np.nanmax(fast.sessions.think_time_s) == 2.5
    assert fast.sessions.tool_wait_s.max() == 3.0


def test_progress_is_monotone_and_bounded(tmp_path):
    path = tmp_path / "big.csv"
    n = 200_000
    rows = np.column_stack([np.arange(n), np.full(n, 100), np.full(n, 10)])
    path.write_text("arrival_s,input_tokens,output_tokens\n" + "\n".join(f"{a},{b},{c}" for a, b, c in rows.tolist()))
    seen = []
    work = traces.load_trace(path, progress=seen.append)
    assert len(work) == n
    assert seen == sorted(seen) and seen[-1] == 1.0 and 2 <= len(seen) <= 50


def test_cancel_between_blocks(tmp_path):
    path = tmp_path / "big.csv"
    path.write_text("arrival_s,input_tokens,output_tokens\n" + "1,2,3\n" * 150_000)
    token = CancelToken()
    seen = []

    def progress(fraction):
        seen.append(fraction)
        token.cancel()  # after the first block

    with pytest.raises(Cancelled):
        traces.load_trace(path, progress=progress, cancel=token)
    assert len(seen) == 1 and seen[0] < 1.0


def test_request_limit_names_the_row_after_drops():
    # BurstGPT row 4 (2069 + 365 = 2434 tokens) is the first over 2,000; dropped rows are not checked.
    with pytest.raises(Exception, match=r"row 4: input_tokens \+ output_tokens = 2,434 tokens; valid: at most 2,000"):
        traces.load_trace(DATA / "burstgpt_schema.csv", 2000)


def test_sessions_dropped_counts_add_up():
    work = traces.load_trace(DATA / "sessions_small.jsonl", window=(0, 1), limit=2)
    # chat-1 starts in [0, 1) s (3 turns); agent-7 does not (3 outside); chat-1 is over the limit
    # of 2 rows but the first session is always kept.
    assert len(work) == 3 and work.meta["dropped"] == {"outside window": 3}


def test_the_engine_limit_applies_to_the_requests_kept(ten):
    """A request too large for the pool is refused naming its row, unless limit= or window=
    leave it out (data rows 1..10 hold 12..21 tokens)."""
    with pytest.raises(traces.ParamError, match=r"row 10: input_tokens \+ output_tokens = 21 tokens; valid: at most 20"):
        traces.load_trace(ten, 20)
    assert traces.load_trace(ten, 20, limit=9).meta["requests"] == 9
    assert traces.load_trace(ten, 20, window=(0, 9)).meta["requests"] == 9
    with pytest.raises(traces.ParamError, match="row 10"):
        traces.load_trace(ten, 20, window=(5, 10))  # arrivals rebased to 0..9 s: the last one is in
