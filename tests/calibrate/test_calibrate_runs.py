"""core/calibrate/runs.py: measured runs read once, aligned with the lab's workload, their
settings from lab observe's block; the refusals name the file and the missing key."""
from __future__ import annotations

import json

import numpy as np
import pytest

from core.calibrate.runs import load_runs
from core.registry import ParamError


def result(**extra):
    obj = {"backend": "vllm", "model_id": "tiny", "num_prompts": 3, "request_rate": "inf", "max_concurrency": 2,
           "input_lens": [10, 20, 30], "output_lens": [3, 1, 2], "ttfts": [0.1, 0.2, 0.3],
           "itls": [[0.01, 0.02], [], [0.05]], "errors": ["", "", ""]}
    obj.update(extra)
    return obj


def write(tmp_path, name, obj):
    path = tmp_path / name
    path.write_text(json.dumps(obj))
    return str(path)


def test_a_run_by_hand(tmp_path):
    (run,) = load_runs([write(tmp_path, "a.json", result())])
    assert run.label == "a" and run.model_id == "tiny" and len(run) == 3
    assert run.input_tokens.tolist() == [10, 20, 30] and run.output_tokens.tolist() == [3, 1, 2]
    assert run.ttft_s.tolist() == [0.1, 0.2, 0.3]
    assert run.e2e_s.tolist() == [0.1 + (0.01 + 0.02), 0.2, 0.3 + 0.05]
    tpot = run.tpot_s  # Σ gaps / (output − 1); none for one token
    assert tpot[0] == pytest.approx(0.015) and np.isnan(tpot[1]) and tpot[2] == pytest.approx(0.05)
    assert run.arrival_s.tolist() == [0.0, 0.0, 0.0]  # request_rate inf: all sent at 0
    assert run.settings == {"max_concurrency": 2, "request_rate": "inf"}
    assert len(run.sha256) == 64 and run.engine is None


def test_failed_requests_left_out_and_lab_observe_settings_read(tmp_path):
    obj = result(errors=["", "HTTP 500", ""], start_times=[0.0, 0.5, 1.25], lab_observe={
        "server": {"version": "0.32.0+cpu"}, "prefix_tokens": 0,
        "metrics": {"present": True, "delta": {"vllm:num_preemptions_total": 4.0,
                                                "vllm:prefix_cache_hits_total": 64.0,
                                                "vllm:prefix_cache_queries_total": 128.0},
                    "prefix_cache_hit_rate": 0.5,
                    "cache_config": {"block_size": "32", "num_gpu_blocks": "40", "enable_prefix_caching": "True"}}})
    (run,) = load_runs([write(tmp_path, "b.json", obj)])
    assert run.input_tokens.tolist() == [10, 30] and run.ttft_s.tolist() == [0.1, 0.3]
    assert run.arrival_s.tolist() == [0.0, 1.25]  # start_times: lab observe's send times
    assert run.engine == "vLLM 0.32.0+cpu"
    s = run.settings
    assert (s["block_size"], s["num_gpu_blocks"], s["enable_prefix_caching"]) == (32, 40, True)
    assert (s["num_preemptions"], s["prefix_cache_hits"], s["prefix_cache_queries"]) == (4, 64, 128)
    assert s["prefix_cache_hit_rate"] == 0.5


def test_a_shared_prefix_comes_as_prefix_blocks(tmp_path):
    obj = result(input_lens=[70, 64, 100], lab_observe={"prefix_tokens": 64, "metrics": {
        "cache_config": {"block_size": "32", "num_gpu_blocks": "40"}}})
    (run,) = load_runs([write(tmp_path, "p.json", obj)])
    prefix = run.workload.prefix
    assert prefix.block_tokens == 32
    # 70 tokens: 3 blocks (the prefix's 2 shared); 64: the 2 shared; 100: 4 (the 2 shared, 2 own)
    assert prefix.offsets.tolist() == [0, 3, 5, 9]
    ids = prefix.ids.tolist()
    assert ids[0:2] == ids[3:5] == ids[5:7]
    assert len({ids[2], ids[7], ids[8]} - set(ids[0:2])) == 3
    assert run.settings["prefix_tokens"] == 64


@pytest.mark.parametrize("missing", ["input_lens", "ttfts", "itls"])
def test_not_a_vllm_bench_result_names_the_missing_key(tmp_path, missing):
    obj = result()
    del obj[missing]
    with pytest.raises(ParamError) as err:
        load_runs([write(tmp_path, "x.json", obj)])
    assert err.value.param == "runs" and "x.json" in err.value.message and repr(missing) in err.value.message


def test_not_json_and_not_an_object_and_no_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    with pytest.raises(ParamError, match="bad.json: not JSON"):
        load_runs([str(bad)])
    with pytest.raises(ParamError, match="a JSON list"):
        load_runs([write(tmp_path, "list.json", [1, 2])])
    with pytest.raises(ParamError, match="no such file"):
        load_runs([str(tmp_path / "absent.json")])
    with pytest.raises(ParamError, match="no result files"):
        load_runs([])


def test_runs_of_different_models_refused(tmp_path):
    a = write(tmp_path, "a.json", result())
    b = write(tmp_path, "b.json", result(model_id="other"))
    with pytest.raises(ParamError) as err:
        load_runs([a, b])
    assert "different models" in err.value.message and "a.json: tiny" in err.value.message


def test_the_same_name_in_two_folders_is_labelled_by_path(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    runs = load_runs([write(tmp_path / "x", "result.json", result()), write(tmp_path / "y", "result.json", result())])
    assert runs[0].label != runs[1].label
