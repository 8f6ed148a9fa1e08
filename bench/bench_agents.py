"""§3.2's calculators on their hard paths. Prints one JSON object. Not a test.

- trajectory_csv_ms: agent.trajectory of a CSV file at the round limit (10,000 rows), read,
  checked and counted (a new file each run: nothing cached), on the GUI thread when a
  user types the path; target 150 ms.
- trajectory_bundled_ms: the bundled run (the card's default; cached after the first read).
- replay_one_ms: agent.replay of thinking on, one copy (the verify row): 4 calls.
- replay_copies_ms: 256 copies of thinking off, 0.5 s apart (3,072 calls): the largest
  replay the card allows in copies, on the job runner; target 3 s.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchstats import stats

REPEATS = 7


def _timed(fn, repeats: int = REPEATS) -> list[float]:
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    from core.agents import replay as ar
    from core.agents import trajectory as at

    folder = tempfile.mkdtemp(prefix="lab-bench-agents-")
    rows = "".join(f"{i},{1000 + i},{1000 + i - 16},50,1.0,0.1\n" for i in range(at.MAX_ROUNDS))
    counter = iter(range(10**6))

    def csv_once():
        path = os.path.join(folder, f"run{next(counter)}.csv")
        Path(path).write_text("round," + ",".join(at.COLUMNS) + "\n" + rows, encoding="utf-8")
        t0 = time.perf_counter()
        at.TRAJECTORY.run({"trace": path})
        return time.perf_counter() - t0

    csv_runs = [csv_once() for _ in range(REPEATS)]
    print(json.dumps({
        "trajectory_csv_ms": stats(csv_runs, 1e3, target=150.0),
        "trajectory_bundled_ms": stats(_timed(lambda: at.TRAJECTORY.run()), 1e3),
        "replay_one_ms": stats(_timed(lambda: ar.REPLAY.run({"copies": 1})), 1e3),
        "replay_copies_ms": stats(_timed(lambda: ar.REPLAY.run(
            {"trace": "thinking_off", "copies": ar.MAX_COPIES, "stagger_s": 0.5}), 3), 1e3, target=3000.0),
    }, indent=1))


if __name__ == "__main__":
    main()
