"""`lab calibrate`: fit the step-time model to measured runs (issue 13). Placeholder wiring; its owner replaces this module."""
from __future__ import annotations

import sys


def add_parser(sub, formatter) -> None:
    sub.add_parser("calibrate", help="fit the step-time model to measured runs (issue 13)", formatter_class=formatter)


def run(args, extras) -> int:
    print("lab calibrate: not built yet", file=sys.stderr)
    return 2
