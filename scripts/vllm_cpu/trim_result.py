"""A `lab observe` result made small enough to commit as a test fixture: the generated
texts emptied (random words of random weights; their token counts stay in output_lens) and
every time rounded to the microsecond (the clocks' useful precision here). Everything else
is kept as measured. Usage: python3 trim_result.py IN.json OUT.json
"""
from __future__ import annotations

import json
import sys

DIGITS = 6


def rounded(value):
    if isinstance(value, float):
        return round(value, DIGITS)
    if isinstance(value, list):
        return [rounded(v) for v in value]
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    return value


def trim(result: dict) -> dict:
    out = rounded(result)
    if "generated_texts" in out:
        out["generated_texts"] = [""] * len(out["generated_texts"])
    return out


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: trim_result.py IN.json OUT.json")
    with open(sys.argv[1], encoding="utf-8") as f:
        data = json.load(f)
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(trim(data), f, separators=(",", ":"))
        f.write("\n")
