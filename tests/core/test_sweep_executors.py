"""core.sweep.executors: the local process pool gives the same rows as running in process,
survives a worker killed mid-sweep (every row exactly once), and stops on cancel keeping
what finished. Points are real serving replays (core.sweep.serving's evaluator, by name)."""
import os
import signal

import pytest

from core.cancel import CancelToken
from core.registry import ParamError
from core.sweep.executors import InProcess, LocalPool, make_executor, pool_context
from core.sweep.run import parse_sweep, payload, run_sweep, sweep_kind

SMALL = {"max_num_seqs": "16,64", "token_budget": "2048,8192", "durations_s": "20", "rates_per_s": "3",
         "shares_long_input": "0.5"}


def _without_wall(row):
    return {k: v for k, v in row.items() if k != "wall_s"}


@pytest.fixture(scope="module")
def pool():
    executor = LocalPool(2)
    yield executor
    executor.close()


def test_pool_rows_equal_in_process_rows(pool):
    spec = parse_sweep("serving", SMALL)
    rows_here, rows_pool = [], []
    here = run_sweep(spec, None, InProcess(), on_row=rows_here.append)
    there = run_sweep(spec, None, pool, on_row=rows_pool.append)
    assert len(rows_pool) == 4
    assert sorted(map(_without_wall, rows_pool), key=lambda r: r["point"]) == \
        sorted(map(_without_wall, rows_here), key=lambda r: r["point"])
    assert here["points"] == there["points"] == {"total": 4, "done": 4, "reused": 0, "computed": 4, "left": 0, "refused": 0}


def met_then_evaluated(shared, task):
    """The serving evaluator after a rendezvous of two workers: a worker waiting at the
    barrier takes no other task, so each pair of points runs in two different workers."""
    shared.wait(timeout=120)
    return sweep_kind("serving").evaluate(None, task)


def test_two_workers_each_compute_points_equal_to_the_in_process_rows():
    spec = parse_sweep("serving", SMALL)
    here = []
    run_sweep(spec, None, InProcess(), on_row=here.append)
    pool = LocalPool(2)
    try:
        barrier = pool_context().Barrier(2)  # the workers get it once, through the pool's initializer
        there = [row for _, row in pool.run(met_then_evaluated, barrier, [(p.key, payload(spec, p)) for p in spec.points])]
    finally:
        pool.close()
    assert len(pool.worker_pids) == 2
    assert sorted(map(_without_wall, there), key=lambda r: r["point"]) == \
        sorted(map(_without_wall, here), key=lambda r: r["point"])


def test_a_worker_killed_mid_sweep_loses_and_duplicates_nothing(pool):
    spec = parse_sweep("serving", {"max_num_seqs": "16,32,48,64", "token_budget": "2048,4096,8192"})
    kind = sweep_kind("serving")
    tasks = [(p.key, payload(spec, p)) for p in spec.points]
    restarts = pool.restarts
    seen = []
    for key, row in pool.run(kind.evaluate, None, tasks):
        seen.append(key)
        if len(seen) == 1:  # a replay is running in the other worker now
            victim = pool.live_pids()[0]
            os.kill(victim, signal.SIGKILL)
        assert row["point"] == key
    assert sorted(seen) == sorted(k for k, _ in tasks)  # every point once
    assert pool.restarts == restarts + 1
    assert victim not in pool.live_pids()


def test_cancel_keeps_finished_points_and_resume_computes_the_rest(tmp_path, pool):
    spec = parse_sweep("serving", dict(SMALL, max_num_seqs="8,16,32,64"))
    token = CancelToken()
    got = []

    def on_row(row):
        got.append(row["point"])
        token.cancel()
    first = run_sweep(spec, str(tmp_path), pool, on_row=on_row, cancel=token)
    assert first["cancelled"] and 1 <= first["points"]["done"] < 8
    done = first["points"]["done"]
    assert (tmp_path / "results.csv").read_text().count("\n") == done + 1
    again = run_sweep(parse_sweep("serving", dict(SMALL, max_num_seqs="8,16,32,64")), str(tmp_path), pool)
    assert not again["cancelled"]
    assert again["points"] == {"total": 8, "done": 8, "reused": done, "computed": 8 - done, "left": 0, "refused": 0}


class Repeats:
    """An executor that yields each point twice (a retried task reporting late)."""
    name = "repeats"

    def run(self, evaluate, shared, tasks, cancel):
        for key, task in tasks:
            row = evaluate(shared, task)
            yield key, row
            yield key, dict(row, wall_s=-1.0)

    def close(self):
        pass


def test_a_duplicate_from_an_executor_counts_once():
    rows = []
    summary = run_sweep(parse_sweep("serving", SMALL), None, Repeats(), on_row=rows.append)
    assert len(rows) == 4 and all(r["wall_s"] >= 0 for r in rows)
    assert summary["points"]["done"] == 4


@pytest.mark.parametrize("args, field", [(("local", 0, None), "--workers"), (("local", 2, "h:1"), "--address"),
                                         (("spark", None, None), "--engine"), (("local", True, None), "--workers")])
def test_bad_engine_choices(args, field):
    with pytest.raises(ParamError) as err:
        make_executor(*args)
    assert err.value.param == field and "valid:" in str(err.value)


def test_the_pool_keeps_a_few_tasks_per_worker_in_flight(monkeypatch):
    import core.sweep.executors as ex

    seen = []
    real_wait = ex.wait

    def counting_wait(futures, **kw):
        seen.append(len(futures))
        return real_wait(futures, **kw)
    monkeypatch.setattr(ex, "wait", counting_wait)
    spec = parse_sweep("serving", dict(SMALL, max_num_seqs="8:64:8"))
    executor = LocalPool(1)
    try:
        rows = list(executor.run(sweep_kind("serving").evaluate, None, [(p.key, payload(spec, p)) for p in spec.points]))
    finally:
        executor.close()
    assert len(rows) == 16 and len({k for k, _ in rows}) == 16
    assert max(seen) == ex.IN_FLIGHT_PER_WORKER  # never all 16 at once


def test_a_new_trace_reaches_the_workers(tmp_path, pool):
    """The pool keeps its workers between runs with the same shared input, and starts fresh
    ones for another (two traces, one after the other, each gives its own rows)."""
    rows = {}
    for n in (20, 30):
        trace = tmp_path / f"t{n}.csv"
        trace.write_text("arrival_s,input_tokens,output_tokens\n" + "".join(f"{i * 0.4:.1f},{400 + i},30\n" for i in range(n)))
        got = []
        run_sweep(parse_sweep("serving", {"trace": str(trace), "max_num_seqs": "4,8"}), None, pool, on_row=got.append)
        rows[n] = got
    assert {r["requests"] for r in rows[20]} == {20} and {r["requests"] for r in rows[30]} == {30}
