"""The run as a Perfetto / chrome://tracing timeline (the Trace Event format's JSON):
one process per pool, one thread per lane; the rollout pool has a lane per replica (its
part of each step's batch), the trainer a lane for its stages, the CPU reward its own.
Times in microseconds of simulated time.

A thread's complete ("X") slices must nest; in async mode a replica's batches overlap (the
next one joins during the tail), so an overlapping batch goes on the replica's next lane
("replica r · 2"): each lane's slices are disjoint."""
from __future__ import annotations

from core.rl.loop import Run

POOLS = {"rollout": 1, "trainer": 2, "reward": 3}
LANES_PER_REPLICA = 1024  # tid = replica * this + its lane


def trace_events(run: Run) -> dict:
    p = run.params
    events = [{"name": "process_name", "ph": "M", "pid": pid, "args": {"name": f"{name} pool"}}
              for name, pid in POOLS.items()]

    def span(name, pid, tid, start, end, step):
        if end > start:
            ts = start * 1e6  # dur from the end's own µs: a slice ends where the next one starts
            events.append({"name": name, "ph": "X", "pid": pid, "tid": tid, "ts": ts, "dur": end * 1e6 - ts,
                           "args": {"step": step}})

    lane_free: list[list[float]] = [[] for _ in range(p.replicas)]  # per replica: each lane's last end
    cpu_reward = p.reward != "model"
    for k in range(p.steps):
        t0 = float(run.start["rollout"][k])
        roll = run.rollouts[k]
        for r, makespan in enumerate(roll.replica_makespan_s.tolist()):
            mine = roll.replica_of == r
            if makespan <= 0 or not mine.any():
                continue
            begin, end = t0 + float(roll.start_s[mine].min()), t0 + makespan
            free = lane_free[r]
            lane = next((i for i, e in enumerate(free) if e <= begin), len(free))
            if lane == len(free):
                free.append(end)
            free[lane] = end
            span(f"rollout {k}", 1, r * LANES_PER_REPLICA + lane, begin, end, k)
        for stage in ("switch", "reward", "reference", "update", "sync"):
            pid = 3 if stage == "reward" and cpu_reward else 2
            span(f"{stage} {k}", pid, 0, float(run.start[stage][k]), float(run.end[stage][k]), k)
    for r, free in enumerate(lane_free):
        for lane in range(max(len(free), 1)):
            name = f"replica {r}" + (f" · {lane + 1}" if lane else "")
            events.append({"name": "thread_name", "ph": "M", "pid": 1, "tid": r * LANES_PER_REPLICA + lane,
                           "args": {"name": name}})
    events.append({"name": "thread_name", "ph": "M", "pid": 2, "tid": 0, "args": {"name": "trainer"}})
    events.append({"name": "thread_name", "ph": "M", "pid": 3, "tid": 0, "args": {"name": "CPU reward"}})
    return {"traceEvents": events, "displayTimeUnit": "ms"}
