import pytest

from core.agents import calculator as agents
from core.registry import ParamError
from core.units import GiB


def test_edit_in_the_middle_keeps_only_the_prefix_before_it():
    out = agents.EDIT.run()
    assert out["reusable_prefix_tokens"] == 500 and out["recompute_tokens"] == 1500


def test_append_keeps_the_whole_prefix():
    out = agents.EDIT.run({"edit_position": 2001, "appended_tokens": 100})
    assert out["reusable_prefix_tokens"] == 2000 and out["recompute_tokens"] == 100


def test_edit_past_the_end_is_refused_with_its_range():
    with pytest.raises(ParamError) as err:
        agents.EDIT.run({"edit_position": 2500})
    assert err.value.param == "edit_position" and "[1, 2001]" in str(err.value)


def test_parallel_tools_shorten_the_path_not_the_work():
    out = agents.CRITICAL_PATH.run()
    assert (out["serial_s"], out["parallel_s"], out["tool_work_s"]) == (21, 15, 16)
    assert out["parallel_state_byte_s"] == 10 * GiB


def test_amdahl_caps_the_gain_by_the_share():
    fast = agents.AMDAHL.run({"speedup": 1e9})
    assert fast["saved_fraction"] == pytest.approx(36.375312 / 76.5102791, rel=1e-5)  # the first round's share
    tools = agents.AMDAHL.run({"part_fraction": 0.078 / 76.510, "speedup": 2})
    assert tools["saved_fraction"] < 0.001  # tools were 0.078 s of 76.5 s


def test_amdahl_default_is_the_measured_first_round_as_the_book_rounds_it():
    # 40.17 s came from the rounded share 47.5%; the trace's 36.375 s of 76.510 s gives 40.13 s.
    out = agents.AMDAHL.run()
    assert round(out["rest_s"], 1) == 40.1 and round(out["saved_fraction"] * 100, 1) == 23.8
    assert agents.AMDAHL.format_output("rest_s", out["rest_s"]) == "40.13 s"


def test_branches_share_their_prefix():
    out = agents.BRANCHES.run({"shared_prefix_tokens": 1000, "branch_tokens": "10,20", "kv_bytes_per_token": 2})
    assert out["state_bytes"] == 2 * 1030 and out["unshared_state_bytes"] == 2 * 2030


def test_amdahl_of_a_tiny_whole_task_part_divides_by_nothing():
    out = agents.AMDAHL.run({"total_s": 5e-324, "part_fraction": 1.0})
    assert out["overall_speedup"] == pytest.approx(2.0) and out["saved_fraction"] == pytest.approx(0.5)
    assert out["speedup_limit"] is None
