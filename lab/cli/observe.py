"""`lab observe`: measure a real OpenAI-compatible server (issue 13). Placeholder wiring; its owner replaces this module."""
from __future__ import annotations

import sys


def add_parser(sub, formatter) -> None:
    sub.add_parser("observe", help="measure a real OpenAI-compatible server (issue 13)", formatter_class=formatter)


def run(args, extras) -> int:
    print("lab observe: not built yet", file=sys.stderr)
    return 2
