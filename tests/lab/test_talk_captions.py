"""A talk's caption that quotes its figure quotes what the figure shows (issue 14: scene 26
said ≈ 400 ms where the Voice figure's p95 turn took 1,061 ms)."""
from __future__ import annotations

import re
from pathlib import Path

from core.talk import load_talk
from widgets.kit.jobs import jobs

CHAPTER3 = Path(__file__).resolve().parents[2] / "talks" / "chapter3.toml"


def test_the_voice_scene_caption_quotes_the_figure_p50_and_p95(qtbot):
    from widgets.voice import VoicePanel

    scene = next(s for s in load_talk(CHAPTER3).scenes if s.panel == "voice")
    panel = VoicePanel()
    qtbot.addWidget(panel)
    panel.resize(1280, 720)
    panel.show()
    qtbot.waitUntil(panel.is_ready, timeout=60_000)
    jobs().wait_idle()
    qtbot.waitUntil(lambda: "p95" in panel.summary_label.text(), timeout=30_000)
    shown = dict(re.findall(r"(p50|p95) (\d+) ms", panel.summary_label.text()))
    quoted = dict(re.findall(r"(p50|p95) (\d+) ms", scene.annotation))
    assert set(shown) == {"p50", "p95"} and quoted == shown
    panel.close()
