"""loadlab.sweep: `lab sweep serving` from Python (a grid of settings x seeds, or a capacity
search per setting), its points as a table."""
from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from loadlab import _keys
from loadlab.tables import table, write_parquet


@dataclass
class SweepRun:
    """summary: the dict `lab sweep --json` prints (Pareto set, cheapest setting meeting the
    SLOs, seed bands, capacity); rows: one dict per point, in the sweep's order (every
    parameter as param.NAME, the seed, every `lab simulate serving --json` metric; as
    results.csv has them); points: the rows as a
    table (pandas DataFrame, else pyarrow Table)."""

    summary: dict
    rows: list

    @cached_property
    def points(self):
        names: list[str] = []
        for row in self.rows:
            names += [k for k in row if k not in names]
        return table({k: _column([row.get(k) for row in self.rows]) for k in names})

    def to_parquet(self, path: str | os.PathLike) -> Path:
        """The points to one Parquet file (as results.parquet of `lab sweep --out`)."""
        return write_parquet(self.points, Path(path))


def _column(values: list):
    """One column: numbers stay numbers (None as NaN), anything else as text."""
    import numpy as np

    if all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in values):
        return np.array([np.nan if v is None else v for v in values], dtype=float)
    if all(isinstance(v, bool) for v in values):
        return np.array(values, dtype=bool)
    return np.array(["" if v is None else str(v) for v in values], dtype=object)


def sweep(*, out: str | os.PathLike | None = None, workers: int | None = None, engine: str = "local",
          address: str | None = None, force: bool = False, config: str | os.PathLike | None = None,
          **params: Any) -> SweepRun:
    """Many replays: `lab sweep serving` with keywords. A list is the alternatives of a
    key (max_num_seqs=[32, 64]), text keeps the CLI's syntax ("32:128:32" a range,
    seeds="0-7"), a list of lists the alternatives of a list-valued key
    (rates_per_s=[[2, 2], [4, 4]]). search="max_rate" with slo_*_ms= searches each
    setting's capacity. out: the resumable folder (results.csv, results.parquet,
    summary.json; None: in memory only); workers: processes (default every core; 1: the
    points run in this process; more start worker processes, so a script calls sweep under
    `if __name__ == "__main__":`, as multiprocessing asks); engine="ray" with address= for a
    cluster. Errors: loadlab.ParamError, as the CLI.

    Example, two batch limits over two seeds on a short run::

        >>> import loadlab
        >>> sw = loadlab.sweep(max_num_seqs=[16, 64], seeds=[0, 1], durations_s=20, rates_per_s=2,
        ...                    shares_long_input=0.5, workers=1)
        >>> sw.summary["points"]["done"]
        4
        >>> len(sw.rows), sorted({r["param.max_num_seqs"] for r in sw.rows})
        (4, [16, 64])
    """
    from core.registry import ParamError
    from core.sweep.executors import Executor, InProcess, make_executor
    from core.sweep.run import parse_sweep, run_sweep

    if isinstance(workers, bool) or workers is not None and (not isinstance(workers, int) or workers < 1):
        raise ParamError("workers", f"got {workers!r}; valid: a whole number >= 1 (None: every core)")
    raw = _keys.with_config(config, _keys.as_text(params))
    spec = parse_sweep("serving", raw)
    executor: Executor
    if workers == 1 and engine == "local" and address is None:
        executor = InProcess()  # one worker: the points here, so a script needs no __main__ guard
    else:
        executor = make_executor(engine, workers, address, fork=False)  # a notebook has threads: no fork
    rows: list[dict] = []
    try:
        summary = run_sweep(spec, None if out is None else os.fspath(out), executor, force=force, on_row=rows.append)
    finally:
        executor.close()
    order = {p.key: i for i, p in enumerate(spec.points)}
    rows.sort(key=lambda r: order.get(r.get("point"), len(order)))
    return SweepRun(summary, rows)
