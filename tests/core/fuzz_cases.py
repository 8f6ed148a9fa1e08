"""How the calculator fuzz runs one case and judges it: in-process through `resolve_all` and
`run`, under a watchdog and a memory bound, classified as passed, refused (a ParamError
naming one of the fields) or a finding; and the smallest overrides that reproduce a finding."""
from __future__ import annotations

import math
import numbers
import os
import resource
import signal
import time
import tracemalloc
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings

from core.registry import Calculator, ParamError
from core.units import MiB
from tests.core.fuzz_inputs import corner_cases, inputs_strategy

MEMORY_LIMIT_BYTES = 500 * MiB
# Not the time bound (bench/bench_fuzz.py checks 2 s per case): only what stops a runaway
# case, e.g. a loop whose length the inputs do not bound.
WATCHDOG_S = float(os.environ.get("LAB_FUZZ_WATCHDOG_S", "15"))
# A safety net under the tracemalloc bound: an allocation beyond this fails at once with
# MemoryError instead of filling a shared machine.
ADDRESS_SPACE_HEADROOM_BYTES = 3 * 1024 * MiB

# Outputs that may legitimately be negative, keyed "calculator.output", each with why.
# Every other numeric scalar output is a count, size, duration, rate, work or ratio of
# non-negative things and must be >= 0.
SIGNED_OUTPUTS: dict[str, str] = {
    "rl.advantage.group_mean": "mean of rewards, which the spec allows to be negative",
    "rl.loss_mean.token_mean": "mean of per-sequence losses, which the spec allows to be negative",
    "rl.loss_mean.mean_of_means": "mean of per-sequence losses, which may be negative",
    "rl.loss_mean.difference": "token mean minus mean of means: a signed gap",
    "scaling.fit.h1_residual": "predicted minus observed loss: a signed error",
    "scaling.fit.h2_residual": "predicted minus observed loss: a signed error",
    "audio.buffer_compare.extra_start_delay_s": "buffer B's first playback minus A's: negative when B is the smaller buffer",
    "audio.drain.deficit_s_per_s": "play rate minus arrival rate: negative when audio arrives faster than it plays",
    "scaling.lifetime.small_model_net_gpu_h": "serving saving minus extra training: negative before break-even",
    "scaling.train_vs_serve.extra_train_gpu_h": "small minus large model's training: negative when the small "
                                                "model reaches the target loss with less compute",
    "train.state.grad_saving_vs_fp32_bytes": "saved against FP32 gradients: negative for gradients wider than 4 bytes",
    "train.step.headroom_bytes": "card memory minus the step's peak: negative when it does not fit (fits = 0)",
}


class _Runaway(BaseException):
    """Raised by the watchdog inside a case (a BaseException so no `except Exception` eats it)."""


@dataclass
class Case:
    calculator: str
    raw: dict[str, Any]
    kind: str | None = None  # None: passed; else 'exception', 'nan-inf', 'negative', ...
    detail: str = ""
    refused: bool = False  # ended in ParamError (fine)
    seconds: float = 0.0
    peak_bytes: int = 0


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def output_problems(calc: Calculator, result: dict[str, Any]) -> list[tuple[str, str]]:
    problems = []
    for out in calc.outputs:
        if out.kind != "scalar":
            continue
        value = result.get(out.name)
        if value is None or isinstance(value, (bool, str)):
            continue
        if not _is_number(value):
            problems.append(("type", f"{out.name} is {type(value).__name__}, not a number"))
            continue
        if not math.isfinite(value):
            problems.append(("nan-inf", f"{out.name} = {value}"))
        elif value < 0 and f"{calc.name}.{out.name}" not in SIGNED_OUTPUTS:
            problems.append(("negative", f"{out.name} = {value!r} ({out.unit or 'no unit'})"))
    return problems


def run_case(calc: Calculator, raw: dict[str, Any]) -> Case:
    """Resolve and run one input set in-process; classify what happened.

    Memory is the tracemalloc peak above the start, traced during the case only (precise,
    but it slows allocation-heavy cases several times), or, under
    Fuzzing(trace_memory=False), the growth of the peak resident set (VmHWM, reset per case
    through /proc/self/clear_refs), which leaves times honest.
    """
    case = Case(calc.name, raw)
    tracing = _TRACE_MEMORY[-1]
    started = tracing and not tracemalloc.is_tracing()
    if tracing:  # traced only while the case runs: drawing the next case stays fast
        if started:
            tracemalloc.start()
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
    else:
        base = _reset_resident_peak()
    start = time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, WATCHDOG_S)
    try:
        inputs, errors = calc.resolve_all(raw)
        if errors:
            raise errors[0]
        result = calc.run(inputs)
    except ParamError as err:
        case.refused = True
        if err.param not in {p.name for p in calc.params}:
            case.kind, case.detail = "misnamed-error", f"ParamError names {err.param!r}: {err}"
    except MemoryError:
        case.kind, case.detail = "memory", "MemoryError"
    except _Runaway:
        case.kind, case.detail = "runaway", f"stopped by the {WATCHDOG_S:g} s watchdog"
    except Exception as err:  # noqa: BLE001 - any other exception is the finding
        case.kind, case.detail = "exception", f"{type(err).__name__}: {err}"[:300]
    else:
        problems = output_problems(calc, result)
        if problems:
            case.kind = problems[0][0]
            case.detail = "; ".join(d for _, d in problems)[:300]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        case.seconds = time.perf_counter() - start
        if tracing:
            peak = tracemalloc.get_traced_memory()[1]
            if started:
                tracemalloc.stop()
        else:
            peak = _proc_status_bytes("VmHWM:")
        case.peak_bytes = max(0, peak - base)
    if case.kind is None and case.peak_bytes > MEMORY_LIMIT_BYTES:
        case.kind, case.detail = "memory", f"peak {case.peak_bytes / MiB:.0f} MiB"
    return case


_TRACE_MEMORY = [True]  # how run_case measures memory: set by the innermost Fuzzing


class Fuzzing:
    """Context for a fuzz run: a watchdog, an address-space ceiling, and how memory is
    measured (tracemalloc per case, or resident-set growth when trace_memory is False)."""

    def __init__(self, trace_memory: bool = True):
        self.trace_memory = trace_memory

    def __enter__(self):
        _TRACE_MEMORY.append(self.trace_memory)
        self._old_handler = signal.signal(signal.SIGALRM, self._alarm)
        self._old_limit = resource.getrlimit(resource.RLIMIT_AS)
        ceiling = _address_space_bytes() + ADDRESS_SPACE_HEADROOM_BYTES
        hard = self._old_limit[1]
        if hard == resource.RLIM_INFINITY or ceiling < hard:
            resource.setrlimit(resource.RLIMIT_AS, (ceiling, hard))
        return self

    @staticmethod
    def _alarm(signum, frame):
        raise _Runaway()

    def __exit__(self, *exc):
        resource.setrlimit(resource.RLIMIT_AS, self._old_limit)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self._old_handler)
        _TRACE_MEMORY.pop()
        return False


def _proc_status_bytes(field_name: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field_name):
                return int(line.split()[1]) * 1024
    return 0


def _address_space_bytes() -> int:
    return _proc_status_bytes("VmSize:")


def _reset_resident_peak() -> int:
    """Start a new peak-RSS window (Linux: writing 5 to clear_refs resets VmHWM); the RSS now."""
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")
    return _proc_status_bytes("VmRSS:")


def fuzz(calc: Calculator, cases: int) -> list[Case]:
    """The corner cases, then `cases` drawn ones; every case's outcome (none raises)."""
    seen: list[Case] = [run_case(calc, raw) for raw in corner_cases(calc)]

    @settings(max_examples=cases, derandomize=True, database=None, deadline=None,
              phases=(Phase.generate,), suppress_health_check=list(HealthCheck))
    @given(inputs_strategy(calc))
    def drawn(raw):
        seen.append(run_case(calc, raw))

    drawn()
    return seen


def minimal(calc: Calculator, case: Case, budget: int = 40) -> dict[str, Any]:
    """The overrides that still reproduce the case's kind, others put back to defaults.
    Slow cases are shown as found: re-running them to shrink would cost a watchdog each."""
    raw = {k: v for k, v in case.raw.items() if v != calc.param(k).default}
    if case.kind in ("runaway", "memory") or case.seconds > 1.0:
        budget = 0
    for key in list(raw):
        if budget <= 0:
            break
        trial = {k: v for k, v in raw.items() if k != key}
        budget -= 1
        if run_case(calc, trial).kind == case.kind:
            raw = trial
    for key, value in list(raw.items()):  # a long list that a short one reproduces
        if isinstance(value, tuple) and len(value) > 3 and budget > 0:
            budget -= 1
            trial = dict(raw, **{key: value[:2]})
            if run_case(calc, trial).kind == case.kind:
                raw = trial
    return raw


def show(raw: dict[str, Any]) -> str:
    def one(v):
        if isinstance(v, tuple):
            if len(v) > 4 and len(set(v)) == 1:
                return f"[{v[0]!r}]*{len(v)}"
            return ",".join(repr(x) for x in v)
        return repr(v)
    return " ".join(f"{k}={one(v)}" for k, v in raw.items())
