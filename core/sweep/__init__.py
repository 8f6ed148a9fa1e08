"""Sweeps: many serving replays (settings x seeds, or a capacity search per setting) run
on a local process pool or a Ray cluster, kept in a resumable folder. The API is
core.sweep.run (parse_sweep, run_sweep) and core.sweep.executors (Executor, LocalPool,
make_executor). The Plan panel, which writes and runs a sweep, keeps its state in
core.sweep.plan_state."""
