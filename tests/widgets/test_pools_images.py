"""E -> P -> D in the window (issue 15): with the images section's image_share above 0, the
Serving panel's P/D run carries those images, as `lab simulate serving pools=... image_share=...`
runs them: the visual tokens' KV is in the transfer, and a line says where the encoder ran."""
from __future__ import annotations

import json

from lab.cli import main
from widgets.kit.i18n import english_words, has_cjk, set_language, split_pair
from widgets.kit.jobs import jobs
from widgets.serving.pools_view import images_line

SMALL = {"durations_s": (20.0, 20.0), "rates_per_s": (2.0, 2.0)}  # 80 requests
KV = 147_456  # the book's Qwen3-8B, bytes a token


def _cli(capsys, raw):
    capsys.readouterr()
    assert main(["simulate", "serving", *(f"{k}={v}" for k, v in raw.items()), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_pd_run_carries_the_images_sections_images(open_serving_panel, qtbot, capsys):
    panel = open_serving_panel(1280, 720)
    with qtbot.waitSignal(panel.replay_computed, timeout=60_000):
        panel.state.replay("A").update(SMALL)
    section = panel.pools_section
    with qtbot.waitSignal(section.drawn, timeout=60_000) as got:
        section.form.set_values("1P1D", "rdma-400g")
    text = got.args[0]
    assert "image_share" not in text.raw and section.view.images_label.isHidden()
    with qtbot.waitSignal(section.drawn, timeout=60_000) as got:
        panel.state.card("images").update({"image_share": 0.5})
    fig = got.args[0]
    assert fig.raw == {"durations_s": "20,20", "rates_per_s": "2,2", "pools": "1P1D", "kv_link": "rdma-400g",
                       "image_share": "0.5"}
    cli = _cli(capsys, fig.raw)
    assert fig.block == cli["disaggregation"] and fig.report["images"] == cli["images"]
    # 40 of the 80 requests carry a 640x640 image: 400 more prompt tokens each, in the KV shipped
    moved = fig.block["transfer"]["bytes_total"] - text.block["transfer"]["bytes_total"]
    assert moved == 40 * 400 * KV
    view = section.view
    assert view.images_label.isVisible()
    assert "40 image requests (16,000 visual tokens" in view.images_label.text()
    assert "image_share=0.5" in view.command.text()
    zh, en = split_pair(images_line(fig.report))
    assert has_cjk(zh) and not english_words(zh) and not has_cjk(en)
    with qtbot.waitSignal(section.drawn, timeout=60_000) as got:
        panel.state.card("images").update({"image_share": 0.0})  # back to text: the line goes
    assert "image_share" not in got.args[0].raw and view.images_label.isHidden()
    set_language("both")
    jobs().wait_idle()
