"""The `lab` command line: gui, list, calc, verify, simulate, snapshot, talk, sweep, observe,
calibrate, fidelity.

One argparse tree; `lab calc NAME` and `lab simulate KIND` get one sub-command per
calculator and simulation, generated from the registry, so `--help` lists every parameter
(unit, default, range, help) and every output. A parameter is given as `key=value` or as
`--key value` (`--key=value`), with dashes or underscores, or by vLLM's name for it
(core/serving/aliases.py); `--config FILE.toml|.yaml|.json` gives keys from a file, and a
run with --out DIR writes the keys it resolved to DIR/config.toml (lab/cli/config_file.py).

Exit codes: 0 fine, 1 a book figure does not match (verify), 2 invalid input (one line on
stderr naming the field and its valid range), 3 no display (gui). Output cut short by a
closed pipe (`lab list | head`) ends quietly with 0.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from typing import Any

from core import verify
from core.registry import ParamError, get, registry
from lab.cli import config_file
from lab.cli.args import input_error
from lab.cli.parser import COMMANDS, MODULE_COMMANDS, build_parser, command_module, parameter_values
from lab.cli.sweep import cmd_sweep

EXIT_OK = 0
EXIT_MISMATCH = 1
EXIT_USAGE = 2
EXIT_NO_DISPLAY = 3

def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "tolist"):
        return _jsonable(value.tolist())
    return value


def cmd_list(as_json: bool) -> int:
    calcs = list(registry())
    if as_json:
        print(json.dumps([
            {
                "name": c.name, "title": c.title, "ref": str(c.ref), "note": c.note,
                "params": [{"name": p.name, "unit": p.unit, "default": _jsonable(p.default), "min": p.min,
                            "max": p.max, "kind": p.kind, "choices": list(p.choices), "help": p.help,
                            "illustrative": p.illustrative} for p in c.params],
                "outputs": [{"name": o.name, "unit": o.unit, "formula": o.formula, "kind": o.kind} for o in c.outputs],
            } for c in calcs], ensure_ascii=False, indent=1))
        return EXIT_OK
    for c in calcs:
        print(f"{c.name:24s} {c.ref}  {c.title}")
        for p in c.params:
            tag = "  (示意)" if p.illustrative else ""
            print(f"    {p.name:28s} default {_default_text(p.default):>14s}   {p.range_text()}{tag}")
        print("    -> " + ", ".join(f"{o.name} [{o.unit}]" for o in c.outputs))
    return EXIT_OK


def _default_text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        text = ",".join(f"{v:g}" for v in value)
        return text if len(text) < 30 else text[:27] + "..."
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def cmd_calc(name: str, values: dict[str, str], as_json: bool) -> int:
    calc = get(name)
    result = calc.run(calc.resolve(values))
    if as_json:
        print(json.dumps({o.name: _jsonable(result.get(o.name)) for o in calc.outputs}, ensure_ascii=False))
        return EXIT_OK
    print(f"{calc.title}  [{calc.ref}]" + (f"  {calc.note}" if calc.note else ""))
    for o in calc.outputs:
        if o.kind != "scalar":
            continue
        formula = f"   = {o.formula}" if o.formula else ""
        print(f"  {o.name:30s} {calc.format_output(o.name, result.get(o.name)):>22s}{formula}")
    return EXIT_OK


def cmd_verify(as_json: bool) -> int:
    rows = verify.verify_all()  # looked up at call time (tests replace it)
    failed = [r for r in rows if not r.ok]
    if as_json:
        print(json.dumps({"rows": [r.as_json() for r in rows], "passed": len(rows) - len(failed),
                          "failed": len(failed)}, ensure_ascii=False, default=_jsonable, indent=1))
    else:
        print(f"{'calculator':24s} {'output':28s} {'book':>16s} {'computed':>16s}  {'tolerance':10s} ok  book's text")
        for r in rows:
            params = " " + " ".join(f"{k}={_short(v)}" for k, v in r.params.items()) if r.params else ""
            mark = "ok" if r.ok else "MISMATCH"
            derived = " (derived: the book asks, prints no number)" if r.derived else ""
            print(f"{r.calculator:24s} {r.output:28s} {_num(r.book_value):>16s} {_num(r.computed):>16s}  "
                  f"{r.tolerance_text:10s} {mark:3s} {r.printed}{params}{derived}")
        print(f"{len(rows) - len(failed)} passed, {len(failed)} failed")
    return EXIT_MISMATCH if failed else EXIT_OK


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 24 else text[:21] + "..."


def _num(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def has_display() -> bool:
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform and platform.split(":")[0] != "xcb" and platform != "wayland":
        return True  # offscreen, vnc, eglfs...: the user chose a platform
    if sys.platform != "linux":
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def window_problem() -> str | None:
    """Why no window can start here (lab.display_check), before Qt would abort on it."""
    from lab.display_check import platform_problem

    return platform_problem()


def cmd_gui() -> int:
    if not has_display():
        print("lab: no display here (DISPLAY and WAYLAND_DISPLAY are unset); try "
              "`lab snapshot request --out request.png` or `lab verify`.", file=sys.stderr)
        return EXIT_NO_DISPLAY
    problem = window_problem()
    if problem:
        print(f"lab: {problem}", file=sys.stderr)
        return EXIT_NO_DISPLAY
    from lab.app import run_gui  # lazy: Qt, which no other command loads

    return run_gui()


def cmd_talk(path: str) -> int:
    if not has_display():
        print("lab: no display here (DISPLAY and WAYLAND_DISPLAY are unset); try "
              f"`lab snapshot --talk {path} --scene 1 --out scene1.png`.", file=sys.stderr)
        return EXIT_NO_DISPLAY
    problem = window_problem()
    if problem:
        print(f"lab talk: {problem}", file=sys.stderr)
        return EXIT_NO_DISPLAY
    from lab.app import run_talk  # lazy: Qt, which no other command loads

    return run_talk(path)


def cmd_snapshot(panel: str | None, out: str | None, size: str, list_only: bool, **options) -> int:
    if not has_display():
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    # Lazy: Qt, which no other command loads.
    from lab.app import panel_keys, snapshot
    from lab.talk import snapshot_scene

    keys = ["main"] + panel_keys()
    if list_only:
        print("\n".join(keys))
        return EXIT_OK
    if options.get("talk") or options.get("scene"):  # a talk's scene names its panel
        options["scene"] = str(snapshot_scene(options["talk"], options["scene"], panel))
        panel = "main"
    if panel not in keys:
        got = "none given" if panel is None else f"no panel {panel!r}"
        raise input_error("PANEL", f"{got}; valid: {', '.join(keys)}")
    if not out:
        raise input_error("--out", "required; valid: a .png, .svg or .pdf path to write")
    width, sep, height = size.lower().partition("x")
    try:
        w, h = int(width), int(height)
    except ValueError:
        raise input_error("--size", f"got {size!r}; valid: WxH with whole numbers 200..8000") from None
    if not sep or not (200 <= w <= 8000 and 200 <= h <= 8000):
        raise input_error("--size", f"got {size!r}; valid: WxH with whole numbers 200..8000")
    try:
        snapshot(panel, out, w, h, **options)
    except OSError as err:
        raise input_error("--out", f"{err}; valid: a writable file (.png, .svg or .pdf) in an existing folder") from None
    print(out)
    return EXIT_OK


def cmd_simulate(kind: str, values: dict[str, str], out: str | None, as_json: bool, fmt: str | None = None) -> int:
    from lab.cli.simulate import simulate  # lazy: the serving engine and numpy

    if as_json and fmt not in (None, "json"):
        raise input_error("--format", f"got {fmt!r} with --json; valid: one of them (--json is --format json)")
    report, text = simulate(kind, values, out, "json" if as_json else fmt or "text")
    print(text)
    return EXIT_OK


def _where(argv: Sequence[str], args: argparse.Namespace | None) -> str:
    """'lab calc request.split', 'lab simulate serving', ...: the prefix of an error line."""
    if args is not None:
        command = args.command or "gui"
        name = getattr(args, "name", None) or getattr(args, "kind", None)
        return " ".join(["lab", command] + ([name] if name else []))
    words = _command_words(list(argv))  # 'simulate serving': a --config file's error names the command as a key's does
    return "lab" + (" " + " ".join(words) if words and words[0] in COMMANDS else "")


def _run(argv: list[str]) -> int:
    try:
        argv, config = config_file.split_argv(argv)
        config_file.begin(config)
    except ParamError as err:
        print(f"{_where(argv, None)}: {err}", file=sys.stderr)
        return EXIT_USAGE
    try:
        code = _command(argv)
        if code == EXIT_OK and args_out(argv):  # the keys of the result beside it (lab/cli/config_file.py)
            config_file.write_beside(args_out(argv), "lab " + " ".join(_command_words(argv))
                                     + (" URL" if _command_words(argv)[:1] == ["observe"] else ""))
        return code
    finally:
        config_file.end()


def args_out(argv: list[str]) -> str | None:
    """The --out folder of a command line (config.toml goes there), or None."""
    for i, item in enumerate(argv):
        if item == "--out" and i + 1 < len(argv):
            return argv[i + 1]
        if item.startswith("--out="):
            return item.partition("=")[2]
    return None


def _command_words(argv: list[str]) -> list[str]:
    """'simulate serving', 'sweep serving', 'observe': the command and its kind."""
    words = [a for a in argv if not a.startswith("-") and "=" not in a]
    take = 2 if words and words[0] in ("simulate", "sweep", "calc") else 1
    return words[:take]


def _command(argv: list[str]) -> int:
    words = [a for a in argv if not a.startswith("-")]
    args = None
    try:
        try:
            name = words[1] if len(words) > 1 and words[0] == "calc" else None  # `lab calc NAME`: its parser alone
            args, extras = build_parser(words[0] if words else None, name).parse_known_args(argv)
        except SystemExit as done:  # --help and --version print, then exit 0
            return EXIT_OK if done.code in (None, 0) else EXIT_USAGE
        command = args.command or "gui"
        if command in MODULE_COMMANDS:
            return command_module(command).run(args, extras)
        if extras and command not in ("calc", "simulate", "sweep"):
            raise input_error(extras[0], f"unknown option; valid: see `lab {command} --help`")
        if command == "gui":
            return cmd_gui()
        if command == "list":
            return cmd_list(args.json)
        if command == "calc":
            return cmd_calc(args.name, parameter_values(args, extras, [p.name for p in get(args.name).params]),
                            args.json)
        if command == "verify":
            return cmd_verify(args.json)
        if command == "talk":
            return cmd_talk(args.file)
        if command == "sweep":
            return cmd_sweep(args.kind, parameter_values(args, extras), args.out, args.engine, args.workers,
                             args.address, args.json, args.force)
        if command == "snapshot":
            return cmd_snapshot(args.panel, args.out, args.size, args.list, fmt=args.fmt, lang=args.lang,
                                theme=args.theme, zoom=args.zoom, talk=args.talk, scene=args.scene)
        return cmd_simulate(args.kind, parameter_values(args, extras), args.out, args.json, args.fmt)
    except ParamError as err:
        err = config_file.located(err)  # a key from a --config file: its file and line
        print(f"{getattr(err, 'where', None) or _where(argv, args)}: {err}", file=sys.stderr)
        return EXIT_USAGE


# True when main() runs as the process's command (`lab ...`, argv from the command line), not
# called from Python (tests, scripts): a command may then change what the process imports.
OWN_PROCESS = False


def main(argv: Sequence[str] | None = None) -> int:
    global OWN_PROCESS
    OWN_PROCESS = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        code = _run(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader stopped (`lab list | head -1`): end quietly. Python flushes stdout once
        # more at exit, so point it at devnull first (the recipe of Python's signal docs).
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (AttributeError, OSError, ValueError):
            pass
        return EXIT_OK
    return code


if __name__ == "__main__":
    sys.exit(main())
