"""The end to end's errors as one markdown table (for docs/vllm_cpu.md and the closing note):
per run, its regime and the error of the lab's prediction on median TTFT, TPOT and E2E
(with "ok" when within the fidelity report's tolerance), preemptions and the prefix-cache
hit rate, from `lab fidelity --json`. Usage: python3 e2e_table.py FIDELITY.json [FITTED_RUN]
"""
from __future__ import annotations

import json
import sys

LATENCIES = ("median_ttft_ms", "median_tpot_ms", "median_e2el_ms")


def cell(m: dict | None, unit: str = "%") -> str:
    if not m:
        return "-"
    err = m.get("error_pct") if unit == "%" else m.get("error_points")
    if err is None:
        err = m.get("error")
    mark = " ok" if m.get("within") else ""
    if unit == "%":
        return f"{m['measured']:.4g} → {m['predicted']:.4g} ({err:+.0f}%{mark})"
    return f"{m['measured']:.3g} → {m['predicted']:.3g}{mark}"


def table(report: dict, fitted: str = "medium") -> str:
    head = "| run | regime | median TTFT ms | median TPOT ms | median E2E ms | preemptions | prefix hit rate |"
    rows = [head, "|" + "---|" * 7]
    for run in report["runs"]:
        m = run["metrics"]
        name = run["run"] + (" (fitted)" if run["run"] == fitted else "")
        rows.append(f"| {name} | {run['regime']} | " + " | ".join(cell(m.get(k)) for k in LATENCIES)
                    + f" | {cell(m.get('preemptions'), 'n')} | {cell(m.get('prefix_cache_hit_rate'), 'n')} |")
    held = [held_out(report, k) for k in LATENCIES]
    if any(held):
        names = ("TTFT", "TPOT", "E2E")
        rows.append("")
        rows.append("held out, median |error| (worst): " + ", ".join(
            f"{n} {h}" for n, h in zip(names, held) if h))
    return "\n".join(rows)


def held_out(report: dict, metric: str) -> str:
    """The fidelity summary's held-out median and worst |error| of one metric ('' if none)."""
    group = report.get("summary", {}).get(metric, {}).get("held out")
    if not group:
        return ""
    return f"{group['median_abs_error']:.0f}% ({group['worst_abs_error']:.0f}%, {group['worst_run']})"


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: e2e_table.py FIDELITY.json [FITTED_RUN]")
    with open(sys.argv[1], encoding="utf-8") as f:
        print(table(json.load(f), *sys.argv[2:]))
