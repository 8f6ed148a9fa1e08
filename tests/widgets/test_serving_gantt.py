"""The Serving panel's Gantt colours every phase code core.serving.gantt writes, the P/D
run's KV transfer (code 5) included, each in its own colour, and its legend names it."""
import numpy as np
import pyqtgraph as pg

from core.serving import gantt
from core.serving.headless import serving_report
from widgets.kit.i18n import english_words, has_cjk, set_language, translate_tree
from widgets.kit.theme import color
from widgets.serving.replay_plots import GANTT_LEGEND, GANTT_LEVELS, GANTT_LUT

COLOURS = {gantt.WAITING: "wait", gantt.PREFILL: "prefill", gantt.DECODE: "decode", gantt.PREEMPTED: "backlog",
           gantt.TRANSFER: "tool"}


def _rgba(codes):
    """codes as the panel's image draws them (pyqtgraph's own mapping, BGRA out)."""
    argb, _alpha = pg.functions.makeARGB(codes, lut=GANTT_LUT, levels=GANTT_LEVELS)
    return argb[..., [2, 1, 0, 3]]


def test_each_phase_code_takes_its_own_colour():
    codes = np.array([[gantt.IDLE, *COLOURS]], dtype=np.uint8)
    rgba = _rgba(codes)[0]
    assert rgba[0][3] == 0  # idle: transparent
    for i, code in enumerate(COLOURS, start=1):
        assert tuple(rgba[i][:3]) == color(COLOURS[code]).getRgb()[:3], gantt.PHASES[code]
    assert len({tuple(c) for c in rgba}) == len(rgba)  # no two phases alike


def test_a_pd_runs_transfers_are_drawn_in_the_transfer_colour():
    _report, (result, _work) = serving_report({"durations_s": "5,5", "rates_per_s": "2,2", "pools": "1P1D",
                                               "kv_link": "1"})  # 1 GB/s: transfers long enough to show
    codes, _order = gantt.state_matrix(result, float(np.nanmax(result.finish_s)))
    moving = codes == gantt.TRANSFER
    assert moving.any()
    rgba = _rgba(codes)
    assert (rgba[moving][:, :3] == color("tool").getRgb()[:3]).all()


def test_the_legend_names_the_transfer_in_either_language(open_serving_panel):
    panel = open_serving_panel(1280, 720)
    shown = {}
    try:
        for lang in ("zh", "en", "both"):
            set_language(lang)
            translate_tree(panel)
            shown[lang] = [panel.gantt_plots[side].subtitle_label.text() for side in ("A", "B")]
    finally:
        set_language("both")
    assert shown["both"] == [GANTT_LEGEND] * 2
    assert all("绿 KV 传输" in t and not english_words(t) for t in shown["zh"])
    assert all("green KV transfer" in t and not has_cjk(t) for t in shown["en"])
