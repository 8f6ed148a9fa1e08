"""How LocalPool starts its workers (issue 14: a cold pool cost more than the sweep): the
CLI's pool forks them from its own process after one warm-up replay there, a pool in a
process with threads keeps the forkserver (which runs the warm-up before it forks). Either
way the workers hold the compiled engine before their first point, and the rows are the
in-process rows bit for bit, on the hard path too (a trace, prefix caching, preemption)."""
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from core.sweep.executors import InProcess, LocalPool
from core.sweep.run import parse_sweep, run_sweep, sweep_kind

ROOT = Path(__file__).resolve().parents[2]
TRACE = ROOT / "tests" / "data" / "traces" / "mooncake_conversation_400.jsonl"
# 18 GiB holds one of the trace's longest requests but not all of them at once: preemptions.
HARD = {"trace": str(TRACE), "prefix_caching": "true", "kv_pool_bytes": "18GiB,24GiB", "max_num_seqs": "16,64"}
WARM = "core.sweep.warm:warm_serving"


def _without_wall(row):
    return {k: v for k, v in row.items() if k != "wall_s"}


def loaded_before_first_point(shared, task):
    """A point's evaluator that reports whether the worker already held the compiled loop."""
    from core.serving.engine import loop

    return {"point": task["key"], "signatures": len(loop.run_events.signatures)}


# Run in a fresh interpreter: pytest's own process may hold a Qt application (from an
# earlier test), where the pool rightly does not fork.
FORKED = """
import json, sys
from core.sweep.executors import LocalPool
from core.sweep.run import parse_sweep, payload, run_sweep
import tests.core.test_sweep_worker_start as t
pool = LocalPool(2, fork=sys.argv[1] != "warm-forkserver")
rows = []
if sys.argv[1] == "rows":
    run_sweep(parse_sweep("serving", t.HARD), None, pool, on_row=rows.append)
elif sys.argv[1] == "lock":  # the same pool into the same folder twice
    for grid in ("8,16", "8,16,32"):
        rows.append(run_sweep(parse_sweep("serving", {"max_num_seqs": grid}), sys.argv[2], pool)["points"])
else:
    spec = parse_sweep("serving", {"max_num_seqs": "8,16,32,64"})
    pool.prepare(t.loaded_before_first_point, None, t.WARM)
    rows = [row for _, row in pool.run(t.loaded_before_first_point, None, [(p.key, payload(spec, p)) for p in spec.points])]
print(json.dumps({"start_method": pool.start_method, "rows": rows}))
pool.close()
"""


def _forked(*what: str) -> dict:
    done = subprocess.run([sys.executable, "-c", FORKED, *what], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_forked_workers_give_the_in_process_rows_on_the_hard_path():
    here = []
    run_sweep(parse_sweep("serving", HARD), None, InProcess(), on_row=here.append)
    there = _forked("rows")
    assert there["start_method"] == "fork"
    rows = there["rows"]
    assert len(rows) == 4 and min(r["preemptions"] for r in rows) > 0 and min(r["cache_hit_rate"] for r in rows) > 0
    # JSON carries every float exactly (shortest repr round-trips), so equal means bit for bit.
    assert sorted(map(_without_wall, rows), key=lambda r: r["point"]) == \
        sorted((json.loads(json.dumps(_without_wall(r))) for r in here), key=lambda r: r["point"])


def test_forked_workers_hold_the_compiled_loop_before_their_first_point():
    there = _forked("warm")
    assert there["start_method"] == "fork"
    assert len(there["rows"]) == 4 and all(r["signatures"] >= 1 for r in there["rows"])


def test_forkserver_workers_hold_the_compiled_loop_before_their_first_point():
    """Its own interpreter: a forkserver another test started first would lack the preload."""
    there = _forked("warm-forkserver")
    assert there["start_method"] == "forkserver"
    assert len(there["rows"]) == 4 and all(r["signatures"] >= 1 for r in there["rows"])


def test_a_process_with_another_thread_does_not_fork():
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    pool = LocalPool(1, fork=True)
    try:
        pool.prepare(sweep_kind("serving").evaluate, None, WARM)
        assert pool.start_method == "forkserver"
    finally:
        stop.set()
        other.join()
        pool.close()


def test_forked_workers_keep_no_copy_of_the_folder_lock(tmp_path):
    """run_sweep starts the workers before it locks the folder: the same pool resumes into
    the same folder (a worker holding the first run's lock would refuse the second)."""
    there = _forked("lock", str(tmp_path))
    assert there["start_method"] == "fork"
    first, again = there["rows"]
    assert first["computed"] == 2
    assert (again["reused"], again["computed"]) == (2, 1)


# A fresh interpreter: pytest's own process may have loaded every compiled function already.
NOTHING_LEFT = """
import gc, json
from numba.core.registry import CPUDispatcher
from core.sweep.executors import call_warmup
from core.sweep.run import parse_sweep, payload, sweep_kind
import tests.core.test_sweep_worker_start as t

def signatures():
    return {f"{d.py_func.__module__}.{d.py_func.__qualname__}": len(d.signatures)
            for d in gc.get_objects() if isinstance(d, CPUDispatcher)}

call_warmup(t.WARM)
before = signatures()
kind = sweep_kind("serving")
for raw in (t.HARD, {"max_num_seqs": "16,64", "prefix_caching": "true"}, {"seeds": "0,1"}):
    spec = parse_sweep("serving", raw)
    shared = kind.load_shared(spec.fixed)
    for point in spec.points:
        kind.evaluate(shared, payload(spec, point))
print(json.dumps({"loaded": sum(before.values()),
                  "new": {k: v for k, v in signatures().items() if v != before.get(k, 0)}}))
"""


def test_the_warm_up_loads_every_compiled_function_a_serving_point_runs():
    """What the warm-up leaves out, each worker loads at its first point (the hash-id chain
    interning of a Mooncake trace with prefix caching cost each worker about 0.2 s)."""
    done = subprocess.run([sys.executable, "-c", NOTHING_LEFT], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["loaded"] > 0
    assert got["new"] == {}
