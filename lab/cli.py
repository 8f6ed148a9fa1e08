"""The `lab` command line: gui, list, calc, verify, simulate, snapshot.

Exit codes: 0 fine, 1 a book figure does not match (verify) or no display (gui),
2 invalid input (a one-line message on stderr naming the field and its valid range).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Any, Sequence

EXIT_MISMATCH = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """Bad command-line input; printed as one line, exit code 2."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lab", description="Load Lab: the load AI serving and training put on machines (AI Infra, ch. 3).")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("gui", help="open the lab window (the default)")
    p_list = sub.add_parser("list", help="calculators with their parameters and outputs")
    p_list.add_argument("--json", action="store_true")
    p_calc = sub.add_parser("calc", help="run one calculator: lab calc NAME key=value ...")
    p_calc.add_argument("name")
    p_calc.add_argument("assignments", nargs="*", metavar="key=value")
    p_calc.add_argument("--json", action="store_true", help="one JSON object {output: number} in base units")
    p_verify = sub.add_parser("verify", help="every book figure beside the computed value")
    p_verify.add_argument("--json", action="store_true")
    p_sim = sub.add_parser("simulate", help="run a simulation headless: lab simulate serving key=value ...")
    p_sim.add_argument("kind")
    p_sim.add_argument("rest", nargs=argparse.REMAINDER)
    p_snap = sub.add_parser("snapshot", help="render a panel offscreen to a PNG")
    p_snap.add_argument("panel", help="panel key (see `lab snapshot --list`) or 'main' for the whole window")
    p_snap.add_argument("--out", required=False)
    p_snap.add_argument("--size", default="1600x1000", help="WxH in pixels (default 1600x1000)")
    p_snap.add_argument("--list", action="store_true", help="list the panel keys")
    return parser


def parse_assignments(assignments: Sequence[str]) -> dict[str, str]:
    values: dict[str, str] = {}
    for item in assignments:
        key, sep, value = item.partition("=")
        key = key.strip().lstrip("-")
        if not sep or not key:
            raise UsageError(f"{item!r}: expected key=value (for example input_tokens=1024)")
        values[key] = value
    return values


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "tolist"):
        return _jsonable(value.tolist())
    return value


def cmd_list(as_json: bool) -> int:
    from core.registry import registry

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
        return 0
    for c in calcs:
        print(f"{c.name:24s} {c.ref}  {c.title}")
        for p in c.params:
            tag = "  (示意)" if p.illustrative else ""
            print(f"    {p.name:28s} default {_default_text(p.default):>14s}   {p.range_text()}{tag}")
        print("    -> " + ", ".join(f"{o.name} [{o.unit}]" for o in c.outputs))
    return 0


def _default_text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        text = ",".join(f"{v:g}" for v in value)
        return text if len(text) < 30 else text[:27] + "..."
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def cmd_calc(name: str, assignments: Sequence[str], as_json: bool) -> int:
    from core.registry import get

    calc = get(name)
    result = calc.run(parse_assignments(assignments))
    if as_json:
        print(json.dumps({o.name: _jsonable(result.get(o.name)) for o in calc.outputs}, ensure_ascii=False))
        return 0
    print(f"{calc.title}  [{calc.ref}]" + (f"  {calc.note}" if calc.note else ""))
    for o in calc.outputs:
        if o.kind != "scalar":
            continue
        formula = f"   = {o.formula}" if o.formula else ""
        print(f"  {o.name:30s} {calc.format_output(o.name, result.get(o.name)):>22s}{formula}")
    return 0


def cmd_verify(as_json: bool) -> int:
    from core.verify import verify_all

    rows = verify_all()
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
    return EXIT_MISMATCH if failed else 0


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


def cmd_gui() -> int:
    if not has_display():
        print("lab: no display here (DISPLAY and WAYLAND_DISPLAY are unset); try "
              "`lab snapshot request --out request.png` or `lab verify`.", file=sys.stderr)
        return EXIT_MISMATCH
    from lab.app import run_gui

    return run_gui()


def cmd_snapshot(panel: str | None, out: str | None, size: str, list_only: bool) -> int:
    if not has_display():
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from lab.app import panel_keys, snapshot

    if list_only:
        print("\n".join(["main"] + panel_keys()))
        return 0
    if not out:
        raise UsageError("--out: required, a .png path to write")
    width, sep, height = size.lower().partition("x")
    try:
        w, h = int(width), int(height)
    except ValueError:
        raise UsageError(f"--size: got {size!r}; valid: WxH with whole numbers 200..8000") from None
    if not sep or not (200 <= w <= 8000 and 200 <= h <= 8000):
        raise UsageError(f"--size: got {size!r}; valid: WxH with whole numbers 200..8000")
    keys = ["main"] + panel_keys()
    if panel not in keys:
        raise UsageError(f"PANEL: no panel {panel!r}; valid: {', '.join(keys)}")
    try:
        snapshot(panel, out, w, h)
    except OSError as err:
        raise UsageError(f"--out: {err}; valid: a writable .png path") from None
    print(out)
    return 0


def cmd_simulate(kind: str, rest: Sequence[str]) -> int:
    try:
        from lab.simulate import run_simulation
    except ImportError:
        raise UsageError(f"simulate: no simulations in this build (asked for {kind!r})") from None
    return run_simulation(kind, list(rest))


def main(argv: Sequence[str] | None = None) -> int:
    from core.registry import ParamError

    args = _parser().parse_args(argv)
    command = args.command or "gui"
    try:
        if command == "gui":
            return cmd_gui()
        if command == "list":
            return cmd_list(args.json)
        if command == "calc":
            return cmd_calc(args.name, args.assignments, args.json)
        if command == "verify":
            return cmd_verify(args.json)
        if command == "snapshot":
            return cmd_snapshot(args.panel, args.out, args.size, args.list)
        if command == "simulate":
            return cmd_simulate(args.kind, args.rest)
    except (ParamError, UsageError) as err:
        where = f"lab {command}" + (f" {args.name}" if command == "calc" else "")
        print(f"{where}: {err}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
