"""`lab fidelity`: measured vs predicted for a set of runs (issue 13). Placeholder wiring; its owner replaces this module."""
from __future__ import annotations

import sys


def add_parser(sub, formatter) -> None:
    sub.add_parser("fidelity", help="measured vs predicted for a set of runs (issue 13)", formatter_class=formatter)


def run(args, extras) -> int:
    print("lab fidelity: not built yet", file=sys.stderr)
    return 2
