"""/metrics text read by hand: sums over label sets, the cache config's labels, deltas."""
from core.observe import prom

BEFORE = """# HELP vllm:num_preemptions_total Cumulative number of preemption.
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total{engine="0",model_name="m"} 3.0
vllm:num_preemptions_total{engine="1",model_name="m"} 1.0
vllm:prefix_cache_hits_total{engine="0",model_name="m"} 100.0
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 400.0
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.0
vllm:cache_config_info{block_size="32",enable_prefix_caching="True",num_gpu_blocks="64",note="a \\"q\\""} 1.0
vllm:unrelated_total 9
"""
AFTER = BEFORE.replace("} 3.0", "} 10.0").replace("} 100.0", "} 400.0").replace("} 400.0\nvllm:kv", "} 800.0\nvllm:kv")


def test_parse_sums_label_sets_and_reads_the_config():
    got = prom.parse(BEFORE)
    assert got["values"]["vllm:num_preemptions_total"] == 4.0
    assert "vllm:unrelated_total" not in got["values"]
    assert got["cache_config"] == {"block_size": "32", "enable_prefix_caching": "True", "num_gpu_blocks": "64",
                                   "note": 'a "q"'}


def test_summary_deltas_and_hit_rate():
    s = prom.summary(prom.parse(BEFORE), prom.parse(AFTER))
    assert s["delta"]["vllm:num_preemptions_total"] == 7.0  # (10 + 1) - (3 + 1)
    assert s["delta"]["vllm:prefix_cache_hits_total"] == 300.0
    assert s["delta"]["vllm:prefix_cache_queries_total"] == 400.0
    assert s["prefix_cache_hit_rate"] == 0.75
    assert prom.summary(None, None) == {"present": False}


def test_old_gauge_name_is_read_as_the_new():
    got = prom.parse('vllm:gpu_cache_usage_perc{model_name="m"} 0.25\n')
    assert got["values"] == {"vllm:kv_cache_usage_perc": 0.25}
    peaks = prom.peak({}, got)
    assert peaks == {"vllm:kv_cache_usage_perc": 0.25, "polls": 1}
