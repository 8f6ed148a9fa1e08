"""The run as a Perfetto / chrome://tracing timeline (the Trace Event format's JSON):
one process per pool, one thread per lane; the rollout pool has a lane per replica (its
part of each step's batch), the trainer a lane for its stages, the CPU reward its own.
Times in microseconds of simulated time."""
from __future__ import annotations

from core.rl.loop import Run

POOLS = {"rollout": 1, "trainer": 2, "reward": 3}


def trace_events(run: Run) -> dict:
    p = run.params
    events = [{"name": "process_name", "ph": "M", "pid": pid, "args": {"name": f"{name} pool"}}
              for name, pid in POOLS.items()]
    events += [{"name": "thread_name", "ph": "M", "pid": 1, "tid": r, "args": {"name": f"replica {r}"}}
               for r in range(p.replicas)]

    def span(name, pid, tid, start, end, step):
        if end > start:
            events.append({"name": name, "ph": "X", "pid": pid, "tid": tid, "ts": start * 1e6,
                           "dur": (end - start) * 1e6, "args": {"step": step}})

    cpu_reward = p.reward != "model"
    for k in range(p.steps):
        t0 = float(run.start["rollout"][k])
        for r, makespan in enumerate(run.rollouts[k].replica_makespan_s.tolist()):
            span(f"rollout {k}", 1, r, t0, t0 + makespan, k)
        for lane in ("switch", "reward", "reference", "update", "sync"):
            if lane == "reward" and cpu_reward:
                span(f"reward {k}", 3, 0, float(run.start[lane][k]), float(run.end[lane][k]), k)
                continue
            span(f"{lane} {k}", 2, 0, float(run.start[lane][k]), float(run.end[lane][k]), k)
    return {"traceEvents": events, "displayTimeUnit": "ms"}
