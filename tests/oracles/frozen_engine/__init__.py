"""The serving engine as it was at f7c3f1a (issue 12's starting point), frozen so
bench/bench_engine_speed.py and the tests (tests/core/test_engine_frozen.py and others)
can time and compare today's engine against it in one run. Do not edit. Self-contained:
it imports nothing of live core (records.py holds frozen copies of the step cost's
formulas and the result record); it takes any workload and config with the live ones'
attributes (arrival_s, input_tokens, output_tokens, sessions, prefix; max_num_seqs,
block_size, token_budget, reserve_full_prompt, prefix_caching, num_blocks, block_bytes,
cost's coefficients), read as plain numbers and arrays."""
from .engine import replay  # noqa: F401
