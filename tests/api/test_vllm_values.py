"""vLLM's --kv-cache-dtype values (bfloat16, fp8_e4m3, fp8_e5m2) are ours under its names: the
same bytes a value, so the same replay as bf16 / fp8; and `vllm bench serve`'s keys alone
(--num-prompts, --request-rate) mean its default dataset, random; through the real parser."""
from __future__ import annotations

import json

from lab.cli import main

RUN = ["simulate", "serving", "model=qwen3-8b", "hardware=h100-sxm", "dataset=random", "num_prompts=10",
       "random_input_len=512", "random_output_len=16", "--json"]


def _summary(capsys, *argv):
    assert main([*RUN, *argv]) == 0, argv
    report = json.loads(capsys.readouterr().out)
    report.pop("wall_ms", None)
    report["deployment"].pop("kv_cache_dtype")  # the name as given (checked below)
    return report


def test_vllms_kv_cache_dtype_names_are_ours(capsys):
    fp8 = _summary(capsys, "kv_cache_dtype=fp8")
    assert _summary(capsys, "--kv-cache-dtype", "fp8_e4m3") == fp8
    assert _summary(capsys, "--kv-cache-dtype", "fp8_e5m2") == fp8
    bf16 = _summary(capsys, "kv_cache_dtype=bf16")
    assert _summary(capsys, "--kv-cache-dtype", "bfloat16") == bf16
    assert fp8["kv_pool_blocks"] > bf16["kv_pool_blocks"]
    assert main([*RUN, "--kv-cache-dtype", "fp8_e4m3"]) == 0
    assert json.loads(capsys.readouterr().out)["deployment"]["kv_cache_dtype"] == "fp8_e4m3"  # one byte a value: more blocks in the same memory


def test_bench_keys_alone_mean_vllm_bench_serves_default_dataset(capsys):
    def run(*argv):
        assert main(["simulate", "serving", *argv, "--json"]) == 0, argv
        report = json.loads(capsys.readouterr().out)
        report.pop("wall_ms", None)
        report.pop("out", None)
        return report

    alone = run("--num-prompts", "12", "--request-rate", "4", "--random-input-len", "128")
    assert alone == run("--dataset-name", "random", "--num-prompts", "12", "--request-rate", "4",
                        "--random-input-len", "128")
    assert alone["source"] == "dataset random" and alone["requests"] == 12
    assert alone["total_input_tokens"] == 12 * 128  # random_range_ratio 0: every prompt its mean
    assert main(["simulate", "serving", "lengths=x.csv"]) == 2
    assert "lengths: applies to a vllm bench workload; valid: with dataset=trace_lengths" in capsys.readouterr().err
