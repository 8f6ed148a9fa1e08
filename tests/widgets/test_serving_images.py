"""Image requests on the Serving panel (issue 15): the images section runs replay A's
workload with the image fields on the job runner and shows the numbers `lab simulate
serving` prints for the same keys (encoder-cache hits, EC bytes, the encoder's time added,
TTFT p50/p95 with and without images); refusals show next to their field; the fields are
the state's (sessions, undo, reset); both languages read whole."""
from __future__ import annotations

import json

import pytest

from core.registry import ParamError
from core.serving.state import ServingState
from lab.cli import main
from widgets.kit.i18n import english_words, has_cjk, set_language, split_pair, translate_tree
from widgets.kit.jobs import jobs
from widgets.serving import pools_section
from widgets.serving.images_run import text_raw, ttft_ms
from widgets.serving.pools_view import ms_text

SMALL = {"durations_s": (20.0, 20.0), "rates_per_s": (2.0, 2.0)}  # 80 requests: a quick run


def _small_panel(open_serving_panel, qtbot):
    panel = open_serving_panel(1280, 720)
    with qtbot.waitSignal(panel.replay_computed, timeout=60_000):
        panel.state.replay("A").update(SMALL)
    return panel


def _cli(capsys, raw):
    capsys.readouterr()
    assert main(["simulate", "serving", *(f"{k}={v}" for k, v in raw.items()), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_an_image_run_shows_the_clis_numbers_with_and_without_images(open_serving_panel, qtbot, capsys):
    panel = _small_panel(open_serving_panel, qtbot)
    section = panel.images_section
    form = section.form
    assert form.results.isHidden() and not section.raw  # image_share 0: no run
    with qtbot.waitSignal(section.drawn, timeout=60_000) as got:
        form.set_values(image_share="0.5", image_size="1280X1280", image_ids="4")
        assert section.key in jobs().busy_keys()  # on the job runner, not the GUI thread
        assert "running" in form.status.text()
    fig = got.args[0]
    assert fig.raw == {"durations_s": "20,20", "rates_per_s": "2,2", "image_share": "0.5",
                       "image_size": "1280x1280", "image_ids": "4"}
    cli = _cli(capsys, fig.raw)
    assert fig.block == cli["images"]  # the whole images block, bit for bit
    b = cli["images"]
    # 40 image requests cycling through 4 ids: each id encoded once, the other 36 hit.
    assert (b["images"], b["encoder_cache_misses"], b["encoder_cache_hits"]) == (40, 4, 36)
    text = _cli(capsys, text_raw(fig.raw))
    assert "images" not in text
    assert text_raw(fig.raw) == {"durations_s": "20,20", "rates_per_s": "2,2", "frontend": "off"}
    assert cli["client"]["frontend"] == text["client"]["frontend"] == "off (the engine alone)"
    line = form.encoder_line.text()
    assert "36 encoder-cache hits, 4 encoded" in line
    assert f"EC {b['ec_bytes'] / 2**20:,.1f} MiB" in line and f"{b['encoder_added_ms'] / 1e3:,.3f} s" in line
    for key, report, shown in (("with", cli, fig.report), ("text", text, fig.text_report)):
        p50, p95 = ttft_ms(shown)  # the CLI's JSON: p50 in ms, the book's p95 in s
        assert (p50, p95) == (report["median_ttft_ms"], report["book"]["ttft_p95_s"] * 1e3)
        assert [c.text() for c in form.ttft_cells[key]] == [ms_text(p50), ms_text(p95)]
    assert ttft_ms(fig.report)[0] > ttft_ms(fig.text_report)[0]  # the encoder's time shows in TTFT
    assert form.command.text() == ("<code>lab simulate serving durations_s=20,20 rates_per_s=2,2 image_share=0.5 "
                                   "image_size=1280x1280 image_ids=4</code>")
    # EPD: the EC crosses a link; its bytes moved are shown too
    with qtbot.waitSignal(section.drawn, timeout=60_000) as got:
        form.set_values(epd_encoders="2", ec_link_gb_s="25")
    epd = got.args[0].block
    assert epd["mode"] == "epd" and epd == _cli(capsys, got.args[0].raw)["images"]
    assert f"({epd['ec_bytes_moved'] / 2**20:,.1f} MiB over the link)" in form.encoder_line.text()
    # A deployment turns the front end on for a text run: the run without images keeps it off,
    # as the image run has it, so the two differ by the images alone.
    with qtbot.waitSignal(section.drawn, timeout=60_000) as got:
        panel.state.card("deployment").update({"quantization": "fp8"})
    fig = got.args[0]
    assert fig.raw["quantization"] == "fp8"
    assert fig.report["client"]["frontend"] == fig.text_report["client"]["frontend"] == "off (the engine alone)"
    with qtbot.waitSignal(section.drawn, timeout=60_000) as got:  # the client's limit: said to be left out
        panel.state.card("deployment").update({"max_concurrency": "4"})
    assert "max_concurrency" not in got.args[0].raw
    assert form.note.isVisible() and "max_concurrency=4" in form.note.text()
    with qtbot.waitSignal(panel.state.changed, timeout=5_000):
        form.set_values(image_share="0")  # back to text only: the figures go
    assert form.results.isHidden() and not section.raw
    jobs().wait_idle()


def test_refusals_show_next_to_their_field(open_serving_panel, qtbot):
    panel = _small_panel(open_serving_panel, qtbot)
    section, form = panel.images_section, panel.images_section.form
    for key, text, start in (("image_size", "9x9000", "got '9x9000'; valid: aspect ratio"),
                             ("image_share", "1.5", "got 1.5; valid: [0, 1]"),
                             ("encoder_cache_size", "-3", "got -3; valid: a whole number"),
                             ("epd_encoders", "2.5", "got 2.5, not a whole number")):
        with qtbot.waitSignal(section.refused, timeout=10_000) as got:
            form.set_values(**{"image_share": "0.5", key: text})
        assert got.args[0] == key
        error = form.fields[key].error
        assert error.isVisible() and error.text().startswith(start), error.text()
        assert all(f.error.isHidden() for k, f in form.fields.items() if k != key)
        assert form.results.isHidden() and not section.raw
        form.fields[key].edit.setText("")  # fixed by clearing it (the card's value stays)
    with qtbot.waitSignal(section.drawn, timeout=60_000):
        form.set_values(image_share="0.5", image_size="640x640", encoder_cache_size="0", epd_encoders="0")
    assert all(f.error.isHidden() for f in form.fields.values()) and form.results.isVisible()
    assert panel.state.card("images").inputs["encoder_cache_size"] == "0"
    jobs().wait_idle()


def test_the_image_fields_are_the_states():
    s = ServingState()
    assert s.to_json()["cards"]["images"] == {}
    assert s.card("images").update({"image_share": "0.25", "image_size": "1280×1280", "encoder_cache_size": "4096"})
    data = s.to_json()
    assert data["cards"]["images"] == {"image_share": 0.25, "image_size": "1280x1280", "encoder_cache_size": "4096"}
    other = ServingState()
    other.load_json(data)
    assert other.to_json() == data
    for bad, field in (({"image_size": "big"}, "image_size"), ({"encoder_cache_size": "x"}, "encoder_cache_size"),
                       ({"ec_link_gb_s": 0}, "ec_link_gb_s"), ({"image_ids": -1}, "image_ids")):
        with pytest.raises(ParamError) as err:
            other.load_json({**data, "cards": {**data["cards"], "images": bad}})
        assert err.value.param == field and other.to_json() == data
    other.reset()
    assert other.card("images").to_json() == {}


def test_the_section_follows_the_state_and_reads_in_either_language(open_serving_panel, qtbot):
    panel = _small_panel(open_serving_panel, qtbot)
    section, form = panel.images_section, panel.images_section.form
    with qtbot.waitSignal(section.drawn, timeout=60_000):  # a session or undo sets the card
        panel.state.card("images").update({"image_share": 0.5, "image_ids": 2, "epd_encoders": 1})
    assert [form.fields[k].edit.text() for k in ("image_share", "image_ids", "epd_encoders")] == ["0.5", "2", "1"]
    with qtbot.waitSignal(section.drawn, timeout=60_000):
        panel.state.card("deployment").update({"max_concurrency": "4"})  # the note shows too
    texts = {}
    try:
        for lang in ("zh", "en"):
            set_language(lang)
            translate_tree(panel)
            texts[lang] = [w.text() for w in (form.encoder_line, form.note, *(f.label for f in form.fields.values()))]
    finally:
        set_language("both")
    assert all(has_cjk(t) and not english_words(t) and not t.endswith("·") for t in texts["zh"]), texts["zh"]
    assert all(not has_cjk(t) for t in texts["en"]), texts["en"]
    assert "2 encoded" in texts["en"][0] and "编码 2" in texts["zh"][0]
    assert form.note.isVisible() and "max_concurrency=4" in texts["en"][1]
    zh, en = split_pair(pools_section.NO_CLIENT.format(n=4))  # the P/D run's note splits the same way
    assert not english_words(zh) and not zh.endswith("·") and not has_cjk(en)
    panel.state.reset()  # ↺: text only again
    assert form.fields["image_share"].edit.text() == "0" and form.results.isHidden()
    jobs().wait_idle()
