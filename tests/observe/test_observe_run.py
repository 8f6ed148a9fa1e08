"""lab observe against a small endpoint that answers (a word is a token): the result is
vllm bench's, the lab's loader reads it back with exact token counts, and the requests
went as the plan says."""
import json
import math

import numpy as np
import pytest
from endpoints import Endpoint

from core.observe.schedule import plan
from core.serving import traces
from lab.cli import main

VLLM_KEYS = ("date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id", "num_prompts", "request_rate",
             "burstiness", "max_concurrency", "duration", "completed", "failed", "total_input_tokens",
             "total_output_tokens", "request_throughput", "request_goodput", "output_throughput",
             "total_token_throughput", "max_output_tokens_per_s", "max_concurrent_requests",
             *(f"{s}_{m}_ms" for m in ("ttft", "tpot", "itl", "e2el") for s in ("mean", "median", "std", "p99")),
             "input_lens", "output_lens", "ttfts", "itls", "start_times", "generated_texts", "errors")
KEYS = ["num_prompts=12", "random_input_len=40", "random_output_len=6", "random_range_ratio=0.5",
        "random_prefix_len=16", "request_rate=40", "seed=5"]


def observe(url, out, *words):
    return main(["observe", url, "--out", str(out), *words])


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    with Endpoint(token_delay_s=0.002) as ep:
        rc = observe(ep.url, out, *KEYS)
        seen = list(ep.seen)
    return rc, json.loads((out / "result.json").read_text()), out, seen


def test_result_has_vllm_bench_keys_and_exact_counts(measured):
    rc, res, _, _ = measured
    want = plan(dict(k.split("=") for k in KEYS))
    assert rc == 0
    assert [k for k in VLLM_KEYS if k not in res] == []
    assert res["completed"] == 12 and res["failed"] == 0 and res["model_id"] == "tiny-test"
    assert res["input_lens"] == want.input_tokens.tolist()  # the server counted every word sent
    assert res["output_lens"] == want.output_tokens.tolist()
    assert res["total_input_tokens"] == int(want.input_tokens.sum())
    assert [len(x) for x in res["itls"]] == [n - 1 for n in res["output_lens"]]  # one chunk a token
    assert res["request_rate"] == 40.0 and res["burstiness"] == 1.0 and res["max_concurrency"] is None
    assert res["lab_observe"]["scheduled_s"] == want.send_s.tolist()
    keys = res["lab_observe"]["settings"]["keys"]
    assert keys == dict(k.split("=") for k in KEYS)  # the run can be drawn again from its result
    assert plan(keys).input_tokens.tolist() == want.input_tokens.tolist()


def test_loader_reads_it_back(measured):
    _, res, out, _ = measured
    work = traces.load_trace(out / "result.json")
    assert work.input_tokens.tolist() == res["input_lens"]
    assert work.output_tokens.tolist() == res["output_lens"]
    starts = np.array(res["start_times"])
    assert np.allclose(work.arrival_s, starts - starts[0], rtol=0, atol=1e-12)
    assert np.allclose(work.meta["measured"]["ttfts_s"], res["ttfts"], rtol=0, atol=0)
    assert work.meta["arrivals"] == "the requests' start_times"


def test_requests_sent_as_planned(measured):
    _, res, _, seen = measured
    assert all(b["stream"] and b["ignore_eos"] for b in seen)
    assert all(b["stream_options"] == {"include_usage": True, "continuous_usage_stats": True} for b in seen)
    by_len = sorted(b["max_tokens"] for b in seen)
    assert by_len == sorted(res["output_lens"])
    prefixes = {" ".join(b["prompt"].split()[:16]) for b in seen}
    assert len(prefixes) == 1  # one shared prefix text: the server's prefix cache can hit
    lab = res["lab_observe"]
    assert all(s >= d - 1e-3 for s, d in zip(res["start_times"], lab["due_s"]))
    lag = lab["client_lag"]
    assert lag["sent"] == 12 and 0 <= lag["median_ms"] <= lag["p99_ms"] <= lag["max_ms"]


def test_metrics_before_and_after(measured):
    _, res, _, _ = measured
    m = res["lab_observe"]["metrics"]
    assert m["present"]
    assert m["delta"]["vllm:prompt_tokens_total"] == res["total_input_tokens"]
    assert m["delta"]["vllm:generation_tokens_total"] == res["total_output_tokens"]
    assert m["cache_config"]["num_gpu_blocks"] == "64"
    assert res["lab_observe"]["server"]["version"] == "endpoints-test"


def test_requests_csv_has_a_row_a_request(measured):
    _, res, out, _ = measured
    rows = (out / "requests.csv").read_text().splitlines()
    assert rows[0].startswith("index,scheduled_s,due_s,start_s,lag_ms,ttft_ms")
    assert len(rows) == 13
    cells = rows[1].split(",")
    assert int(cells[-3]) == res["output_lens"][0] and cells[-1] == ""


def test_chat_endpoint_and_concurrency_limit(tmp_path, capsys):
    with Endpoint(token_delay_s=0.005) as ep:
        rc = observe(ep.url, tmp_path, "--endpoint", "/v1/chat/completions", "--max-concurrency", "2",
                     "--model", "named", "dataset=fixed", "--num-prompts", "6", "random_input_len=9",
                     "--random-output-len=4")  # vllm bench's spelling of the keys too
        top = ep.counts["max_running"]
        seen = list(ep.seen)
    res = json.loads((tmp_path / "result.json").read_text())
    assert rc == 0 and top <= 2
    assert res["backend"] == "openai-chat" and res["model_id"] == "named" and res["max_concurrency"] == 2
    assert all(b["model"] == "named" and b["max_completion_tokens"] == 4 for b in seen)
    assert res["output_lens"] == [4] * 6 and [len(x) for x in res["itls"]] == [3] * 6  # the role chunk is no token
    lab = res["lab_observe"]
    # the third request waits for a slot: due when the first of the two before it ended
    assert lab["due_s"][2] >= min(lab["end_s"][0], lab["end_s"][1])
    assert "Client lag median/p99/max (ms)" in capsys.readouterr().out


def test_trace_workload_and_no_metrics(tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("TIMESTAMP,ContextTokens,GeneratedTokens\n"
                 "2023-11-16 18:15:46.0,7,2\n2023-11-16 18:15:46.1,11,3\n")
    with Endpoint(metrics=False) as ep:
        rc = observe(ep.url, tmp_path / "o", f"trace={f}")
    res = json.loads((tmp_path / "o" / "result.json").read_text())
    assert rc == 0 and res["input_lens"] == [7, 11] and res["output_lens"] == [2, 3]
    assert res["lab_observe"]["metrics"] == {"present": False}
    assert math.isclose(res["lab_observe"]["scheduled_s"][1], 0.1, abs_tol=1e-9)


def test_chunks_of_several_tokens_are_counted(tmp_path):
    with Endpoint(per_chunk=3) as ep:
        rc = observe(ep.url, tmp_path, "dataset=fixed", "num_prompts=2", "random_input_len=5", "random_output_len=7")
    res = json.loads((tmp_path / "result.json").read_text())
    assert rc == 0 and res["output_lens"] == [7, 7]
    assert [len(x) for x in res["itls"]] == [2, 2]  # three chunks: one ITL per gap, as vllm bench counts
    assert res["lab_observe"]["chunk_tokens"] == [[3, 3, 1], [3, 3, 1]]


def test_chunk_usage_off_and_prompt_seed(tmp_path):
    with Endpoint() as ep:
        words = ["dataset=fixed", "num_prompts=2", "random_input_len=6", "random_output_len=2", "prompt_seed=9"]
        assert observe(ep.url, tmp_path / "a", "--chunk-usage", "off", *words) == 0
        assert observe(ep.url, tmp_path / "b", *words[:-1]) == 0
        assert observe(ep.url, tmp_path / "c", *words[:-1]) == 0
        seen = list(ep.seen)
    assert seen[0]["stream_options"] == {"include_usage": True}
    res = json.loads((tmp_path / "a" / "result.json").read_text())
    assert res["lab_observe"]["chunk_tokens"] == [[], []] and res["output_lens"] == [2, 2]  # usage at the end
    assert res["lab_observe"]["settings"]["prompt_seed"] == 9
    # without prompt_seed each run draws new texts (the lengths stay the workload's)
    assert seen[2]["prompt"] != seen[4]["prompt"] and len(seen[2]["prompt"].split()) == 6


def test_bodies_made_while_sending_are_the_prebuilt_ones(tmp_path, monkeypatch):
    from core.observe import runner

    words = ["num_prompts=5", "random_input_len=20", "random_output_len=2", "random_range_ratio=0.5",
             "random_prefix_len=4", "prompt_seed=3"]
    with Endpoint() as ep:
        assert observe(ep.url, tmp_path / "a", *words) == 0
        monkeypatch.setattr(runner, "PREBUILD_WORDS", 0)  # too many words to hold: each made at its turn
        assert observe(ep.url, tmp_path / "b", *words) == 0
        seen = list(ep.seen)
    assert sorted(b["prompt"] for b in seen[:5]) == sorted(b["prompt"] for b in seen[5:])  # sent at once: any order


def test_sends_keep_their_schedule_while_replies_are_pending(tmp_path):
    # each reply streams for about 0.3 s; a request every 0.05 s: the sends never wait on replies
    with Endpoint(token_delay_s=0.03) as ep:
        rc = observe(ep.url, tmp_path, "dataset=fixed", "num_prompts=10", "random_input_len=4", "random_output_len=10",
                     "request_rate=20", "burstiness=inf")
        top = ep.counts["max_running"]
    res = json.loads((tmp_path / "result.json").read_text())
    lab = res["lab_observe"]
    assert rc == 0 and np.allclose(lab["scheduled_s"], [0.05 * (i + 1) for i in range(10)], rtol=0, atol=1e-12)
    assert lab["due_s"] == lab["scheduled_s"]  # no limit: due at its time
    assert max(s - d for s, d in zip(res["start_times"], lab["due_s"])) < 0.1  # not a reply's 0.3 s late
    assert top >= 3  # several in flight at once
    assert min(res["lab_observe"]["end_s"][:3]) > res["start_times"][3]  # the fourth went before the first ended


def test_a_traces_hash_ids_share_their_text(tmp_path):
    f = tmp_path / "mooncake.jsonl"  # Mooncake's format: one hash id a 512-token block
    f.write_text('{"timestamp": 0, "input_length": 1100, "output_length": 2, "hash_ids": [0, 1, 2]}\n'
                 '{"timestamp": 10, "input_length": 600, "output_length": 2, "hash_ids": [0, 5]}\n')
    with Endpoint() as ep:
        rc = observe(ep.url, tmp_path / "o", f"trace={f}", "format=mooncake")
        seen = list(ep.seen)
    res = json.loads((tmp_path / "o" / "result.json").read_text())
    a, b = (s["prompt"].split() for s in seen)
    assert rc == 0 and res["input_lens"] == [1100, 600] and len(a) == 1100 and len(b) == 600
    assert a[:512] == b[:512] and a[512:600] != b[512:600]  # block 0 is one text; blocks 1 and 5 are not
    assert res["lab_observe"]["scheduled_s"] == [0.0, 0.01]  # Mooncake's timestamps are ms
