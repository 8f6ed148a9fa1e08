"""A sweep as the user writes it: `KEY=v1,v2`, `KEY=start:stop:step`, `seeds=0-7`,
`search=max_rate attainment=0.9 tolerance=0.02 [confidence=0.9]`, checked into a SweepSpec (ParamError on
anything bad, naming the key and what is valid).

Value syntax:
  KEY=a,b,c           alternatives of a one-number or text key (each checked by the kind)
  KEY=start:stop:step a number range, stop included (within 1e-9 of a step): 1:8:1 is 1..8
  KEY=4,4;8,8         alternatives of a list-valued key (rates_per_s...) split at ';'
  seeds=0-7 | 0,3,9 | 0-3,8   whole seeds; a descending range (7-0) is refused
Lists multiply into a grid (the first key varies slowest); every grid setting is run once
per seed. The kind (serving: core/sweep/serving.py) says which keys exist and checks each point.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.registry import ParamError
from core.serving.aliases import unknown_key
from core.units import NumberError, parse_number

MAX_POINTS = 100_000
MAX_SEEDS = 10_000
SWEEP_KEYS = ("seeds", "search", "attainment", "tolerance", "confidence")
SEARCHES = ("max_rate",)
DEFAULT_ATTAINMENT = 0.9
DEFAULT_TOLERANCE = 0.02  # relative width of the final bracket: the rate is known to 2%
# With a calibration profile's coefficient sets (core/calibrate/bands.py) a rate passes when
# P(meets the SLOs) over the sets is >= confidence; by default the same share as the
# attainment, which with bands.DEFAULT_SAMPLES sets lets a tenth of them fail: one outlier
# refit does not decide the capacity.
DEFAULT_CONFIDENCE = DEFAULT_ATTAINMENT


class SweepKind(Protocol):
    """What a kind of simulation gives the sweep (the serving one: core.sweep.serving.SERVING)."""

    name: str

    def value_kind(self, key: str) -> str | None:
        """'number', 'int', 'list' (a comma list itself), 'text', or None for an unknown key."""

    def unit(self, key: str) -> str | None:
        """The key's unit, so a range takes its suffixes (20ms:100ms:20ms for a key in ms)."""

    def valid_keys(self) -> list[str]: ...

    def fixed_keys(self) -> tuple[str, ...]:
        """Keys that must keep one value over the sweep (the shared trace, the SLOs)."""

    def resolve(self, raw: dict[str, str]) -> dict:
        """The point's fully resolved parameters as JSON values (ParamError if bad)."""

    def check_search(self, raw: dict[str, str]) -> None:
        """ParamError unless a capacity search can run on these keys (an SLO given...)."""

    def load_shared(self, fixed: dict[str, str]) -> Any:
        """The input every point shares (a trace read once), or None."""

    # evaluate(shared, payload) -> row: a module-level function (workers unpickle it by name)
    evaluate: Any


@dataclass(frozen=True)
class Search:
    kind: str = "max_rate"
    attainment: float = DEFAULT_ATTAINMENT
    tolerance: float = DEFAULT_TOLERANCE
    confidence: float | None = None  # None: DEFAULT_CONFIDENCE (applies only with coefficient sets)

    @property
    def min_probability(self) -> float:
        return DEFAULT_CONFIDENCE if self.confidence is None else self.confidence

    def as_json(self) -> dict:
        out = {"kind": self.kind, "attainment": self.attainment, "tolerance": self.tolerance}
        if self.confidence is not None:  # only when given: older sweep folders keep their identity
            out["confidence"] = self.confidence
        return out


@dataclass
class SweepSpec:
    kind: str
    given: dict[str, str]  # the keys as written
    axes: list[tuple[str, list[str]]]  # swept keys, each with its values as text (len >= 2)
    fixed: dict[str, str]  # keys with one value
    seeds: list[int] | None  # None: no seeds= given (the kind's default seed)
    search: Search | None
    points: list = field(default_factory=list)  # core.sweep.points.Point, filled by run.parse_sweep
    inputs_digest: str = ""  # the trace's content digest ('' without one)

    def settings(self) -> list[dict[str, str]]:
        """Every grid setting's keys as text (fixed keys included), the first axis slowest."""
        out = [dict(self.fixed)]
        for key, values in self.axes:
            out = [dict(s, **{key: v}) for s in out for v in values]
        return out

    def identity(self) -> dict:
        """What makes two sweeps the same sweep (a folder is refused for another one): the
        kind, the fixed keys, which keys are swept, the search and the inputs. The values
        along an axis may grow: rerunning with more of them computes only the new points."""
        fixed = {k: v for k, v in sorted(self.fixed.items()) if k != "trace"}  # the trace counts by content
        return {"kind": self.kind, "fixed": fixed,
                "axes": sorted(k for k, _ in self.axes), "seeded": self.seeds is not None,
                "search": None if self.search is None else self.search.as_json(), "inputs": self.inputs_digest}


def parse_grid(kind: SweepKind, raw: dict[str, str]) -> SweepSpec:
    """The given keys split into axes, fixed keys, seeds and search (values not yet
    checked by the kind: run.parse_sweep resolves every point)."""
    given = {str(k): str(v) for k, v in raw.items()}
    rest = dict(given)
    seeds = parse_seeds(rest.pop("seeds")) if "seeds" in rest else None
    search = _parse_search(rest)
    axes: list[tuple[str, list[str]]] = []
    fixed: dict[str, str] = {}
    for key, text in rest.items():
        vk = kind.value_kind(key)
        if vk is None:
            valid = list(SWEEP_KEYS) + kind.valid_keys()
            raise unknown_key(key, valid, f"unknown key of lab sweep {kind.name}; valid: {', '.join(valid)}")
        values = split_values(key, text, vk, kind.unit(key))
        if len(values) > 1 and key in kind.fixed_keys():
            raise ParamError(key, f"got {len(values)} values; valid: one value (the whole sweep shares it)")
        if len(values) == 1:
            fixed[key] = values[0]
        else:
            axes.append((key, values))
    count = math.prod(len(v) for _, v in axes) * (len(seeds) if seeds else 1)
    if count > MAX_POINTS:
        raise ParamError(axes[0][0] if axes else "seeds", f"{count:,} points; valid: at most {MAX_POINTS:,} per sweep")
    return SweepSpec(kind.name, given, axes, fixed, seeds, search)


def split_values(key: str, text: str, value_kind: str, unit: str | None = None) -> list[str]:
    """One key's alternatives as text (see the module's syntax)."""
    text = text.strip()
    if not text:
        raise ParamError(key, "empty; valid: a value, a list a,b,c or a range start:stop:step")
    if value_kind == "list":
        values = [v.strip() for v in text.split(";")]
    elif value_kind in ("number", "int") and text.count(":") == 2:
        return number_range(key, text, value_kind == "int", unit)
    else:
        values = [v.strip() for v in text.split(",")]
    if any(not v for v in values):
        raise ParamError(key, f"got {text!r}: an empty value in the list; valid: values separated by "
                              f"{';' if value_kind == 'list' else ','}")
    if len(set(values)) != len(values):
        raise ParamError(key, f"got {text!r}: a value twice; valid: distinct values")
    return values


def number_range(key: str, text: str, whole: bool, unit: str | None = None) -> list[str]:
    """start:stop:step with stop included, as exact decimal text (start + i·step, not a
    running sum, so 0.1 steps do not drift)."""
    valid = "valid: start:stop:step with step != 0 going from start towards stop (e.g. 1:8:1)"
    try:
        start, stop, step = (parse_number(p.strip(), unit) for p in text.split(":"))
    except (NumberError, ValueError) as err:
        raise ParamError(key, f"got {text!r} ({err}); {valid}") from None
    if step == 0 or not all(map(math.isfinite, (start, stop, step))):
        raise ParamError(key, f"got {text!r}: step {step:g}; {valid}")
    span = (stop - start) / step
    if span < -1e-9:
        raise ParamError(key, f"got {text!r}: an empty range; {valid}")
    count = int(math.floor(span + 1e-9)) + 1
    if count > MAX_POINTS:
        raise ParamError(key, f"got {text!r}: {count:,} values; valid: at most {MAX_POINTS:,}")
    values = [start + i * step for i in range(count)]
    if whole:
        if any(not float(v).is_integer() for v in (start, step)):
            raise ParamError(key, f"got {text!r}; valid: whole numbers for a whole-number key")
        return [str(int(v)) for v in values]
    return [repr(float(v)) for v in values]


def parse_seeds(text: str) -> list[int]:
    """'0-7', '3', '0,2,5', '0-3,8' -> the seeds in order (each once)."""
    valid = "valid: whole seeds 0..2147483647 as a list 0,1,2 or an ascending range 0-7"
    seeds: list[int] = []
    for part in str(text).split(","):
        part = part.strip()
        low, sep, high = part.partition("-")
        try:
            a = int(low)
            b = int(high) if sep else a
        except ValueError:
            raise ParamError("seeds", f"got {text!r}; {valid}") from None
        if a > b:
            raise ParamError("seeds", f"got {part!r}: a descending range; {valid}")
        if a < 0 or b > 2**31 - 1:
            raise ParamError("seeds", f"got {part!r}; {valid}")
        if len(seeds) + b - a + 1 > MAX_SEEDS:
            raise ParamError("seeds", f"got {text!r}: over {MAX_SEEDS:,} seeds; {valid}")
        seeds.extend(range(a, b + 1))
    if len(set(seeds)) != len(seeds):
        raise ParamError("seeds", f"got {text!r}: a seed twice; {valid}")
    return seeds


def _parse_search(rest: dict[str, str]) -> Search | None:
    kind = rest.pop("search", None)
    attainment = rest.pop("attainment", None)
    tolerance = rest.pop("tolerance", None)
    confidence = rest.pop("confidence", None)
    if kind is None:
        for name, value in (("attainment", attainment), ("tolerance", tolerance), ("confidence", confidence)):
            if value is not None:
                raise ParamError(name, "applies to a capacity search; valid: with search=max_rate")
        return None
    if kind.strip() not in SEARCHES:
        raise ParamError("search", f"got {kind!r}; valid: {', '.join(SEARCHES)}")
    a = _number("attainment", attainment, DEFAULT_ATTAINMENT, 0.0, 1.0, "a share in (0, 1], e.g. 0.9")
    t = _number("tolerance", tolerance, DEFAULT_TOLERANCE, 0.0, 0.5, "a relative width in (0, 0.5], e.g. 0.02")
    c = None if confidence is None else _number("confidence", confidence, DEFAULT_CONFIDENCE, 0.0, 1.0,
                                                 "a probability in (0, 1], e.g. 0.9")
    return Search(kind.strip(), a, t, c)


def _number(name: str, text: str | None, default: float, low: float, high: float, valid: str) -> float:
    if text is None:
        return default
    try:
        value = float(text)
    except ValueError:
        raise ParamError(name, f"got {text!r}; valid: {valid}") from None
    if not (low < value <= high):
        raise ParamError(name, f"got {text!r}; valid: {valid}")
    return value


def as_json_value(value: Any) -> Any:
    """A resolved parameter as JSON takes it (tuples as lists, numpy scalars as Python)."""
    if isinstance(value, (list, tuple)):
        return [as_json_value(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        return value.item()
    return value
