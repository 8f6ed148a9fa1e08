"""The serving engine as it was at f7c3f1a (issue 12's starting point), frozen so
bench_engine_speed.py and tests/core/test_engine_frozen.py can time and compare today's
engine against it in one run. Do not edit: only the imports are made relative (the
data types, EngineConfig, ReplayResult, Workload and StepCost, still come from core)."""
from .engine import replay  # noqa: F401
