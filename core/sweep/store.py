"""A sweep's folder, resumable:

  sweep.json       the sweep (its keys as given, its identity and the identity's hash);
                   a folder of another sweep is refused unless force
  points.jsonl     one line {"key": ..., "row": {...}} per finished point, appended and
                   flushed as each finishes (Ctrl+C or a crash keeps them; a torn last line
                   is skipped when read)
  results.csv      one row per point of the sweep (finished ones), written at the end and
  results.parquet  when a sweep stops early; the same columns in both
  summary.json     core/sweep/summary.py's summary
  .lock            held while a sweep writes the folder (a second one is refused)

Rows are JSON-able dicts of scalars (floats as they are: repr round-trips exactly).
"""
from __future__ import annotations

import contextlib
import csv
import io
import json
import os
from pathlib import Path
from typing import IO, Any

from core.atomic_file import write_atomic
from core.registry import ParamError
from core.sweep.points import canonical, digest

SPEC_FILE = "sweep.json"
POINTS_FILE = "points.jsonl"
LOCK_FILE = ".lock"
FILES = ("results.csv", "results.parquet", "summary.json")


class Store:
    def __init__(self, folder: str | os.PathLike, spec, force: bool = False):
        self.folder = Path(folder)
        self.spec = spec
        self._points: IO[str] | None = None  # points.jsonl, open for appending once the first point finishes
        identity = spec.identity()
        record = {"kind": spec.kind, "given": spec.given, "identity": identity, "identity_sha256": digest(identity)}
        self._lock: IO[Any] | None = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._take_lock()
            path = self.folder / SPEC_FILE
            if path.exists() and not force:
                old = _read_json(path)
                if old.get("identity_sha256") != record["identity_sha256"]:
                    raise ParamError("--out", f"{str(self.folder)!r} holds another sweep ({_difference(old, identity)}); "
                                              "valid: a new folder, the same sweep (more values along its axes are "
                                              "fine), or --force to take it over")
            write_atomic(path, (json.dumps(record, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
        except OSError as err:
            self.release()
            raise ParamError("--out", f"cannot write to {str(self.folder)!r} ({err.strerror}); valid: a writable folder") from None
        except BaseException:  # refused (another sweep's folder): let go of it at once
            self.release()
            raise

    def _take_lock(self) -> None:
        """One sweep writes a folder at a time (two would interleave points.jsonl and race on
        results): an exclusive lock on DIR/.lock, held until close; the OS drops it if the
        process dies."""
        try:
            import fcntl  # POSIX only: the lock is skipped elsewhere
        except ImportError:  # not POSIX: no lock, as before
            return
        handle = open(self.folder / LOCK_FILE, "a")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise ParamError("--out", f"another sweep is writing {str(self.folder)!r} now; valid: wait for it, "
                                      "or another folder") from None
        self._lock = handle

    def load(self) -> dict[str, dict]:
        """The finished points: key -> row (the last line of a key wins; torn lines skipped)."""
        path = self.folder / POINTS_FILE
        rows: dict[str, dict] = {}
        if not path.exists():
            return rows
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                try:
                    item = json.loads(line)
                    rows[str(item["key"])] = dict(item["row"])
                except (ValueError, KeyError, TypeError):
                    continue  # a line cut by a crash mid-write
        return rows

    def append(self, key: str, row: dict) -> None:
        """One finished point, handed to the OS before the next is reported: a Ctrl+C or a
        crash of this process keeps it (flushed, not fsync'd: a sweep of many small points
        would wait on the disk; a power cut may lose the last few, which a rerun computes)."""
        line = json.dumps({"key": key, "row": row}, ensure_ascii=False, allow_nan=True) + "\n"
        if self._points is None:
            path = self.folder / POINTS_FILE
            torn = path.exists() and path.stat().st_size > 0 and not _ends_with_newline(path)
            self._points = open(path, "a", encoding="utf-8")
            if torn:  # a line cut by a crash: the next one starts on its own line
                self._points.write("\n")
        try:
            self._points.write(line)
            self._points.flush()
        except OSError as err:  # a full disk: say so (exit 2); a rerun resumes from what reached the file
            raise self._refused(err) from None
        self.last_key = key  # run_sweep's check after a Ctrl+C: did this one reach the file?

    def close(self) -> None:
        if self._points is not None:
            points, self._points = self._points, None
            try:
                points.close()
            except OSError as err:
                raise self._refused(err) from None

    def _refused(self, err: OSError) -> ParamError:
        return ParamError("--out", f"cannot write to {str(self.folder)!r} ({err.strerror}); valid: a writable folder "
                                   "with room (a rerun resumes from the points kept)")

    def release(self) -> None:
        """Done with the folder: points closed, the lock let go (also after a failed
        write, whose error is the one reported)."""
        with contextlib.suppress(ParamError):
            self.close()
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def write_results(self, rows: list[dict], summary: dict) -> list[str]:
        """results.csv, results.parquet and summary.json, each written whole or not at all."""
        self.close()
        try:
            write_atomic(self.folder / "results.csv", csv_bytes(rows))
            write_atomic(self.folder / "results.parquet", parquet_bytes(rows))
            write_atomic(self.folder / "summary.json",
                         (json.dumps(summary, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
        except OSError as err:
            raise ParamError("--out", f"cannot write to {str(self.folder)!r} ({err.strerror}); valid: a writable folder") from None
        return list(FILES)


def columns(rows: list[dict]) -> list[str]:
    """Every column, in first-seen order."""
    seen: dict[str, None] = {}
    for row in rows:
        for name in row:
            seen.setdefault(name, None)
    return list(seen)


def csv_bytes(rows: list[dict]) -> bytes:
    names = columns(rows)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(names)
    for row in rows:
        w.writerow([_cell(row.get(n)) for n in names])
    return out.getvalue().encode("utf-8")


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)  # the exact float back with float(text)
    return str(value)


def parquet_bytes(rows: list[dict]) -> bytes:
    """A parquet file of the rows: a column whose values do not share one type (numbers and
    text, say) is stored as text, JSON of each value."""
    # Lazy: pyarrow takes about as long to import as the rest of a sweep's start.
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = {}
    for name in columns(rows):
        values = [row.get(name) for row in rows]
        try:
            arrays[name] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            arrays[name] = pa.array([None if v is None else (v if isinstance(v, str) else canonical(v)) for v in values])
    table = pa.table(arrays) if arrays else pa.table({"point": pa.array([], pa.string())})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()


def _read_json(path: Path) -> dict:
    try:
        return dict(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, TypeError):
        return {}


def _difference(old: dict, new: dict) -> str:
    """What differs, in a few words, for the refusal."""
    was = old.get("identity") or {}
    changed = [k for k in ("kind", "fixed", "axes", "seeded", "search", "inputs") if was.get(k) != new.get(k)]
    if not was:
        return "not a sweep folder this build can read"
    return "its " + ", ".join({"inputs": "trace content", "fixed": "fixed keys", "axes": "swept keys",
                               "seeded": "seeds"}.get(k, k) for k in changed) + " differ"


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as fh:
        fh.seek(-1, os.SEEK_END)
        return fh.read(1) == b"\n"
