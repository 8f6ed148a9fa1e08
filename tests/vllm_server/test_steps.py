"""core/observe/steps.py on hand-written log lines in vLLM 0.32's format
(vllm/v1/metrics/loggers.py _log_iteration_details), with the arithmetic by hand."""
from __future__ import annotations

import numpy as np
import pytest

from core.observe.steps import compare_steps, parse_steps, predicted_ms, step_inputs
from core.serving.step_basis import BasisCost
from core.serving.step_cost import StepCost

LOG = """\
(EngineCore pid=2) INFO 12-01 19:35:00.000 [kv_cache_utils.py:2327] CPU KV cache size: 10,000 tokens, Maximum concurrency for 4,096 tokens per request: 2.44x
(APIServer pid=1) INFO 12-01 19:35:21.412 [loggers.py:199] Engine 000: Iteration(7): 2 context requests, 256 context tokens, 3 generation requests, 3 generation tokens, iteration elapsed time: 41.27 ms, CPU KV cache usage: 5.0%
(APIServer pid=1) INFO 12-01 19:35:21.500 [metrics.py:1] Avg prompt throughput: 10.0 tokens/s
(APIServer pid=1) INFO 12-01 19:35:22 [loggers.py:199] Engine 000: Iteration(8): 0 context requests, 0 context tokens, 4 generation requests, 4 generation tokens, iteration elapsed time: 5.00 ms, CPU KV cache usage: 2.0%
(APIServer pid=1) INFO 12-01 19:35:22 [loggers.py:199] Engine 000: Iteration(9): 0 context requests, 0 context tokens, 0 generation requests, 0 generation tokens, iteration elapsed time: 0.00 ms (dummy), CPU KV cache usage: 0.0%
Engine 001: Iteration(3): 1 context requests, 10 context tokens, 0 generation requests, 0 generation tokens, iteration elapsed time: 1.50 ms, GPU KV cache usage: 0.5%, encoder inputs: 1, encoder output embeddings: 64
"""


def test_lines_become_records():
    s = parse_steps(LOG)
    assert len(s) == 3  # the dummy step and the other lines left out
    assert s.pool_tokens == 10_000
    assert s.index.tolist() == [7, 8, 3] and s.engine.tolist() == [0, 0, 1]
    assert s.ctx_requests.tolist() == [2, 0, 1] and s.ctx_tokens.tolist() == [256, 0, 10]
    assert s.gen_requests.tolist() == [3, 4, 0] and s.gen_tokens.tolist() == [3, 4, 0]
    assert s.elapsed_ms.tolist() == [41.27, 5.0, 1.5]
    assert s.kv_usage.tolist() == [0.05, 0.02, 0.005]
    assert s.clock_s[0] == pytest.approx(19 * 3600 + 35 * 60 + 21.412)
    assert s.clock_s[1] == 19 * 3600 + 35 * 60 + 22  # vLLM's own format: whole seconds
    assert np.isnan(s.clock_s[2])  # a line without the logger's prefix
    assert s.kinds.tolist() == ["mixed", "decode", "prefill"]
    assert s.rows.tolist() == [259, 4, 10]
    assert len(parse_steps("no steps here\n")) == 0


def test_the_period_between_steps_by_hand():
    lines = LOG.splitlines()
    s = parse_steps("\n".join([lines[1], lines[1].replace("21.412", "21.419").replace("(7)", "(8)"),
                               lines[1].replace("21.412", "21.430").replace("(7)", "(10)")]))
    # 7 -> 8 back to back: 7 ms; 8 -> 10: a step not in the records between them
    assert np.isnan(s.period_ms[0]) and s.period_ms[1] == pytest.approx(7.0) and np.isnan(s.period_ms[2])
    assert np.isnan(parse_steps(LOG).period_ms[1:]).tolist() == [False, True]  # 7 -> 8, then engine 001


def test_the_model_inputs_by_hand():
    x = step_inputs(parse_steps(LOG))  # the pool from the log: 10,000 tokens
    # step 7: 2 prompts of 128 tokens, 3 decodes; 5% of the pool in use = 500 tokens, of
    # which the prompts' 256, so the decodes' contexts sum to 244
    assert x.rows[0] == 259 and x.logit_rows[0] == 5 and x.seqs[0] == 5 and x.new[0] == 2
    assert x.kv_tokens[0] == pytest.approx(244 + 256)
    assert x.pairs[0] == pytest.approx(244 + 2 * 128 * 129 / 2)
    # step 8: 4 decodes over 200 tokens in use
    assert (x.rows[1], x.logit_rows[1], x.kv_tokens[1], x.pairs[1], x.new[1]) == (4, 4, pytest.approx(200),
                                                                                   pytest.approx(200), 0)
    # the encoder step: prompts only, 10 tokens; 0.5% of the pool in use = 50 tokens, so 40
    # of context before the chunk (a prefix-cache hit, or the prompt's earlier chunks)
    assert x.pairs[2] == pytest.approx(10 * 40 + 10 * 11 / 2) and x.kv_tokens[2] == pytest.approx(50)
    with pytest.raises(ValueError, match="pool"):
        step_inputs(parse_steps(LOG.split("\n", 1)[1]))  # no 'KV cache size' line
    assert step_inputs(parse_steps(LOG), pool_tokens=20_000).kv_tokens[1] == pytest.approx(400)


def test_prompts_only_attend_to_the_blocks_in_use_past_their_own_tokens():
    line = LOG.splitlines()[1]
    prompts = line.replace("2 context requests, 256 context tokens, 3 generation requests, 3 generation tokens",
                           "2 context requests, 128 context tokens, 0 generation requests, 0 generation tokens")
    x = step_inputs(parse_steps("\n".join([LOG.splitlines()[0], prompts.replace("5.0%", "9.6%"),
                                           prompts.replace("5.0%", "1.0%")])))
    # 9.6% of 10,000 = 960 tokens in use: two chunks of 64 after 416 tokens each
    assert x.kv_tokens[0] == pytest.approx(960) and x.pairs[0] == pytest.approx(2 * (64 * 416 + 64 * 65 / 2))
    # 1% = 100 tokens, fewer than the chunks' own 128: nothing before them
    assert x.kv_tokens[1] == pytest.approx(128) and x.pairs[1] == pytest.approx(2 * 64 * 65 / 2)
    assert x.rows.tolist() == [128, 128] and x.new.tolist() == [2, 2] and x.seqs.tolist() == [2, 2]


def test_predicted_times_by_hand():
    cost = StepCost(weights_bytes=1e6, kv_bytes_per_token=1000.0, matrix_flops_per_token=1e6,
                    lm_head_flops_per_row=0.0, attention_flops_per_pair=0.0, bandwidth_bytes_per_s=1e9,
                    peak_flops=1e12, bandwidth_efficiency=1.0, prefill_mfu=1.0, overhead_s=1e-3)
    s = parse_steps(LOG)
    got = predicted_ms(s, cost)
    # step 8: 1 ms overhead + max((1e6 + 200 x 1000) B / 1e9 B/s, 4 x 1e6 FLOP / 1e12 FLOP/s)
    assert got[1] == pytest.approx(1.0 + 1.2)
    # step 7: memory (1e6 + 500 x 1000) / 1e9 = 1.5 ms against 259 x 1e6 / 1e12 = 0.259 ms
    assert got[0] == pytest.approx(1.0 + 1.5)
    basis = BasisCost(**{f: getattr(cost, f) for f in StepCost.__dataclass_fields__}, coef_seq_s=1e-4,
                      coef_request_s=1e-3, coef_gemm_ramp=0.0)
    # the basis model adds 5 sequences x 0.1 ms and 2 requests x 1 ms to step 7
    assert predicted_ms(s, basis)[0] == pytest.approx(2.5 + 0.5 + 2.0)


def test_compare_by_hand():
    s = parse_steps(LOG)
    report = compare_steps(s, [45.0, 4.0, 1.5])
    assert report["all"]["steps"] == 3
    assert report["all"]["measured_median_ms"] == 5.0 and report["all"]["predicted_median_ms"] == 4.0
    assert report["all"]["median_error"] == pytest.approx(-0.2)
    # per step |error|: 3.73 / 41.27, 1 / 5, 0: the median is the first
    assert report["all"]["median_abs_step_error"] == pytest.approx(3.73 / 41.27)
    assert report["decode"] == {"steps": 1, "measured_median_ms": 5.0, "predicted_median_ms": 4.0,
                                "median_error": pytest.approx(-0.2), "median_abs_step_error": pytest.approx(0.2)}
    assert report["prefill"]["median_error"] == 0.0 and report["mixed"]["steps"] == 1
    with pytest.raises(ValueError, match="2 predictions for 3 steps"):
        compare_steps(s, [1.0, 2.0])
