"""The Voice panel's captions: the run's percentiles and the shown turn's breakdown, each one
"中文 · English" pair."""
from __future__ import annotations

from widgets.voice.stages import AFTER_GAP, S_TO_MS, stage_names


def summary_text(s: dict) -> str:
    """The run's percentiles, underrun share and tail stage: one "中文 · English" pair."""
    marks = "  ".join(f"{k} {s[f'silence_{k}_ms']:.0f} ms" for k in ("p50", "p95", "p99") if f"silence_{k}_ms" in s)
    zh, en = [marks], [marks] if marks else []  # English shows the numbers too, not only the Chinese half
    if "underrun_turn_share" in s:
        zh.append(f"欠载轮次 {s['underrun_turn_share']:.0%}")
        en.append(f"turns with an underrun {s['underrun_turn_share']:.0%}")
    if "tail_stage" in s:
        stage_zh, stage_en = stage_names(s["tail_stage"])
        share = s.get("tail_stage_share", 0.0)
        zh.append(f"尾部主因:{stage_zh} {share:.0%}")
        en.append(f"tail: {stage_en} {share:.0%}")
    return "  ".join(zh) + (" · " + ", ".join(en) if en else "")


def breakdown_text(turn, shown: str) -> str:
    """The shown turn in one line (its stages are labelled on the swimlane): a pair."""
    gap = [sp for sp in turn.spans if sp.name not in AFTER_GAP]
    total = f"{turn.silence_s * S_TO_MS:.0f} ms"
    stall = f"{turn.stall_s * S_TO_MS:.0f} ms"
    return (f"{shown} 这一轮:静默 {total} = {len(gap)} 段之和;欠载 {turn.underruns} 次,卡顿 {stall}(示意)"
            f" · {shown} turn: silence {total} = the sum of {len(gap)} stages; underruns {turn.underruns}, "
            f"stall {stall} (illustrative)")
