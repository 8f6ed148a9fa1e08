"""`--config FILE.toml|.yaml|.json` for calc, simulate, sweep, observe and calibrate: a
file of the same keys (our names or vLLM's, core/serving/aliases.py), under the command
line's (a key given on both: the command line's value). The keys resolved for a run are
written beside its result as config.toml in --out, so `--config DIR/config.toml` reruns
it exactly (a file's relative paths are written absolute).

A bad key or value from a file is refused naming the file, its line and the key
(`plan.toml:3: max_num_seq: did you mean max_num_seqs=? ...`). TOML by tomllib, JSON by
json; YAML only where PyYAML is importable (Load Lab does not depend on it).
"""
from __future__ import annotations

import json
import math
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from core.atomic_file import write_atomic
from core.registry import ParamError
from core.serving import aliases

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10 (requires-python): the same parser as a package
    import tomli as tomllib

CONFIG_COMMANDS = ("calc", "simulate", "sweep", "observe", "calibrate")
MAX_BYTES = 1 << 20  # a plan, not a data set
FILE_KEYS = ("trace", "lengths", "model", "hardware", "profile")  # values that may name a file
NAME = "config.toml"


@dataclass
class Config:
    path: str
    values: dict[str, str]  # our name -> the value as command-line text
    lines: dict[str, int]  # our name -> the file's line of it (0: unknown)


@dataclass
class _State:
    config: Config | None = None
    given: set = field(default_factory=set)  # keys the command line gave (they win over the file's)
    resolved: dict | None = None  # the keys of the run, file and command line merged


_state = _State()


def split_argv(argv: list[str]) -> tuple[list[str], str | None]:
    """argv without its --config FILE (or --config=FILE), and FILE; only for the commands
    that take keys (any other command's parser refuses --config as usual)."""
    words = [a for a in argv if not a.startswith("-")]
    if not words or words[0] not in CONFIG_COMMANDS:
        return argv, None
    out, path, i = [], None, 0
    while i < len(argv):
        item = argv[i]
        if item == "--config" or item.startswith("--config="):
            if path is not None:
                raise ParamError("--config", "given twice; valid: one --config FILE")
            if item == "--config":
                if i + 1 >= len(argv):
                    raise ParamError("--config", "needs a file; valid: --config FILE.toml|.yaml|.json")
                path, i = argv[i + 1], i + 2
            else:
                path, i = item.partition("=")[2], i + 1
            continue
        out.append(item)
        i += 1
    return out, path


def begin(path: str | None) -> None:
    """A command starts: its --config file (None: none) is read and held for merged()."""
    _state.config = load(path) if path else None
    _state.given, _state.resolved = set(), None


def end() -> None:
    _state.config, _state.given, _state.resolved = None, set(), None


def merged(given: dict[str, str]) -> dict[str, str]:
    """The file's keys under the command line's ones; remembered for write_beside()."""
    values = dict(_state.config.values) if _state.config else {}
    values.update(given)
    _state.given, _state.resolved = set(given), dict(values)
    return values


def record(key: str, value: str) -> None:
    """A key the command took from an option of its own (lab observe --max-concurrency N,
    --endpoint): config.toml keeps it too, so the rerun is the same run."""
    if _state.resolved is not None:
        _state.resolved[key] = value


def file_keys() -> set[str]:
    """The keys the --config file gave (none without one)."""
    return set(_state.config.values) if _state.config else set()


def words() -> list[str]:
    """The file's keys as key=value words (calibrate's items take them so)."""
    return [f"{k}={v}" for k, v in (_state.config.values.items() if _state.config else ())]


def located(err: ParamError) -> ParamError:
    """err, naming the file and line when its key came from the file (not the command line)."""
    cfg = _state.config
    if cfg is None or err.param not in cfg.values or err.param in _state.given:
        return err
    line = cfg.lines.get(err.param, 0)
    where = f"{cfg.path}:{line}" if line else cfg.path
    located_err = ParamError(f"{where}: {err.param}", err.message)
    located_err.where = getattr(err, "where", None)
    return located_err


def load(path: str) -> Config:
    """The keys of a TOML, YAML or JSON file, as command-line text under our names."""
    suffix = Path(path).suffix.lower()
    if suffix not in (".toml", ".json", ".yaml", ".yml"):
        raise ParamError("--config", f"got {path!r}; valid: a .toml, .yaml, .yml or .json file")
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as err:
        raise ParamError("--config", f"{path}: {err.strerror or err}; valid: a readable file") from None
    if len(data) > MAX_BYTES:
        raise ParamError("--config", f"{path}: over {MAX_BYTES} bytes; valid: a file of keys")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ParamError("--config", f"{path}: not UTF-8 text; valid: a TOML, YAML or JSON file") from None
    table = _parse(path, suffix, text)
    if not isinstance(table, dict):
        raise ParamError("--config", f"{path}: the top level is not a table of keys; valid: key = value lines")
    values: dict[str, str] = {}
    lines: dict[str, int] = {}
    for key, value in table.items():
        name = aliases.canonical(str(key))
        line = _line_of(text, str(key), suffix)
        flag = aliases.FLAGS.get(name)
        if flag is not None:  # vLLM's on/off flag as a key of its --config file: enable-prefix-caching: false
            if not isinstance(value, bool):
                where = f"{path}:{line}" if line else path
                raise ParamError(f"{where}: {name}", f"got {value!r}; valid: true or false (vLLM's flag "
                                                     f"--{name.replace('_', '-')})")
            name, value = flag[0], value == (flag[1] == "true")
        values[name] = _text(path, line, name, value)
        lines[name] = line
    if "goodput" in values:  # vllm bench's goodput = "ttft:2000 tpot:50": the slo_*_ms keys, on its line
        try:
            expanded = aliases.expand_goodput(values)
        except ParamError as err:
            raise ParamError(f"{path}:{lines['goodput']}: goodput", err.message) from None
        lines.update({k: lines["goodput"] for k in expanded if k not in values})
        values = expanded
    return Config(path, values, lines)


def _parse(path: str, suffix: str, text: str):
    if suffix == ".toml":
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise ParamError("--config", f"{path}: {err}; valid: TOML key = value lines") from None
    if suffix == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as err:
            raise ParamError("--config", f"{path}:{err.lineno}: {err.msg}; valid: one JSON object of keys") from None
    try:
        import yaml  # optional: not one of Load Lab's dependencies
    except ImportError:
        raise ParamError("--config", f"{path}: YAML needs PyYAML, which Load Lab does not depend on; valid: "
                                     "`pip install pyyaml`, or the same keys as TOML or JSON") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise ParamError("--config", f"{path}: {err}; valid: YAML key: value lines".replace("\n", " ")) from None


def _line_of(text: str, key: str, suffix: str) -> int:
    """The 1-based line where key is set (0 when not found, e.g. a JSON file on one line)."""
    k = re.escape(key)
    pattern = {".json": rf'"{k}"\s*:', ".toml": rf'^\s*(?:{k}|"{k}"|\'{k}\')\s*='}.get(suffix, rf'^\s*["\']?{k}["\']?\s*:')
    if suffix == ".toml":
        pattern += rf'|^\s*\[\[?\s*(?:{k}|"{k}")\s*[\].]'  # a table of that name
    for n, line in enumerate(text.splitlines(), 1):
        if re.search(pattern, line):
            return n
    return 0


def scalar_text(value) -> str | None:
    """A number, bool or text as the command line spells it (floats exactly, by repr;
    true/false), or None for anything else."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "inf" if math.isinf(value) and value > 0 else repr(value)
    if isinstance(value, (int, str)):
        return str(value)
    return None


def _text(path: str, line: int, name: str, value) -> str:
    """A file's value as the command line would give it: numbers exactly, lists comma-joined."""
    scalar = scalar_text(value)
    if scalar is not None:
        return scalar
    if isinstance(value, list) and all(isinstance(v, (int, float, str)) and not isinstance(v, bool) for v in value):
        return ",".join(_text(path, line, name, v) for v in value)
    where = f"{path}:{line}" if line else path
    raise ParamError(f"{where}: {name}", f"got {value!r}; valid: a number, text, true/false or a list of them")


def write_beside(out: str | None, command: str) -> str | None:
    """config.toml in the folder out with the keys the run resolved (None: no folder)."""
    if not out or _state.resolved is None or not os.path.isdir(out):
        return None
    target = Path(out) / NAME
    write_atomic(target, dumps(_state.resolved, command).encode("utf-8"))
    return str(target)


def dumps(values: dict[str, str], command: str, about: str = "the keys of the result in this folder",
          rerun: str | None = None) -> str:
    lines = [f"# {command}: {about} (the rest are the defaults).",
             f"# Rerun it: {rerun or f'{command} --config {NAME} --out DIR'}"]
    for key in values:  # in the order resolved: a sweep's axes run in it (the first slowest), so a rerun's rows do
        value = str(values[key])
        if key in FILE_KEYS and os.path.isfile(value):
            value = os.path.abspath(value)  # a rerun from another folder reads the same file
        lines.append(f"{_toml_key(key)} = {json.dumps(value, ensure_ascii=False)}")
    return "\n".join(lines) + "\n"


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)
