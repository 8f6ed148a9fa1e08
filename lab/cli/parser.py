"""The `lab` command line's one argparse tree, generated from the registry: `lab calc NAME`
and `lab simulate KIND` get one sub-command per calculator and simulation, so `--help`
lists every parameter (unit, default, range, help, and vLLM's names for it beside ours) and
every output; parameters come as `key=value`, `--key value` or `--key=value`, with dashes
or underscores. Usage errors become the one error type (ParamError).
"""
from __future__ import annotations

import argparse
import difflib
import importlib
import re
from collections.abc import Sequence

from core.registry import ParamError, get, registry
from core.serving import aliases
from lab import __version__
from lab.cli import config_file
from lab.cli.args import (
    ARGS,
    PARAM,
    SUFFIXES,
    Formatter,
    add_params,
    help_text,
    input_error,
    metavar,
    outputs_text,
    param_help,
    wrapped,
)
from lab.cli.sweep import add_parser as add_sweep_parser

# Commands in modules of their own (lab/cli/NAME.py: add_parser(sub, Formatter) and
# run(args, extras) -> exit code): the measure-and-calibrate loop of issue 13.
MODULE_COMMANDS = ("observe", "calibrate", "fidelity")
COMMANDS = ("gui", "list", "calc", "verify", "simulate", "snapshot", "talk", "sweep") + MODULE_COMMANDS


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error becomes the one error type (one line, exit 2)."""

    def error(self, message: str):
        err = _usage_error(message, self.prog)
        err.where = self.prog  # 'lab calc request.split': the prefix of the error line
        raise err


# What an invalid choice of a sub-command was, and where the valid ones are listed.
_CHOICES = {"command": ("command", ", ".join(COMMANDS)),
            "NAME": ("calculator", "see `lab list`"),
            "KIND": ("simulation", None)}


def _usage_error(message: str, prog: str):
    hint = f"see `{prog} --help`"
    choice = re.match(r"argument (\S+): invalid choice: (.*?) \(choose from (.*)\)$", message)
    if choice:
        field, got, listed = choice.groups()
        noun, valid = _CHOICES.get(field, ("value", None))
        if field == "KIND":
            from lab.cli.simulate import KINDS  # lazy: the engine and numpy, for `lab simulate` only

            valid = ", ".join(KINDS)
        names = [n.strip().strip("'") for n in listed.split(",")]
        close = difflib.get_close_matches(got.strip("'"), names, n=1)
        meant = f"did you mean {close[0]}? " if close else ""
        return input_error(field, f"{meant}no {noun} {got}; valid: {valid or listed.replace(chr(39), '')}")
    required = re.match(r"the following arguments are required: ([^,]+)", message)
    if required:
        return input_error(required.group(1), f"required; valid: {hint}")
    unknown = re.match(r"unrecognized arguments: (\S+)", message)
    if unknown:
        return input_error(unknown.group(1), f"unknown option; valid: {hint}")
    argument = re.match(r"argument (\S+?)(?:/\S+)?: (.*)$", message)
    if argument:
        return input_error(argument.group(1), f"{argument.group(2)}; valid: {hint}")
    return input_error("lab", f"{message}; valid: {hint}")


def _calc_parsers(sub, name: str | None = None) -> None:
    # `lab calc NAME`: NAME's parser alone, so only NAME's module is imported (core.registry.get).
    calcs = [get(name)] if name is not None and _is_calculator(name) else registry()
    for calc in calcs:
        outputs = outputs_text(calc)
        about = f"{calc.title}  [{calc.ref}]" + (f"\n{calc.note}" if calc.note else "")
        p = sub.add_parser(calc.name, prog=f"lab calc {calc.name}", help=help_text(calc.title), usage=f"lab calc {calc.name} [{ARGS} ...] [--json]",
                           description=help_text(about), epilog=help_text(f"outputs:\n{outputs}\n\n{wrapped(SUFFIXES)}"),
                           formatter_class=Formatter, allow_abbrev=False)
        p.add_argument("--json", action="store_true", help="one JSON object {output: number} in base units")
        add_params(p, calc.params, f"parameters ({ARGS})")


def _simulate_parsers(sub) -> None:
    # Lazy: these load the serving engine and numpy, which `lab simulate` alone needs.
    from core.serving.simulate_keys import TEXT_KEYS
    from core.serving.vllm_metrics import NAMES
    from lab.cli.simulate import KINDS, OUTPUT_FORMATS, TRACE_HELP, extra_params
    from lab.cli.simulate_rl import add_parser as add_rl_parser
    from lab.cli.simulate_voice import add_parser

    for kind, (calc_name, about) in KINDS.items():
        if calc_name is None:  # a simulation with its own keys (voice, rl)
            (add_rl_parser if kind == "rl" else add_parser)(sub, kind)
            continue
        calc = get(calc_name)
        vllm_names = wrapped(", ".join(NAMES))
        p = sub.add_parser(kind, prog=f"lab simulate {kind}", help=help_text(about),
                           usage=f"lab simulate {kind} [{ARGS} ...] [--json | --format text|json|aiperf|prometheus] [--out DIR]",
                           description=help_text(f"{about}. Parameters are {calc_name}'s ({calc.ref})."),
                           epilog=help_text(f"prints (--json keys; one unit per JSON: times in ms outside book, "
                                             f"the book's seconds under book): these outputs of {calc_name} (p95 by "
                                             f"nearest rank, the book's; those in seconds under book, with "
                                             f"book.observed and book.band), and source, seeds, out\n"
                                             f"{outputs_text(calc, True)}\n\nand vllm bench serve's, with its "
                                             f"definitions (ms; median/p90/p99 interpolated linearly as numpy):\n"
                                             f"{vllm_names}\n\n{wrapped(SUFFIXES)}"),
                           formatter_class=Formatter, allow_abbrev=False)
        p.add_argument("--json", action="store_true", help="print the summary as one JSON object (= --format json)")
        p.add_argument("--format", dest="fmt", choices=OUTPUT_FORMATS, default=None,
                       help="text (default), json, aiperf: AIPerf's per-request records (profile_export.jsonl "
                            "in --out, else printed as JSON lines), or prometheus: the final metrics and TTFT/TPOT/"
                            "E2E histograms in Prometheus's text format, vLLM's names (metrics.prom in --out, else "
                            "printed). A trace's own format is the key format=")
        p.add_argument("--out", metavar="DIR", help="write requests.csv, series.csv (vLLM's metric names), "
                                                    "preemptions.csv, trace.json (Perfetto / chrome://tracing) and "
                                                    "summary.json (and profile_export.jsonl with --format aiperf, "
                                                    "metrics.prom with --format prometheus)")
        add_params(p, calc.params, f"parameters ({ARGS})")
        trace_format = next(q for q in extra_params(kind) if q.name == "format")
        extra = p.add_argument_group(f"besides {calc_name}'s parameters",
                                     help_text(f"format=FMT (only as key=value; --format is the output's): "
                                                f"{param_help(trace_format)}"))
        for q in extra_params(kind):
            if q.name == "format":
                continue
            extra.add_argument(f"--{q.name}", *aliases.aliases_of(q.name), dest=PARAM + q.name, metavar=metavar(q), default=argparse.SUPPRESS,
                               help=param_help(q))
        extra.add_argument("--trace", *aliases.aliases_of("trace"), dest=PARAM + "trace", metavar="FILE", default=argparse.SUPPRESS,
                           help=help_text(TRACE_HELP))
        for name, text in TEXT_KEYS.items():
            extra.add_argument(f"--{name}", dest=PARAM + name, metavar="START:END" if name == "window" else "TEXT",
                               default=argparse.SUPPRESS, help=help_text(text))


def _is_calculator(name: str) -> bool:
    try:
        get(name)
    except ParamError:
        return False
    return True


def command_module(name: str):
    """lab/cli/NAME.py of a module command (imported only when the parser is built)."""
    return importlib.import_module(f"lab.cli.{name}")


def build_parser(command: str | None = None, name: str | None = None) -> argparse.ArgumentParser:
    """The whole tree; the registry's part (calc NAME, simulate KIND) only for that command,
    so `lab`, `lab --version` and `lab list` start without building it; with name (the word
    after `calc`), that calculator's parser alone. Another command's own options only for
    that command (or none given): `lab calc` and `lab list` import no sweep or observe code."""
    parser = _Parser(prog="lab", allow_abbrev=False,
                     description="Load Lab: the load AI serving and training put on machines (AI Infra, ch. 3).",
                     epilog="exit codes: 0 fine, 1 verify mismatch, 2 bad input, 3 no display")
    parser.add_argument("--version", action="version", version=f"lab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="command")
    sub.add_parser("gui", help="open the lab window (the default)")
    p_list = sub.add_parser("list", help="calculators with their parameters and outputs")
    p_list.add_argument("--json", action="store_true")
    p_calc = sub.add_parser("calc", help="run one calculator: lab calc NAME key=value ... (lab calc NAME --help)",
                            usage=f"lab calc NAME [{ARGS} ...] [--json]")
    calcs = p_calc.add_subparsers(dest="name", metavar="NAME", required=True)
    if command == "calc":
        _calc_parsers(calcs, name)
    p_verify = sub.add_parser("verify", help="every book figure beside the computed value")
    p_verify.add_argument("--json", action="store_true")
    p_sim = sub.add_parser("simulate", help="run a simulation headless: lab simulate serving key=value ...",
                           usage=f"lab simulate KIND [{ARGS} ...] [--json | --format text|json|aiperf|prometheus] [--out DIR]")
    kinds = p_sim.add_subparsers(dest="kind", metavar="KIND", required=True)
    if command == "simulate":
        _simulate_parsers(kinds)
    whole = command not in COMMANDS  # none given, or not a command: every command's help
    if whole or command == "sweep":
        add_sweep_parser(sub, Formatter)
    else:
        sub.add_parser("sweep")
    for module in MODULE_COMMANDS:
        if whole or command == module:
            # a command's key options (lab simulate serving's, every spelling) only when it
            # runs: with none given (`lab`, `lab --version`, `lab --help`) its help line is all
            command_module(module).add_parser(sub, Formatter, keys=command == module)
        else:
            sub.add_parser(module)
    p_snap = sub.add_parser("snapshot", help="render a panel offscreen to a PNG, SVG or PDF",
                            usage="lab snapshot PANEL --out FILE [--size WxH] [--format png|svg|pdf] [--lang zh|en|both] "
                                  "[--theme T] [--zoom Z] | lab snapshot --talk FILE.toml --scene N --out FILE | lab snapshot --list")
    p_snap.add_argument("panel", nargs="?", metavar="PANEL",
                        help="panel key (see `lab snapshot --list`) or 'main' for the whole window")
    p_snap.add_argument("--out", metavar="FILE", help="the file to write (PNG, SVG or PDF; written whole or not at all)")
    p_snap.add_argument("--size", default="1600x1000", help="WxH in pixels (default 1600x1000)")
    p_snap.add_argument("--list", action="store_true", help="list the panel keys and exit")
    p_snap.add_argument("--format", dest="fmt", choices=("png", "svg", "pdf"), default=None,
                        help="image format; default: the --out suffix (.png, .svg, .pdf), else png. Given, it wins over "
                             "the suffix (the file is written as named, with a note on stderr). svg and pdf are vector")
    p_snap.add_argument("--lang", choices=("zh", "en", "both"), default=None, help="language of the labels")
    p_snap.add_argument("--theme", choices=("light", "dark", "high-contrast"), default=None, help="colour theme")
    p_snap.add_argument("--zoom", default=None, help="UI zoom factor, 0.5..3 (default 1)")
    p_snap.add_argument("--talk", metavar="FILE.toml", default=None, help="render a scene of this talk file")
    p_snap.add_argument("--scene", default=None, help="the scene number (1-based) with --talk")
    p_talk = sub.add_parser("talk", help="step through a talk file's scenes in presentation mode (README: Talks)")
    p_talk.add_argument("file", metavar="FILE.toml", help="the talk file: an ordered list of [[scene]] tables")
    return parser


def _flag_meant(item: str) -> str:
    """'did you mean --enable-prefix-caching (a flag, no value)? ' for a misspelt vLLM flag, else ''."""
    close = difflib.get_close_matches(aliases.underscored(item), list(aliases.FLAGS), n=1)
    return f"did you mean --{close[0].replace('_', '-')} (a flag, no value)? " if close else ""


def take_option(items: Sequence[str], i: int, known: Sequence[str] | None = None) -> tuple[str, str, int] | None:
    """(our name, value, the next index) when items[i] is a key given as an option: a vLLM
    flag (--enable-prefix-caching), --key value, --key=value or -tp N; None for a word that
    is no option (key=value, a file). What parameter_values and lab calibrate read."""
    item = items[i]
    hit = aliases.flag(item, known)
    if hit is not None:  # --enable-prefix-caching: a flag, no value
        return hit[0], hit[1], i + 1
    if (item.startswith("--") or item in aliases.SHORT) and "=" not in item:  # --key value
        if i + 1 >= len(items) or items[i + 1].startswith("--"):  # no value: a misspelt flag, most likely
            raise input_error(item, f"{_flag_meant(item)}needs a value; valid: {item} VALUE or "
                              f"{item.lstrip('-')}=VALUE")
        name, end = aliases.canonical(item, known), i + 2
        if name == "goodput":  # vllm bench's --goodput ttft:2000 tpot:50: one option, several words
            while end < len(items) and aliases.GOODPUT_PAIR.match(items[end]):
                end += 1
        return name, " ".join(items[i + 1:end]), end
    if item.startswith("--"):  # --key=value
        key, _, value = item[2:].partition("=")
        if not key.strip():
            raise input_error(item, "expected key=value or --key value (for example input_tokens=1024 or --cards 3)")
        return aliases.canonical(key, known), value, i + 1
    return None


def parameter_values(args: argparse.Namespace, extras: Sequence[str],
                     known: Sequence[str] | None = None) -> dict[str, str]:
    """The parameters given: a --config file's keys (lab/cli/config_file.py), then key=value
    words and --key value / --key=value options, which win over the file's.

    argparse takes the --key options of known parameters; everything else comes back in
    `extras`, in order, and is read here. Every key comes back as our name: dashes as
    underscores, vLLM's names and flags as ours (core/serving/aliases.py). With known (a
    calculator's names) an unknown key is refused here with "did you mean"; without it
    the command's own check refuses it.
    """
    given: dict[str, str] = {}
    items = list(extras)
    i = 0
    while i < len(items):
        item = items[i]
        option = take_option(items, i, known)
        if option is not None:
            key, value, i = option
            given[key] = value
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or item.startswith("-"):
            raise input_error(item, "expected key=value or --key value (for example input_tokens=1024 or --cards 3)")
        given[aliases.canonical(key, known)] = value
        i += 1
    for dest, value in vars(args).items():
        if dest.startswith(PARAM):
            given[dest[len(PARAM):]] = value
    values = config_file.merged(aliases.expand_goodput(given, known))
    if known is not None:
        for key in values:
            if key not in known:
                raise aliases.unknown_key(key, known, f"unknown parameter; valid: {', '.join(known)}")
    return values
