"""What the Vision panel draws, computed in core from its state."""
import numpy as np
import pytest

from core.registry import get
from core.vision import figures as vf
from core.vision.layout import KV_BYTES_PER_TOKEN
from core.vision.state import VisionState

MIB = 2**20


@pytest.fixture
def book():
    s = VisionState()
    s.book_example()
    return s


def test_table_rows_for_the_books_request(book):
    card = book.card("request")
    rows = vf.request_table(card.inputs, card.result)
    assert [r[0] for r in rows] == ["图 1", "图 2", "图 3", "图 4", "文本 text", "整个请求"]
    assert rows[0] == ("图 1", "640×640 → 640×640", "1,600", "400", "800 kB", "7.8125 MiB", "56.25 MiB")
    assert rows[4][-1] == "56.25 MiB"  # 400 text tokens × 144 KiB
    assert rows[-1][5:] == ("31.25 MiB", "281.25 MiB")


def test_text_kv_is_an_output_of_the_request():
    r = get("vision.request").run({"text_tokens": 100, "prefix_tokens": 28})
    assert r["text_kv_bytes"] == 128 * KV_BYTES_PER_TOKEN
    assert r["input_kv_bytes"] == r["text_kv_bytes"] + sum(r["per_image_kv_bytes"])


def test_handoff_matches_the_handoff_calculator():
    s = VisionState()
    s.card("request").update({"text_tokens": 300, "prefix_tokens": 50})
    fig = vf.handoff_figure(s.card("request").result)
    h = get("vision.handoff").run({"text_tokens": 350})
    assert fig["values"] == {"raw": h["raw_bytes"], "ec": h["ec_bytes"], "kv": h["kv_bytes"]}
    assert fig["texts"]["ec"] == "7.8125 MiB"


def test_volume_bars_on_a_log_scale(book):
    fig = vf.volume_bars(book.card("request").result)
    assert fig["labels"][-1] == "整个请求" and len(fig["labels"]) == 5
    kv = fig["bars"]["kv"]["height"]
    assert kv[-1] == pytest.approx(np.log10(281.25 * MIB) - vf.LOG_FLOOR)
    assert kv[0] == pytest.approx(np.log10(56.25 * MIB) - vf.LOG_FLOOR)
    assert fig["show_text"] and len(fig["texts"]) == 15


def test_question_figure_marks_what_a_new_question_recomputes():
    s = VisionState()
    card = s.card("request")
    fig = vf.question_figure(card.inputs, card.result)
    assert [st["x0"] for st in fig["stale"]] == [400, 0]  # after: from the question on; before: all
    assert fig["chosen"] == "after" and fig["reusable_kv"] == "56.25 MiB"
    card.update({"question": "before", "prefix_tokens": 100})
    fig = vf.question_figure(card.inputs, card.result)
    assert [s[0] for s in fig["layouts"]["before"]] == ["prefix", "question", "image"]
    assert fig["reusable_kv"] == vf.mib(100 * KV_BYTES_PER_TOKEN)


def test_compare_and_diffusion_figures():
    s = VisionState()
    cmp_ = s.card("compare")
    fig = vf.compare_figure(cmp_.inputs, cmp_.result)
    assert fig["ratios"][:3] == [4, 4, 4] and fig["ratios"][3] > 4 and fig["square"] == 4
    assert fig["sides"][1]["layout"].visual_tokens == 1600
    dif = s.card("diffusion")
    fig = vf.diffusion_figure(dif.inputs, dif.result)
    assert fig["point"] == (1024, pytest.approx(7.830e15, rel=1e-4))
    assert fig["loop"]["title"].startswith("↻ 50 步 × 2 分支") and len(fig["loop"]["branches"]) == 2
    assert len(fig["sides"]) == len(fig["flops"]) == len(vf.SWEEP_SIDES)


def test_panel_figures_has_every_figure():
    assert set(vf.panel_figures(VisionState())) == {"table", "volumes", "question", "handoff", "compare", "diffusion"}
