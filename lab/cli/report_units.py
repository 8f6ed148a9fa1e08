"""One unit per JSON: the rule for what `lab simulate serving` writes as JSON (--json,
summary.json in --out, and loadlab's ServingRun.summary).

- Outside the `book` object every time is in milliseconds with an `_ms` suffix, as `vllm
  bench serve` saves its latencies (mean/median/std/p90/p99 of ttft, tpot, itl, e2el),
  and vLLM bench's other keys keep vLLM's own names and units (its `duration` is seconds,
  as vLLM saves it: a reader of vLLM's JSON reads ours unchanged).
- The book's own figures, in seconds (`_s`, p95 by nearest rank), sit under `book`:
  ttft_p95_s, request_p95_s, first_schedule_wait_p95_s, last_completion_s, decode_bound_s,
  last_arrival_s; book.observed is the book's measured run (was book_observed), book.band
  the min/median/max over seeds= of the book's metrics (was band). Each per_replica row
  keeps its book figures under its own `book`.
- The lab's own simulation time is wall_ms.
- Counts, tokens, fractions and USD carry no unit suffix and stay where they are; the
  settings a report echoes (deployment, step_model, client) keep the names of the keys
  they are set with (coef_step_s is the key coef_step_s=, in seconds).
The dict the replay builds (core.serving.headless.serving_report) keeps its flat names:
the text report, sweeps and the GUI read it; this is its JSON view.
"""
from __future__ import annotations

BOOK_TIMES = ("ttft_p95_s", "request_p95_s", "first_schedule_wait_p95_s", "last_completion_s", "decode_bound_s",
              "last_arrival_s")
MOVED = {"book_observed": "observed", "band": "band"}  # top-level objects that are the book's


def json_view(report: dict) -> dict:
    """The report under the one-unit rule (a new dict; report is left as it is)."""
    out: dict = {}
    book: dict = {}
    for key, value in report.items():
        if key in BOOK_TIMES:
            book[key] = value
        elif key in MOVED:
            book[MOVED[key]] = value
        elif key == "wall_s":
            out["wall_ms"] = value * 1e3
        elif key == "per_replica":
            out[key] = [_row(row) for row in value]
        else:
            out[key] = value
    if book:
        out["book"] = book
    return out


def _row(row: dict) -> dict:
    book = {k: v for k, v in row.items() if k in BOOK_TIMES}
    rest = {k: v for k, v in row.items() if k not in BOOK_TIMES}
    return dict(rest, book=book) if book else rest


def flat(view: dict) -> dict:
    """json_view undone: the report's flat names again (a reader written for them, e.g. one
    that compares a sweep's row, which keeps them, with `lab simulate serving --json`)."""
    out = {k: v for k, v in view.items() if k not in ("book", "wall_ms", "per_replica")}
    book = dict(view.get("book") or {})
    for key, name in MOVED.items():
        if name in book:
            out[key] = book.pop(name)
    out.update(book)
    if "wall_ms" in view:
        out["wall_s"] = view["wall_ms"] / 1e3
    if "per_replica" in view:
        out["per_replica"] = [dict({k: v for k, v in row.items() if k != "book"}, **row.get("book", {}))
                              for row in view["per_replica"]]
    return out
