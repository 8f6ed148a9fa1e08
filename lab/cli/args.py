"""The argparse pieces every `lab` sub-command shares: the generated --key options of a
calculator's Params with their help (unit, default, range, suffixes), the help formatter,
the text of the suffixes, and the one error type for bad input. parser.py builds the tree
with them; simulate_voice.py and sweep.py add their sub-commands with them.
"""
from __future__ import annotations

import argparse
import math
import textwrap
from typing import Any

from core.registry import ParamError
from core.serving import aliases
from core.units import format_value, unit_kind

PARAM = "param."  # namespace prefix of the --key options generated from Params
ARGS = "key=value | --key value"
SPELLINGS = ("every key also takes dashes (--max-num-seqs is max_num_seqs) and --key=value; vLLM's and "
             "vllm bench serve's names are shown beside ours; --config FILE.toml|.yaml|.json gives keys from a "
             "file (the command line wins)")


def input_error(field: str, message: str) -> ParamError:
    """The one error type for bad input, CLI and GUI alike."""
    return ParamError(field, message)


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and epilogs as written; help wrapped without breaking names at hyphens
    (qwen-image-dit, not qwen- / image-dit)."""

    def _split_lines(self, text, width):
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _format_action_invocation(self, action):
        # '--token_budget, --max-num-batched-tokens N': the metavar once, after the spellings
        if not action.option_strings or action.nargs == 0:
            return super()._format_action_invocation(action)
        return ", ".join(action.option_strings) + " " + self._format_args(action, self._get_default_metavar_for_optional(action))


def help_text(text: str) -> str:
    return text.replace("%", "%%")  # argparse %-formats help strings


def param_help(p) -> str:
    valid = p.range_text()
    if p.kind in ("float", "int", "floats") and unit_kind(p.unit) != "count":
        valid += f"; suffixes {p.suffix_text()}"  # a time or size converts to the parameter's unit
    unit = f" [{p.unit}]" if p.unit and p.kind not in ("choice", "bool") else ""
    tag = " (示意: illustrative)" if p.illustrative else ""
    default = "" if p.default is None else f"; default {_help_default(p)}"
    return help_text(f"{p.help}{unit}{tag}{default}; valid: {valid}")


def _help_default(p) -> str:
    """The default exactly, and for sizes also as people read it: 25769803776 (24 GiB)."""
    def exact(v: Any) -> str:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return str(v).lower() if isinstance(v, bool) else str(v)
        if float(v).is_integer() and abs(v) < 1e7:
            return str(int(v))
        short = f"{v:g}"
        return short if float(short) == v else (str(int(v)) if float(v).is_integer() else repr(float(v)))

    if isinstance(p.default, (list, tuple)):
        return ",".join(exact(v) for v in p.default)
    text = exact(p.default)
    if isinstance(p.default, (int, float)) and not isinstance(p.default, bool) and unit_kind(p.unit) == "bytes" \
            and abs(p.default) >= 1024:
        text += f" ({format_value(p.default, p.unit)})"
    return text


def metavar(p) -> str:
    if p.kind == "choice":
        return "|".join(p.choices)
    return {"bool": "true|false", "floats": "X,...", "int": "N"}.get(p.kind, "X")


def add_params(parser: argparse.ArgumentParser, params, title: str) -> None:
    group = parser.add_argument_group(title)
    for p in params:
        group.add_argument(f"--{p.name}", *aliases.aliases_of(p.name), dest=PARAM + p.name, metavar=metavar(p),
                           default=argparse.SUPPRESS, help=param_help(p))
        for option, value in aliases.flag_options(p.name):  # vLLM's value-less flags
            group.add_argument(option, dest=PARAM + p.name, action="store_const", const=value,
                               default=argparse.SUPPRESS, help=f"= {p.name}={value} (vLLM's flag)")


SUFFIXES = ("numbers take the suffixes that fit their unit: times ns, us, µs, ms, s, min, h (20ms and 0.02s "
             "are both 20 for a parameter in ms); sizes kB, MB, GB, TB, KiB, MiB, GiB, TiB; counts and rates "
             "k, M, G, T, P. Lists are comma-separated; a single number takes no comma.") + " " + SPELLINGS


def outputs_text(calc, scalar_only: bool = False) -> str:
    return "\n".join(f"  {o.name:30s} [{o.unit or '-'}]" + (f"  {o.help}" if o.help else "")
                     + ("  (a list)" if o.kind == "series" else "")
                     for o in calc.outputs if o.kind == "scalar" or not scalar_only)


def wrapped(text: str) -> str:
    return textwrap.fill(text, 79)


def json_ready(value):
    """A report as JSON takes it: NaN and infinities as null, tuples as lists (dicts and
    lists walked through); what `lab simulate voice|rl --json` and their summary.json print."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    return value
