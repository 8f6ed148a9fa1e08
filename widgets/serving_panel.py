"""§3.1.3 as one page: the chapter's banner (decode demand against capacity, three
segments, ▶), the calculators of 例题 3-1 (mix, bandwidth-bound decode rate, backlog with
the presets of 练习 3-2), and the continuous-batching replay of two scenarios side by side
with the book's observed values beside the simulated ones, played back live.
Numbers come from core.serving; this module only draws them."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from core.registry import ParamError
from core.serving import backlog as bl
from core.serving import gantt
from core.serving import replay as rp
from core.serving.decode_rate import DECODE_RATE
from core.serving.mix import MIX
from widgets.calculator_card import CalculatorCard
from widgets.page import scroll_page
from widgets.panels import PanelInfo
from widgets.param_form import ParamForm
from widgets.plot_card import PlotCard
from widgets.theme import COLORS, LEGEND, brush, color, pen
from widgets.timeline_player import TimelinePlayer

# The banner's three segments (each a minute at 4 requests/s): 均匀, then the two minutes of ②.
BANNER_SEGMENTS = (("均匀混合 1:1", 0.5), ("前一分钟 9:1", 0.9), ("后一分钟 1:9", 0.1))
SEGMENT_S = 60.0
PRESET_COLORS = {"uniform": "tool", "shift": "backlog", "burst_2cards": "decode", "burst_3cards": "prefill"}
GANTT_BINS = 900
GANTT_LUT = np.array([
    [255, 255, 255, 0],                 # idle / done
    [*color("wait").getRgb()[:3], 200],  # waiting
    [*color("prefill").getRgb()[:3], 255],
    [*color("decode").getRgb()[:3], 235],
    [*color("backlog").getRgb()[:3], 255],  # preempted
], dtype=np.uint8)
COMPARE_ROWS = ("ttft_p95_s", "request_p95_s", "first_schedule_wait_p95_s", "last_completion_s", "preemptions",
                "kv_peak_fraction", "decode_bound_s", "engine_steps")
SIDES = ("A", "B")
BAND_SEEDS = 5


def _text_item(anchor=(0, 1), size: int = 10, kind: str = "ink", html: bool = False) -> pg.TextItem:
    item = pg.TextItem("", color=color(kind), anchor=anchor)
    font = item.textItem.font()
    font.setPointSize(size)
    item.setFont(font)
    return item


def _num(x: float) -> str:
    """18,432 and 1,736.8 as the book prints them (one decimal only where there is one)."""
    return f"{x:,.1f}".removesuffix(".0")


def _compact(card: PlotCard, height: int = 200, live: bool = False) -> PlotCard:
    card.plot_widget.setMinimumHeight(height)
    if live:
        # Grid lines across the whole view are the costliest thing to repaint in a frame
        # (measured: most of a 20 ms frame); the plots that play back go without them.
        card.plot.showGrid(x=False, y=False)
    return card


class ServingPanel(QtWidgets.QWidget):
    """The Serving panel (§3.1.3)."""

    replay_computed = QtCore.Signal(dict)  # {side: summary} after both replays are recomputed

    def __init__(self, parent=None):
        super().__init__(parent)
        self._replay: dict[str, dict] = {}
        self._banner: dict = {}
        self._build_ui()
        self._connect()
        self.refresh()

    # ---- construction -------------------------------------------------------
    def _build_ui(self) -> None:
        layout = scroll_page(self, "")
        layout.addWidget(self._header())
        top = QtWidgets.QHBoxLayout()
        top.setSpacing(12)
        top.addWidget(self._banner_section(), 1)
        top.addWidget(self._backlog_plot_section(), 1)
        layout.addLayout(top)
        self.banner_player = TimelinePlayer(duration=3 * SEGMENT_S, speed=10.0, unit="s")
        self.banner_player.setToolTip("▶ 例题 3-1: play the three segments; the cursor moves over the banner and the backlog curves")
        layout.addWidget(self.banner_player)
        cards = QtWidgets.QHBoxLayout()
        cards.setSpacing(12)
        self.mix_card = CalculatorCard(MIX, compact=True)
        self.rate_card = CalculatorCard(DECODE_RATE, compact=True)
        cards.addWidget(self.mix_card, 1)
        cards.addWidget(self.rate_card, 1)
        cards.addWidget(self._backlog_card_section(), 1)
        layout.addLayout(cards)
        layout.addWidget(self._replay_section())
        layout.addStretch(1)

    def _header(self) -> QtWidgets.QWidget:
        box = QtWidgets.QWidget()
        col = QtWidgets.QVBoxLayout(box)
        col.setContentsMargins(0, 0, 0, 0)
        row = QtWidgets.QHBoxLayout()
        title = QtWidgets.QLabel("§3.1.3 请求分布:空闲的算力存不起来 · Serving")
        title.setProperty("role", "title")
        row.addWidget(title)
        row.addStretch(1)
        for kind, text in (LEGEND[0], LEGEND[1], LEGEND[2], LEGEND[4], LEGEND[5]):
            chip = QtWidgets.QLabel(f"<span style='color:{COLORS[kind]}'>■</span> {text}")
            chip.setProperty("role", "caption")
            row.addWidget(chip)
        col.addLayout(row)
        lead = QtWidgets.QLabel(
            "平均数相同,负载不一定相同:三段的平均请求率都是每秒 4 条,只有长输入(8192→256)与长输出(1024→2048)"
            "两类的占比不同。decode 能力由显存带宽给出(虚线 = 100%);前一分钟空闲的算力留不到后一分钟。")
        lead.setWordWrap(True)
        lead.setProperty("role", "caption")
        col.addWidget(lead)
        return box

    def _banner_section(self) -> QtWidgets.QWidget:
        self.banner_plot = _compact(PlotCard("▶ 需求与能力 · decode demand against capacity",
                                             "bars: decode steps/s as % of the cards' bandwidth bound"), 250)
        p = self.banner_plot.plot
        p.setLabel("left", "decode demand", units="% of capacity")
        p.setLabel("bottom", "time", units="s")
        p.setMouseEnabled(x=False, y=False)
        p.hideButtons()
        xs = [SEGMENT_S * (i + 0.5) for i in range(3)]
        self.banner_bars = pg.BarGraphItem(x=xs, height=[0, 0, 0], width=SEGMENT_S * 0.92,
                                           brush=brush("decode", 190), pen=pen("decode", 1))
        self.banner_over = pg.BarGraphItem(x=xs, height=[0, 0, 0], y0=[100, 100, 100], width=SEGMENT_S * 0.92,
                                           brush=brush("backlog", 220), pen=pen("backlog", 1))
        p.addItem(self.banner_bars)
        p.addItem(self.banner_over)
        self.capacity_line = pg.InfiniteLine(pos=100, angle=0, pen=pen("capacity", 1.5, dashed=True))
        p.addItem(self.capacity_line)
        # Sits in the gap above the low middle bar, so it never covers a bar.
        self.capacity_label = _text_item(anchor=(1, 0), size=9)
        p.addItem(self.capacity_label)
        self.banner_labels = [_text_item(anchor=(0.5, 1), size=9) for _ in range(3)]
        for label in self.banner_labels:
            p.addItem(label)
        self.banner_cursor = pg.InfiniteLine(pos=0, angle=90, pen=pen("ink", 1.5))
        p.addItem(self.banner_cursor)
        self.banner_status = _text_item(anchor=(0, 0), size=10)
        p.addItem(self.banner_status)
        self.banner_plot.add_curve("demand_pct", pen=None)  # the bars' numbers, for CSV export
        p.getAxis("bottom").setTicks([[(x, text) for x, (text, _) in zip(xs, BANNER_SEGMENTS)],
                                      [(t, f"{t:.0f}") for t in (0, 60, 120, 180)]])
        return self.banner_plot

    def _backlog_plot_section(self) -> QtWidgets.QWidget:
        self.backlog_plot = _compact(PlotCard("例题 3-1 · 练习 3-2 · 积压曲线", "Q_{k+1} = max(0, Q_k + A_k − μΔt)"), 250)
        p = self.backlog_plot.plot
        p.setLabel("left", "backlog", units="steps")
        p.setLabel("bottom", "time", units="s")
        p.addLegend(offset=(70, 40))  # top left, above the short ③ burst and clear of ②'s peak
        for key, preset in bl.PRESETS.items():
            self.backlog_plot.add_curve(key, pen=pen(PRESET_COLORS[key], 2), name=preset["label"])
        self.backlog_plot.add_curve("current", pen=pg.mkPen(color("ink"), width=3, style=QtCore.Qt.PenStyle.DotLine),
                                    name="当前参数")
        self.backlog_cursor = pg.InfiniteLine(pos=0, angle=90, pen=pen("ink", 1.5))
        p.addItem(self.backlog_cursor)
        self.backlog_note = _text_item(anchor=(0, 0), size=10)
        p.addItem(self.backlog_note)
        return self.backlog_plot

    def _backlog_card_section(self) -> QtWidgets.QWidget:
        box = QtWidgets.QWidget()
        col = QtWidgets.QVBoxLayout(box)
        col.setContentsMargins(0, 0, 0, 0)
        row = QtWidgets.QHBoxLayout()
        label = QtWidgets.QLabel("预设 preset")
        label.setProperty("role", "caption")
        self.preset_box = QtWidgets.QComboBox()
        for key, preset in bl.PRESETS.items():
            self.preset_box.addItem(preset["label"], key)
        self.preset_box.addItem("自定义 custom", "")
        self.preset_box.setCurrentIndex(list(bl.PRESETS).index("shift"))
        self.preset_box.setToolTip("Fill the backlog calculator with a preset of the book (例题 3-1 ①②, 练习 3-2 ③④)")
        row.addWidget(label)
        row.addWidget(self.preset_box, 1)
        col.addLayout(row)
        self.backlog_card = CalculatorCard(bl.BACKLOG, compact=True)
        col.addWidget(self.backlog_card, 1)
        return box

    def _replay_section(self) -> QtWidgets.QWidget:
        group = QtWidgets.QGroupBox("真实回放 · KV 池满了,空着的算力也接不了新请求 — continuous batching, two scenarios side by side")
        group.setObjectName("replay_group")
        col = QtWidgets.QVBoxLayout(group)
        caption = QtWidgets.QLabel(
            "Qwen3-8B · 1 张 RTX PRO 6000 · KV 池 24 GiB · 64 序列 · 前缀缓存关。FCFS、16-token 块、每步先 decode 再分块 prefill"
            "(预算 8192 token)、整段 prompt 的块空出来才接纳、块不够时抢占最近接纳的请求并重算。步时 = 屋顶线(带宽效率、prefill MFU、每步开销为示意旋钮)。"
            "书中实测值(vLLM 0.23)列在模拟值旁。")
        caption.setWordWrap(True)
        caption.setProperty("role", "caption")
        col.addWidget(caption)
        top = QtWidgets.QHBoxLayout()
        form_box = QtWidgets.QWidget()
        form_col = QtWidgets.QVBoxLayout(form_box)
        form_col.setContentsMargins(0, 0, 0, 0)
        self.replay_form = ParamForm(rp.REPLAY.params, rp.REPLAY.check)
        form_scroll = QtWidgets.QScrollArea()
        form_scroll.setWidgetResizable(True)
        form_scroll.setWidget(self.replay_form)
        form_scroll.setMinimumWidth(470)
        form_scroll.setMaximumHeight(330)
        a_label = QtWidgets.QLabel("<b>A</b> uses the form; <b>B</b> is A with these shares of long-input requests per window:")
        a_label.setProperty("role", "caption")
        a_label.setWordWrap(True)
        b_row = QtWidgets.QHBoxLayout()
        self.b_shares_edit = QtWidgets.QLineEdit("0.9, 0.1")
        self.b_shares_edit.setObjectName("b_shares")
        self.b_shares_edit.setToolTip("B: shares_long_input per window (9:1 then 1:9 = 0.9, 0.1); one value per window of A")
        self.b_error = QtWidgets.QLabel("")
        self.b_error.setProperty("role", "error")
        self.b_error.setWordWrap(True)
        b_row.addWidget(QtWidgets.QLabel("B · shares_long_input"))
        b_row.addWidget(self.b_shares_edit, 1)
        form_col.addWidget(form_scroll, 1)
        form_col.addWidget(a_label)
        form_col.addLayout(b_row)
        form_col.addWidget(self.b_error)
        top.addWidget(form_box, 0)
        right = QtWidgets.QVBoxLayout()
        self.compare_table = QtWidgets.QTableWidget(len(COMPARE_ROWS), 6)
        self.compare_table.setObjectName("compare_table")
        self.compare_table.setHorizontalHeaderLabels(["A 模拟", "A 书中实测", "A Δ", "B 模拟", "B 书中实测", "B Δ"])
        self.compare_table.setVerticalHeaderLabels(list(COMPARE_ROWS))
        self.compare_table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.compare_table.horizontalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Stretch)
        self.compare_table.setMinimumHeight(290)
        for r, name in enumerate(COMPARE_ROWS):
            out = rp.REPLAY.output(name)
            self.compare_table.verticalHeaderItem(r).setToolTip(f"<b>{name}</b> = {out.formula}<br>{out.help}")
        right.addWidget(self.compare_table, 1)
        band_row = QtWidgets.QHBoxLayout()
        self.band_button = QtWidgets.QPushButton("Band over seeds")
        self.band_button.setObjectName("band_button")
        self.band_button.setToolTip("Re-run A and B with Poisson arrivals and random class order for seeds 0-4: "
                                    "each metric as min – max (median), a band rather than one number")
        self.band_label = QtWidgets.QLabel("Poisson arrivals, 5 seeds: press for the band of each scenario.")
        self.band_label.setProperty("role", "caption")
        self.band_label.setWordWrap(True)
        band_row.addWidget(self.band_button)
        band_row.addWidget(self.band_label, 1)
        right.addLayout(band_row)
        self.replay_status = QtWidgets.QLabel("")
        self.replay_status.setProperty("role", "caption")
        self.replay_status.setWordWrap(True)
        right.addWidget(self.replay_status)
        top.addLayout(right, 1)
        col.addLayout(top)
        self.replay_player = TimelinePlayer(duration=1.0, speed=10.0, unit="s")
        self.replay_player.setToolTip("▶ play both replays; Space toggles")
        col.addWidget(self.replay_player)
        grid = QtWidgets.QGridLayout()
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(10)
        self.queue_plots: dict[str, PlotCard] = {}
        self.kv_plots: dict[str, PlotCard] = {}
        self.gantt_plots: dict[str, PlotCard] = {}
        self.gantt_images: dict[str, pg.ImageItem] = {}
        self.gantt_masks: dict[str, pg.LinearRegionItem] = {}
        self.cursors: list[pg.InfiniteLine] = []
        self.now_labels: dict[str, pg.TextItem] = {}
        for c, side in enumerate(SIDES):
            q = _compact(PlotCard(f"{side} · 等待队列与运行序列", "waiting queue · running sequences"), 190, live=True)
            q.plot.setLabel("left", "requests")
            q.plot.setLabel("bottom", "time", units="s")
            q.plot.addLegend(offset=(-10, 10))
            # Live curves: no antialiasing and no fills, which together keep a playback
            # frame under 16 ms (bench/bench_serving.py); the faint full curves show
            # where each is heading.
            q.add_curve("waiting_all", pen=pg.mkPen(color("wait", 110), width=1), antialias=False)
            q.add_curve("running_all", pen=pg.mkPen(color("decode", 90), width=1), antialias=False)
            q.add_curve("waiting", pen=pen("muted", 2.5), name="waiting", antialias=False)
            q.add_curve("running", pen=pen("decode", 2.5), name="running", antialias=False)
            label = _text_item(anchor=(0, 0), size=10)
            q.plot.addItem(label)
            self.now_labels[side] = label
            kv = _compact(PlotCard(f"{side} · KV 池占用", "used blocks / pool"), 150, live=True)
            kv.plot.setLabel("left", "KV pool", units="%")
            kv.plot.setLabel("bottom", "time", units="s")
            kv.plot.setYRange(0, 105, padding=0)
            kv.add_curve("kv_all", pen=pg.mkPen(color("state", 80), width=1), antialias=False)
            kv.add_curve("kv", pen=pen("state", 2), antialias=False)
            kv.plot.addItem(pg.InfiniteLine(pos=100, angle=0, pen=pen("capacity", 1, dashed=True)))
            g = _compact(PlotCard(f"{side} · 每个请求 (Gantt)", "rows: requests by arrival · 灰 waiting · 蓝 prefill · 橙 decode · 红 preempted"), 230, live=True)
            g.plot.setLabel("left", "request")
            g.plot.setLabel("bottom", "time", units="s")
            g.plot.invertY(True)
            image = pg.ImageItem(axisOrder="row-major")
            image.setLookupTable(GANTT_LUT)
            # The strip changes only when the replay is recomputed; cache its scaled
            # rendering so a frame just blits it under the moving mask.
            image.setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)
            g.plot.addItem(image)
            mask = pg.LinearRegionItem(values=(0, 1), movable=False, brush=pg.mkBrush(255, 255, 255, 170),
                                       pen=pg.mkPen(None))
            g.plot.addItem(mask)
            for plot in (q, kv, g):
                cursor = pg.InfiniteLine(pos=0, angle=90, pen=pen("ink", 1.2))
                plot.plot.addItem(cursor)
                self.cursors.append(cursor)
            kv.plot.setXLink(q.plot)
            g.plot.setXLink(q.plot)
            self.queue_plots[side], self.kv_plots[side], self.gantt_plots[side] = q, kv, g
            self.gantt_images[side], self.gantt_masks[side] = image, mask
            grid.addWidget(q, 0, c)
            grid.addWidget(kv, 1, c)
            grid.addWidget(g, 2, c)
        self.queue_plots["B"].plot.setXLink(self.queue_plots["A"].plot)
        self.queue_plots["B"].plot.setYLink(self.queue_plots["A"].plot)
        self.cdf_plot = _compact(PlotCard("TTFT 的累积分布 · CDF", "fraction of requests with TTFT ≤ x; dashed: the book's p95"), 220, live=True)
        p = self.cdf_plot.plot
        p.setLabel("left", "fraction of requests")
        p.setLabel("bottom", "TTFT", units="s")
        p.setYRange(0, 1.02, padding=0)
        p.addLegend(offset=(-10, -10))
        self.cdf_plot.add_curve("A_all", pen=pg.mkPen(color("prefill", 70), width=1), antialias=False)
        self.cdf_plot.add_curve("B_all", pen=pg.mkPen(color("backlog", 70), width=1), antialias=False)
        self.cdf_plot.add_curve("A", pen=pen("prefill", 2.5), name="A", antialias=False)
        self.cdf_plot.add_curve("B", pen=pen("backlog", 2.5), name="B", antialias=False)
        p.addItem(pg.InfiniteLine(pos=0.95, angle=0, pen=pen("muted", 1, dashed=True)))
        self.book_p95_lines = {side: pg.InfiniteLine(pos=0, angle=90, pen=pen("prefill" if side == "A" else "backlog", 1.2, dashed=True))
                               for side in SIDES}
        for line in self.book_p95_lines.values():
            p.addItem(line)
        self.cdf_note = _text_item(anchor=(0, 0), size=10)
        p.addItem(self.cdf_note)
        grid.addWidget(self.cdf_plot, 3, 0, 1, 2)
        col.addLayout(grid)
        return group

    # ---- wiring -----------------------------------------------------------------
    def _connect(self) -> None:
        self.mix_card.computed.connect(lambda _: self._refresh_banner())
        self.rate_card.computed.connect(lambda _: self._refresh_banner())
        self.backlog_card.computed.connect(lambda _: self._refresh_backlog())
        self.preset_box.currentIndexChanged.connect(self._on_preset_changed)
        self.banner_player.position_changed.connect(self._on_banner_position_changed)
        self.replay_form.values_changed.connect(lambda _: self._refresh_replay())
        self.b_shares_edit.editingFinished.connect(self._refresh_replay)
        self.replay_player.position_changed.connect(self._on_replay_position_changed)
        self.band_button.clicked.connect(self._on_band_requested)

    def refresh(self) -> None:
        self._refresh_banner()
        self._refresh_backlog()
        self._refresh_replay()

    # ---- banner ------------------------------------------------------------------
    def _refresh_banner(self) -> None:
        mix = self.mix_card.values()
        rate = self.rate_card.result
        capacity = rate.get("steps_per_s")
        if not capacity:
            return
        classes = {k: mix[k] for k in ("long_input_in_tokens", "long_input_out_tokens",
                                         "long_output_in_tokens", "long_output_out_tokens")}
        demands, inputs = [], []
        for _, share in BANNER_SEGMENTS:
            r = MIX.run(dict(classes, rate_per_s=mix["rate_per_s"], share_long_input=share))
            demands.append(r["decode_steps_per_s"])
            inputs.append(r["new_input_tokens_per_s"])
        pct = np.array(demands) / capacity * 100
        self.banner_bars.setOpts(height=np.minimum(pct, 100))
        self.banner_over.setOpts(height=np.maximum(pct - 100, 0))
        for i, label in enumerate(self.banner_labels):
            label.setText(f"{BANNER_SEGMENTS[i][0]}\n{_num(demands[i])} 步/s · {pct[i]:.0f}%\n输入 {_num(inputs[i])} token/s")
            label.setPos(SEGMENT_S * (i + 0.5), max(pct[i], 100) + 4)
        top = max(float(pct.max()), 100.0) * 1.32
        self.banner_plot.plot.setYRange(0, top, padding=0)
        self.banner_plot.plot.setXRange(0, 3 * SEGMENT_S, padding=0.01)
        self.banner_status.setPos(2, top * 0.995)
        self.capacity_label.setText(f"虚线 100% = {capacity:,.0f} 步/s\n({rate['steps_per_s_per_card']:,.0f}/卡 × {self.rate_card.values()['cards']} 卡)")
        self.capacity_label.setPos(2 * SEGMENT_S - 3, 100)
        # The backlog as the three segments play: none in the first two, growth in the third.
        back = bl.BACKLOG.run({"durations_s": (SEGMENT_S,) * 3, "rates_per_s": (mix["rate_per_s"],) * 3,
                               "shares_long_input": tuple(s for _, s in BANNER_SEGMENTS),
                               "long_input_out_tokens": mix["long_input_out_tokens"],
                               "long_output_out_tokens": mix["long_output_out_tokens"],
                               "cards": 1, "steps_per_s_per_card": capacity})
        x = np.repeat(np.arange(4) * SEGMENT_S, 2)[1:-1]
        self.banner_plot.curves["demand_pct"].setData(x, np.repeat(pct, 2))
        self._banner = {"pct": pct, "demands": demands, "t": np.asarray(back["t_s"]),
                        "q": np.asarray(back["backlog_steps"]), "capacity": capacity}
        self._on_banner_position_changed(self.banner_player.position)

    def _on_banner_position_changed(self, t: float) -> None:
        self.banner_cursor.setValue(t)
        self.backlog_cursor.setValue(t)
        b = self._banner
        if not b:
            return
        seg = min(int(t // SEGMENT_S), 2)
        q = float(np.interp(t, b["t"], b["q"]))
        self.banner_status.setText(f"t = {t:5.1f} s · {BANNER_SEGMENTS[seg][0]} · 需求 {b['pct'][seg]:.0f}% · 积压 {q:,.0f} 步")

    # ---- backlog -----------------------------------------------------------------
    def _on_preset_changed(self, index: int) -> None:
        key = self.preset_box.itemData(index)
        if not key:
            return
        # All fields at once: one window's durations with two windows' rates would be
        # invalid in between.
        self.backlog_card.form.set_values(bl.preset_params(key))

    def _refresh_backlog(self) -> None:
        values = self.backlog_card.values()
        shared = {k: values[k] for k in ("long_input_out_tokens", "long_output_out_tokens", "steps_per_s_per_card", "dt_s")}
        t_max = 0.0
        for key in bl.PRESETS:
            r = bl.BACKLOG.run(dict(shared, **bl.preset_params(key)))
            self.backlog_plot.curves[key].setData(r["t_s"], r["backlog_steps"])
            t_max = max(t_max, r["t_s"][-1])
        current = self.backlog_card.result
        if current:
            self.backlog_plot.curves["current"].setData(current["t_s"], current["backlog_steps"])
            t_max = max(t_max, current["t_s"][-1])
            peak = current["peak_backlog_steps"]
            self.backlog_note.setText(
                f"当前: 峰值 {peak:,.1f} 步 @ {current['peak_at_s']:.0f} s · 排空 {current['drain_s']:.2f} s")
        self.backlog_plot.plot.setXRange(0, t_max, padding=0.02)
        vb = self.backlog_plot.plot.getViewBox()
        vb.enableAutoRange(axis=pg.ViewBox.YAxis)
        top = max(120_000.0, float(np.max(current["backlog_steps"])) if current else 0.0)
        self.backlog_note.setPos(t_max * 0.02, top * 1.08)
        self.backlog_plot.plot.setYRange(0, top * 1.12, padding=0)
        preset = self._matching_preset(values)
        blocker = QtCore.QSignalBlocker(self.preset_box)
        self.preset_box.setCurrentIndex(list(bl.PRESETS).index(preset) if preset else self.preset_box.count() - 1)
        del blocker

    @staticmethod
    def _matching_preset(values: dict) -> str | None:
        for key in bl.PRESETS:
            p = bl.preset_params(key)
            if all(tuple(values[k]) == tuple(v) if isinstance(v, tuple) else values[k] == v for k, v in p.items()):
                return key
        return None

    # ---- replay ------------------------------------------------------------------
    def _b_shares(self, values: dict):
        param = rp.REPLAY.param("shares_long_input")
        try:
            shares = param.parse(self.b_shares_edit.text())
            if len(shares) != len(values["durations_s"]):
                raise ParamError("shares_long_input", f"got {len(shares)} values for {len(values['durations_s'])} windows; valid: one per window")
        except ParamError as err:
            self.b_error.setText(f"B: {err}")
            self.b_shares_edit.setProperty("invalid", True)
            self.b_shares_edit.style().polish(self.b_shares_edit)
            return None
        self.b_error.setText("")
        self.b_shares_edit.setProperty("invalid", False)
        self.b_shares_edit.style().polish(self.b_shares_edit)
        return shares

    def _refresh_replay(self) -> None:
        values = self.replay_form.values()
        if values is None:
            return
        shares_b = self._b_shares(values)
        runs = {"A": values}
        if shares_b is not None:
            runs["B"] = dict(values, shares_long_input=shares_b)
        elif "B" in self._replay:
            runs["B"] = self._replay["B"]["values"]
        for side, v in runs.items():
            result, work, config = rp.run_replay(v)
            summary = rp.summarize(result, work, config)
            scenario = rp.matching_scenario(v)
            self._replay[side] = {"values": v, "result": result, "summary": summary, "scenario": scenario}
        t_end = max(d["summary"]["last_completion_s"] for d in self._replay.values())
        for side, d in self._replay.items():
            self._draw_side(side, d, t_end)
        self._fill_table()
        first = self.replay_player.duration <= 1.0  # the placeholder before the first run
        self.replay_player.set_duration(t_end)
        if first:
            # Open on the whole run; ▶ starts again from 0.
            self.replay_player.seek(t_end)
        walls = " · ".join(f"{s}: {d['summary']['requests']} requests, {d['summary']['engine_steps']:,} steps in "
                           f"{d['result'].wall_s * 1e3:.0f} ms" for s, d in self._replay.items())
        self.replay_status.setText(f"simulated {walls}. Δ within ±10% of the book's vLLM run shown green, "
                                   "beyond it orange.")
        self._on_replay_position_changed(self.replay_player.position)
        self.replay_computed.emit({side: d["summary"] for side, d in self._replay.items()})

    def _on_band_requested(self) -> None:
        """Both scenarios over seeds 0-4 with Poisson arrivals and shuffled classes."""
        parts = []
        self.band = {}
        for side, d in self._replay.items():
            values = dict(d["values"], arrival="poisson", class_order="random")
            band = rp.band(values, range(BAND_SEEDS))
            self.band[side] = band
            lo, mid, hi = band["ttft_p95_s"]
            rlo, rmid, rhi = band["last_completion_s"]
            parts.append(f"<b>{side}</b>: TTFT p95 {lo:.1f} – {hi:.1f} s (median {mid:.1f}), "
                         f"last completion {rlo:.1f} – {rhi:.1f} s")
        self.band_label.setText(f"Poisson arrivals, random class order, seeds 0–{BAND_SEEDS - 1}: " + " · ".join(parts))

    def _draw_side(self, side: str, d: dict, t_end: float) -> None:
        r = d["result"]
        t = r.series_t
        q, kv, g = self.queue_plots[side], self.kv_plots[side], self.gantt_plots[side]
        q.curves["waiting_all"].setData(t, r.series_waiting, stepMode=None)
        q.curves["running_all"].setData(t, r.series_running)
        kv.curves["kv_all"].setData(t, r.series_kv_fraction * 100)
        scenario = d["scenario"]
        name = rp.SCENARIOS[scenario]["label"] if scenario else "custom"
        q.title_label.setText(f"<b>{side} · {name} · 等待队列与运行序列</b>")
        codes, order = gantt.state_matrix(r, t_end, GANTT_BINS)
        self.gantt_images[side].setImage(codes, levels=(0, 4), autoLevels=False)
        self.gantt_images[side].setRect(QtCore.QRectF(0, 0, t_end, codes.shape[0]))
        g.plot.setYRange(0, codes.shape[0], padding=0)
        q.plot.setXRange(0, t_end, padding=0.01)
        top = max(float(self._replay_max("series_waiting")), float(self._replay_max("series_running"))) * 1.1 + 1
        q.plot.setYRange(0, top, padding=0)
        self.now_labels[side].setPos(t_end * 0.01, top)
        x, y = gantt.cdf(r.ttft_s)
        self.cdf_plot.curves[f"{side}_all"].setData(x, y)
        d["ttft_sorted"] = x
        # Requests in TTFT order with the moment each got its first token: playback shows
        # the CDF of those that have one by time t.
        d["first_token_sorted"] = r.first_token_s[np.argsort(r.ttft_s, kind="stable")]
        obs = rp.OBSERVED.get(scenario) if scenario else None
        line = self.book_p95_lines[side]
        line.setVisible(obs is not None)
        if obs is not None:
            line.setValue(obs["ttft_p95_s"])

    def _replay_max(self, attr: str) -> float:
        return max(float(np.max(getattr(d["result"], attr))) for d in self._replay.values())

    def _fill_table(self) -> None:
        good, bad = QtGui.QColor("#e3f4e8"), QtGui.QColor("#fdecd9")
        for c0, side in ((0, "A"), (3, "B")):
            d = self._replay.get(side)
            if d is None:
                continue
            obs = rp.OBSERVED.get(d["scenario"]) if d["scenario"] else None
            for r, name in enumerate(COMPARE_ROWS):
                sim = d["summary"][name]
                book = obs.get(name) if obs else None
                if name == "decode_bound_s" and d["scenario"]:
                    book = 197.6
                cells = [rp.REPLAY.format_output(name, sim), "—" if book is None else rp.REPLAY.format_output(name, book), ""]
                tint = None
                if book is not None:
                    diff = (sim - book) / book * 100 if book else 0.0
                    cells[2] = f"{diff:+.1f}%"
                    tint = good if abs(diff) <= 10 else bad
                for k, text in enumerate(cells):
                    item = self.compare_table.item(r, c0 + k)
                    if item is None:
                        item = QtWidgets.QTableWidgetItem()
                        item.setTextAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
                        self.compare_table.setItem(r, c0 + k, item)
                    item.setText(text)
                    item.setBackground(tint if (tint is not None and k == 2) else QtGui.QColor("#ffffff"))
        labels = []
        for side in SIDES:
            d = self._replay.get(side)
            name = rp.SCENARIOS[d["scenario"]]["label"] if d and d["scenario"] else "custom"
            labels += [f"{side} 模拟 · {name}", f"{side} 书中实测", f"{side} Δ"]
        self.compare_table.setHorizontalHeaderLabels(labels)

    def _on_replay_position_changed(self, t: float) -> None:
        """One frame of playback: setData on persistent items only."""
        for cursor in self.cursors:
            cursor.setValue(t)
        notes = []
        for side, d in self._replay.items():
            r = d["result"]
            k = int(np.searchsorted(r.series_t, t, side="right"))
            q, kv = self.queue_plots[side], self.kv_plots[side]
            q.curves["waiting"].setData(r.series_t[:k], r.series_waiting[:k])
            q.curves["running"].setData(r.series_t[:k], r.series_running[:k])
            kv.curves["kv"].setData(r.series_t[:k], r.series_kv_fraction[:k] * 100)
            self.gantt_masks[side].setRegion((t, self.replay_player.duration))
            i = max(k - 1, 0)
            self.now_labels[side].setText(
                f"t = {t:6.1f} s · waiting {r.series_waiting[i]} · running {r.series_running[i]} · "
                f"KV {r.series_kv_fraction[i] * 100:.0f}%")
            done = d["first_token_sorted"] <= t
            x = d["ttft_sorted"][done]
            self.cdf_plot.curves[side].setData(x, np.arange(1, x.size + 1) / d["ttft_sorted"].size)
            notes.append(f"{side}: {x.size}/{d['ttft_sorted'].size} 已出首 token")
        self.cdf_note.setText(" · ".join(notes))
        if self._replay:
            xmax = max(float(d["ttft_sorted"][-1]) for d in self._replay.values())
            self.cdf_note.setPos(xmax * 0.01, 1.0)

    def close(self) -> bool:
        self.banner_player.pause()
        self.replay_player.pause()
        return super().close()


PANEL = PanelInfo(key="serving", title="请求分布与连续批处理 · Serving", section="3.1.3", order=1.5,
                  factory=ServingPanel)
