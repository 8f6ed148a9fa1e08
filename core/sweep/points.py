"""A sweep's points and their keys. A point is one grid setting at one seed; its key is
the sha256 of everything its result depends on: the kind, the fully resolved parameters
(after scenario/model/hardware expansion, so `model=qwen3-8b` and the same numbers typed
out are one point), the seed, the search and the inputs' CONTENT digest (a trace renamed
or touched is the same trace; an edited one is not). Equal keys, equal rows: the store
reuses a finished point by its key."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

KEY_VERSION = 1  # bump when a row's meaning changes, so old points are not reused
DIGEST_CHUNK = 1 << 20


@dataclass(frozen=True)
class Point:
    key: str  # sha256 hex of the point
    setting: str  # sha256 hex of the point without its seed (seeds of one setting share it)
    seed: int | None
    raw: dict  # the point's keys as text, as `lab simulate KIND` takes them
    params: dict  # fully resolved parameters (JSON values)


def canonical(value) -> str:
    """One text per value: sorted keys, floats as repr (exact), no spaces."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=True)


def digest(value) -> str:
    return hashlib.sha256(canonical(value).encode("ascii")).hexdigest()


def file_digest(path: str | Path) -> str:
    """sha256 of a file's bytes (not its name or mtime)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(DIGEST_CHUNK), b""):
            h.update(block)
    return h.hexdigest()


def make_point(kind: str, setting: dict, raw: dict, params: dict, seed: int | None, search: dict | None,
               inputs: str) -> Point:
    """setting: the grid setting's keys as text (no seed); it names the group of seeds in
    the summary (the point's own key is by its resolved parameters)."""
    base = {"v": KEY_VERSION, "kind": kind, "search": search, "inputs": inputs}
    return Point(key=digest(dict(base, params=params, seed=seed)), setting=digest(dict(base, setting=setting)),
                 seed=seed, raw=dict(raw), params=params)
