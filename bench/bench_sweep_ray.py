"""Ray vs the local pool for `lab sweep` (issue 12): prints one JSON object.

- overhead_per_point_ms: empty points (an evaluation that returns at once) through each
  executor with 2 workers, wall / points; `ray_minus_local` is what Ray adds per point
  (target <= 20 ms). Start-up (a private local Ray instance, a pool's first point) apart.
- real_sweep: a 16-point sweep of short windows (4 settings x 4 new seeds) on each engine, ms per point.
- refusal_s: how long `--address` takes to refuse a closed port and a silent listener
  (target < 10 s; ray.init itself waits minutes there).
- with --million: one sweep point of a 1M-request trace (bench/serving_workloads'
  synthetic_trace, written as a CSV and read once as a sweep does), its wall per point and
  peak memory, and the paper estimate of a 100,000-point sweep on 1 machine vs 16 nodes
  (README "Sweeps: one machine or a cluster").
Medians/min/max over >= 5 repeats (>= 3 for the 1M point: minutes each).
Usage: python bench/bench_sweep_ray.py [--million] [--repeats N]
"""
from __future__ import annotations

import json
import os
import resource
import socket
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchstats import stats

WORKERS = 2
EMPTY_POINTS = 200
SWEEP = {"durations_s": "10", "rates_per_s": "3", "shares_long_input": "0.5", "max_num_seqs": "8,16,32,64"}
SEEDS = 4  # per repeat: new seeds each time, so no point is one a process has seen


def empty_point(shared, payload: dict) -> dict:
    """An evaluation that costs nothing: what is left is the executor's own cost."""
    return {"point": payload["i"]}


def executors():
    from core.sweep.executors import LocalPool
    from core.sweep.ray_executor import RayExecutor

    t0 = time.perf_counter()
    ray_executor = RayExecutor(None, WORKERS)
    ray_start = time.perf_counter() - t0
    return {"local": LocalPool(WORKERS), "ray": ray_executor}, ray_start


def overhead(engines: dict, repeats: int) -> dict:
    tasks = [(f"p{i}", {"i": i}) for i in range(EMPTY_POINTS)]
    out, first = {}, {}
    for name, executor in engines.items():
        t0 = time.perf_counter()
        list(executor.run(empty_point, None, tasks[:WORKERS]))  # start the workers
        first[name] = time.perf_counter() - t0
        walls = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            got = list(executor.run(empty_point, None, tasks))
            walls.append(time.perf_counter() - t0)
            assert len(got) == EMPTY_POINTS
        out[name] = [w / EMPTY_POINTS for w in walls]
    result = {name: stats(v, 1e3, unit="ms") for name, v in out.items()}
    result["ray_minus_local"] = stats([r - lo for r, lo in zip(out["ray"], out["local"])], 1e3, target=20.0, unit="ms")
    result["first_points_s"] = {k: round(v, 3) for k, v in first.items()}
    return result


def real_sweep(engines: dict, repeats: int) -> dict:
    from core.sweep.run import parse_sweep, run_sweep

    per, n = {}, 0
    for e, (name, executor) in enumerate(engines.items()):
        walls = []
        for r in range(repeats):
            first = (e * repeats + r) * SEEDS
            spec = parse_sweep("serving", dict(SWEEP, seeds=f"{first}-{first + SEEDS - 1}"))
            n = len(spec.points)
            t0 = time.perf_counter()
            summary = run_sweep(spec, None, executor)
            walls.append(time.perf_counter() - t0)
            assert summary["points"]["done"] == n
        per[name] = [w / n for w in walls]
    out = {name: stats(v, 1e3, unit="ms per point") for name, v in per.items()}
    out["ray_minus_local"] = stats([r - lo for r, lo in zip(per["ray"], per["local"])], 1e3, unit="ms per point")
    out["points"] = n
    return out


def refusal(repeats: int) -> dict:
    from core.registry import ParamError
    from core.sweep.ray_probe import check_address

    def timed(address):
        t0 = time.perf_counter()
        try:
            check_address(address)
        except ParamError:
            return time.perf_counter() - t0
        raise AssertionError(f"{address} was not refused")

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"127.0.0.1:{s.getsockname()[1]}"
    closed_s = [timed(closed) for _ in range(repeats)]
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)  # accepts (the kernel's backlog) and never answers
    silent_s = [timed(f"127.0.0.1:{silent.getsockname()[1]}") for _ in range(repeats)]
    silent.close()
    return {"closed_port": stats(closed_s, target=10.0, kind="none_over", unit="s"),
            "silent_listener": stats(silent_s, target=10.0, kind="none_over", unit="s")}


def million(repeats: int, requests: int = 1_000_000) -> dict:
    """One sweep point of a 1M-request trace, as a sweep worker runs it."""
    from serving_workloads import synthetic_trace

    from lab.cli.simulate import load_shared_trace, simulate_serving

    work = synthetic_trace(requests, seed=1)
    folder = tempfile.mkdtemp(prefix="bench-1m-")
    path = os.path.join(folder, "trace.csv")
    with open(path, "w") as f:
        f.write("arrival_s,input_tokens,output_tokens\n")
        for t, p, g in zip(work.arrival_s.tolist(), work.input_tokens.tolist(), work.output_tokens.tolist()):
            f.write(f"{t!r},{p},{g}\n")
    raw = {"trace": path}
    t0 = time.perf_counter()
    shared = load_shared_trace(raw)
    load_s = time.perf_counter() - t0
    walls, cpus, report = [], [], None
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        report, _ = simulate_serving(raw, workload=shared)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    os.remove(path)
    os.rmdir(folder)
    per_point = sorted(cpus)[len(cpus) // 2]  # a core's time: what the estimate multiplies
    return {"requests": report["requests"], "engine_steps": report["engine_steps"],
            "per_point_s": stats(walls, unit="s"), "per_point_cpu_s": stats(cpus, unit="s"),
            "trace_load_s": round(load_s, 2),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "estimate_100k_points": estimate(per_point)}


def estimate(per_point_s: float, points: int = 100_000, cores: int = 32, nodes: int = 16,
             ray_overhead_s: float = 0.02) -> dict:
    """Paper arithmetic: points x per-point CPU time over the cores working at once (each
    point is one core's replay); Ray's per-point overhead is added at the target bound."""
    cpu_h = points * per_point_s / 3600
    one = cpu_h / cores
    cluster = points * (per_point_s + ray_overhead_s) / 3600 / (cores * nodes)
    return {"points": points, "cpu_hours": round(cpu_h, 1), "cores_per_machine": cores,
            "one_machine_h": round(one, 1), "one_machine_days": round(one / 24, 2),
            "nodes": nodes, "cluster_h": round(cluster, 2), "speedup": round(one / cluster, 1)}


def main() -> None:
    args = sys.argv[1:]
    repeats = int(args[args.index("--repeats") + 1]) if "--repeats" in args else 5
    out = {"workers": WORKERS, "cpus": os.cpu_count()}
    if "--million" in args:
        out["million"] = million(max(3, min(repeats, 3)))
        print(json.dumps(out, indent=1), flush=True)
        return
    out["refusal_s"] = refusal(repeats)
    engines, ray_start = executors()
    try:
        out["ray_local_instance_start_s"] = round(ray_start, 2)
        out["overhead_per_point_ms"] = overhead(engines, repeats)
        out["real_sweep"] = real_sweep(engines, repeats)
    finally:
        for executor in engines.values():
            executor.close()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
