"""The measured code-agent runs of §3.2.3 and their arithmetic (core/agents/trajectory.py)."""
import os

import pytest

from core.agents import trajectory as at
from core.registry import ParamError
from core.units import KiB
from core.verify import verify_calculator

HEADER = "round,input_tokens,cached_tokens,output_tokens,model_wall_s,tool_wall_s\n"


@pytest.mark.parametrize("calc", at.CALCULATORS, ids=lambda c: c.name)
def test_every_book_value_matches(calc):
    rows = verify_calculator(calc)
    assert rows and all(r.ok for r in rows), [(r.output, r.computed, r.book_value) for r in rows if not r.ok]


def test_prefix_reuse_of_the_four_rounds_by_hand():
    # Round 2 of thinking on: I = 1443, K = 1392, so 51 rows; pairs 1443·1444/2 − 1392·1393/2.
    out = at.ROUND.run({"round": 2})
    n_linear = 36 * (4096 * 4096 * 2 + 2 * 4096 * 1024 + 3 * 4096 * 12288)
    head = 2 * 4096 * 151936
    pairs = 1443 * 1444 // 2 - 1392 * 1393 // 2
    assert out["cached_prefill_flops"] == 2 * n_linear * 51 + 4 * 4096 * 36 * pairs + head
    assert out["cold_prefill_flops"] == 2 * n_linear * 1443 + 4 * 4096 * 36 * (1443 * 1444 // 2) + head
    # KV held after the call: P + G − 1 positions at 144 KiB each, for its 3.335 ms tool run.
    assert out["kv_bytes"] == (1443 + 1016 - 1) * 144 * KiB
    assert out["tool_wait_kv_byte_s"] == pytest.approx((1443 + 1016 - 1) * 144 * KiB * 0.003335)


def test_totals_add_up_and_match_the_summary():
    on = at.TRAJECTORY.run()
    assert on["uncached_tokens"] == on["input_tokens"] - on["cached_tokens"] == 817
    assert on["elapsed_s"] == pytest.approx(on["model_s"] + on["tool_s"] + on["other_s"])
    t = at.load_trajectory("thinking_on")
    assert on["model_s"] == pytest.approx(t.summary["model_s"], abs=1e-6)  # rows and summary agree
    off = at.TRAJECTORY.run({"trace": "thinking_off"})
    assert off["input_tokens"] == 19556 and off["cached_tokens"] == 16304
    assert off["other_s"] == pytest.approx(0.170, abs=5e-4)
    # The largest context: thinking off's last round 3,136 + 20 − 1 positions.
    assert off["max_round_kv_bytes"] == (3136 + 20 - 1) * 144 * KiB


def test_a_csv_file_gives_the_same_figures_without_elapsed(tmp_path):
    src = at.catalog.data_path("agent_traces/thinking_on.csv").read_text(encoding="utf-8")
    path = tmp_path / "run.csv"
    path.write_text(src, encoding="utf-8")
    out = at.TRAJECTORY.run({"trace": str(path)})
    book = at.TRAJECTORY.run()
    assert out["cold_prefill_flops"] == book["cold_prefill_flops"] and out["rounds"] == 4
    assert out["elapsed_s"] is None and out["other_s"] is None and out["checks_passed"] is None
    assert at.TRAJECTORY.format_output("elapsed_s", out["elapsed_s"]) == "—"


def _refused(tmp_path, text: str) -> str:
    path = tmp_path / "bad.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ParamError) as err:
        at.TRAJECTORY.run({"trace": str(path)})
    assert err.value.param == "trace"
    return err.value.message


@pytest.mark.parametrize("rows, words", [
    ("0,100,0,5,1.0,0.1\n1,200,300,5,1.0,0.1\n", ("row 2", "cached_tokens", "0..input_tokens − 1 = 199")),
    ("0,100,0,5,1.0,abc\n", ("row 1", "tool_wall_s", "'abc'")),
    ("0,100,0,5,-1,0\n", ("row 1", "model_wall_s", "[0, 1e+07]")),
    ("0,100.5,0,5,1,0\n", ("row 1", "input_tokens", "whole number")),
    ("0,100,0,0,1,0\n", ("row 1", "output_tokens", "at least 1")),
    ("0,100,0,5,1\n", ("row 1", "fields")),
    ("0,100,0,5,1,0,7\n", ("row 1", "fields")),
    ("", ("no rounds",)),
])
def test_bad_rows_are_refused_naming_row_and_field(tmp_path, rows, words):
    message = _refused(tmp_path, HEADER + rows)
    assert "bad.csv" in message
    for word in words:
        assert word in message


def test_missing_column_and_non_utf8_are_refused(tmp_path):
    assert "no column tool_wall_s" in _refused(tmp_path, "input_tokens,cached_tokens,output_tokens,model_wall_s\n1,0,1,1\n")
    path = tmp_path / "latin.csv"
    path.write_bytes(HEADER.encode() + b"0,1,0,1,1,\xff\n")
    with pytest.raises(ParamError, match="not UTF-8"):
        at.TRAJECTORY.run({"trace": str(path)})


def test_files_that_are_not_traces_are_refused_without_reading(tmp_path):
    with pytest.raises(ParamError, match="no such file"):
        at.TRAJECTORY.run({"trace": str(tmp_path / "nope.csv")})
    with pytest.raises(ParamError, match="a directory"):
        at.TRAJECTORY.run({"trace": str(tmp_path)})
    with pytest.raises(ParamError, match="a device"):
        at.TRAJECTORY.run({"trace": "/dev/zero"})
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    with pytest.raises(ParamError, match="a fifo"):  # refused, never blocks on the read
        at.TRAJECTORY.run({"trace": str(fifo)})
    big = tmp_path / "big.csv"
    big.write_text(HEADER + "0,100,0,5,1.0,0.1\n" * (at.MAX_TRACE_BYTES // 18 + 1), encoding="utf-8")
    with pytest.raises(ParamError, match="larger than"):
        at.TRAJECTORY.run({"trace": str(big)})


def test_a_changed_file_is_read_again(tmp_path):
    path = tmp_path / "run.csv"
    path.write_text(HEADER + "0,100,0,5,1.0,0.1\n", encoding="utf-8")
    assert at.TRAJECTORY.run({"trace": str(path)})["rounds"] == 1
    path.write_text(HEADER + "0,100,0,5,1.0,0.1\n1,200,96,5,1.0,0.1\n", encoding="utf-8")
    os.utime(path, ns=(1, 10**18))
    assert at.TRAJECTORY.run({"trace": str(path)})["cached_tokens"] == 96


def test_round_past_the_end_is_refused_with_the_count():
    with pytest.raises(ParamError) as err:
        at.ROUND.resolve({"round": 5})
    assert err.value.param == "round" and "1..4" in err.value.message
    assert at.ROUND.run({"round": 4})["input_tokens"] == 1992  # the last call
