"""The prefill pool and the decode pool side by side (issue 15 in the window): for each, its
requests waiting and running and its KV use over time (the pool's total over its
instances: one line each reads on a projector; the per-instance numbers are in the pool's
line), and its own latency (TTFT at the prefill, time per token from the KV's landing at
the decode); under them the KV transfers in flight over time and what waited where
(widgets/serving/pools_run.py makes the figure). Hidden until a P/D run is drawn."""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtWidgets

from widgets.kit.page import ReflowLayout, caption
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import pen
from widgets.serving.pools_run import SIDES, PoolsFigure
from widgets.serving.replay_plots import narrow_header

PLOT_HEIGHT = 150
POOL_NAMES = {"prefill": "预填充池 · prefill pool", "decode": "解码池 · decode pool"}
# What waited where, in the report's order (core/serving/disagg/report.py's waits).
WAITS = (("prefill_queue_ms", "prefill 排队 · prefill queue"), ("prefill_ms", "prefill 计算 · prefill compute"),
         ("decode_queue_for_blocks_ms", "decode 等 KV 块 · decode waits for blocks"),
         ("transfer_ms", "KV 传输 · KV transfer"),
         ("decode_seat_after_landing_ms", "落地后等 decode 座位 · decode seat after landing"),
         ("decode_ms", "decode 生成 · decode"))


def ms_text(value) -> str:
    """A time in ms as the CLI's P/D lines print it (us under a millisecond, s over 1,000)."""
    if value is None:
        return "-"
    if abs(value) < 1:
        return f"{value * 1e3:,.0f} us"
    return f"{value:,.1f} ms" if abs(value) < 1e3 else f"{value / 1e3:,.2f} s"


def pool_line(side: str, p: dict) -> str:
    """The pool's instances, work and own latency, as one '中文 · English' pair."""
    if side == "prefill":
        lat = p.get("ttft_ms") or {}
        zh_lat, en_lat = "TTFT", "TTFT"
    else:
        lat = p.get("tpot_from_landing_ms") or {}
        zh_lat, en_lat = "落地后每 token", "per token from landing"
    p50, p95 = ms_text(lat.get("p50")), ms_text(lat.get("p95"))
    kv = f"{p['kv_peak_fraction'] * 100:.0f}%"
    zh = (f"{p['instances']} 个实例 × {p['cards_per_instance']} 卡,{p['requests']:,} 个请求,{p['engine_steps']:,} "
          f"步,{p['preemptions']} 次抢占,KV 峰值 {kv};{zh_lat} p50 {p50},p95 {p95}")
    en = (f"{p['instances']} instances x {p['cards_per_instance']} card, {p['requests']:,} requests, "
          f"{p['engine_steps']:,} steps, {p['preemptions']} preemptions, KV peak {kv}; {en_lat} p50 {p50}, p95 {p95}")
    return f"{zh} · {en}"


def link_line(block: dict) -> str:
    """The link and the transfer mode: a pair, then the link's name as an identifier (a
    pair never spans a <code> span: each text piece between tags translates alone)."""
    link = block["kv_link"]
    bw = link["bandwidth_bytes_per_s"]
    speed = f"{bw / 1e9:,.1f} GB/s" if bw else "∞"
    return f"{block['pools']} KV 链路 · {block['pools']} KV link: <code>{link['name']}</code>, {speed}"


def transfer_line(block: dict) -> str:
    t = block["transfer"]
    gb = f"{t['bytes_total'] / 1e9:,.3f} GB"
    p50, p95 = ms_text(t["ms"]["p50"]), ms_text(t["ms"]["p95"])
    zh = f"传输 {t['requests']:,} 次,共 {gb};每次 p50 {p50},p95 {p95}"
    en = f"{t['requests']:,} transfers, {gb}; each p50 {p50}, p95 {p95}"
    return f"{zh} · {en}"


def steps(t: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A step series (v[i] from t[i] until t[i + 1]) as the corners a line through it turns."""
    t, v = np.asarray(t, float), np.asarray(v, float)
    if t.size < 2:
        return t, v
    return np.repeat(t, 2)[1:], np.repeat(v, 2)[:-1]


def _card(title: str, subtitle: str, left: str) -> PlotCard:
    card = narrow_header(PlotCard(title, subtitle))
    card.plot_widget.setMinimumHeight(PLOT_HEIGHT)
    card.plot.setMenuEnabled(False)
    card.plot.setLabel("left", left)
    card.plot.setLabel("bottom", "时间 · time", units="s")
    return card


def images_line(report: dict) -> str:
    """E -> P -> D: where the images' encoder ran and what it did ('' without images)."""
    b = report.get("images")
    if not b:
        return ""
    mib = f"{b['ec_bytes'] / 2**20:,.1f} MiB"
    if b["mode"] == "epd":
        zh_where = f"{b['epd_encoders']} 张编码卡经 {b['ec_link_gb_s']:g} GB/s 把 EC 送到 prefill 池"
        en_where = f"{b['epd_encoders']} encoder card(s) ship EC over {b['ec_link_gb_s']:g} GB/s to the prefill pool"
    else:
        zh_where, en_where = "编码器在 prefill 实例内", "the encoder in the prefill instance"
    zh = (f"带图请求 {b['image_requests']:,} 个({b['visual_tokens_total']:,} 个视觉 token,其 KV 也一起传):"
          f"{zh_where};编码器缓存命中 {b['encoder_cache_hits']:,},编码 {b['encoder_cache_misses']:,};EC {mib}")
    en = (f"{b['image_requests']:,} image requests ({b['visual_tokens_total']:,} visual tokens, their KV shipped "
          f"too): {en_where}; {b['encoder_cache_hits']:,} encoder-cache hits, {b['encoder_cache_misses']:,} "
          f"encoded; EC {mib}")
    return f"{zh} · {en}"


class PoolsView(QtWidgets.QFrame):
    """Hidden, and empty, until its first P/D run is drawn: its plots are made then, not on
    the Serving panel's first visit (most panels never run one, and a plot is slow to make)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("pools_view")
        self.setProperty("role", "card")
        self._col = QtWidgets.QVBoxLayout(self)
        self._col.setContentsMargins(8, 6, 8, 6)
        self.figure: PoolsFigure | None = None
        self.setVisible(False)

    def is_built(self) -> bool:
        """The plots and lines are made (at the first draw)."""
        return hasattr(self, "inflight_card")

    def _build(self) -> None:
        col = self._col
        heading = QtWidgets.QLabel("prefill 池与 decode 池并排 · the prefill and decode pools side by side")
        heading.setStyleSheet("font-weight: 600;")
        heading.setWordWrap(True)
        col.addWidget(heading)
        self.command = caption("", name="pools_command")
        self.command.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        col.addWidget(self.command)
        self.images_label = caption("", name="pools_images_line")
        self.images_label.setVisible(False)
        col.addWidget(self.images_label)
        pools = ReflowLayout(columns=2, min_column_em=18)
        self.lines: dict[str, QtWidgets.QLabel] = {}
        self.queue_cards: dict[str, PlotCard] = {}
        self.kv_cards: dict[str, PlotCard] = {}
        first = None
        for side in SIDES:
            box = QtWidgets.QWidget()
            c = QtWidgets.QVBoxLayout(box)
            c.setContentsMargins(0, 0, 0, 0)
            name = QtWidgets.QLabel(POOL_NAMES[side])
            name.setStyleSheet("font-weight: 600;")
            c.addWidget(name)
            self.lines[side] = caption("", name=f"pools_{side}_line")
            c.addWidget(self.lines[side])
            q = _card("排队与运行 · waiting and running", "灰:排队;彩色:运行 · grey: waiting; colour: running",
                      "请求 · requests")
            q.curves["waiting"] = q.plot.plot([], [], pen=pen("wait", 2), name="waiting")
            q.curves["running"] = q.plot.plot([], [], pen=pen(side, 2), name="running")
            kv = _card("KV 占用 · KV use", "占池中块的比例 · share of the pool's blocks", "KV %")
            kv.curves["kv"] = kv.plot.plot([], [], pen=pen("state", 2), name="kv")
            kv.plot.setYRange(0, 100)
            for card in (q, kv):
                if first is None:
                    first = card.plot
                else:
                    card.plot.setXLink(first)
                c.addWidget(card)
            self.queue_cards[side], self.kv_cards[side] = q, kv
            pools.addWidget(box)
        col.addLayout(pools)
        bottom = ReflowLayout(columns=2, min_column_em=18)
        self.inflight_card = _card("传输中的 KV · KV transfers in flight", "", "传输数 · transfers")
        self.inflight_card.curves["inflight"] = self.inflight_card.plot.plot([], [], pen=pen("tool", 2),
                                                                           name="inflight")
        self.inflight_card.plot.setXLink(first)
        bottom.addWidget(self.inflight_card)
        bottom.addWidget(self._waits_box())
        col.addLayout(bottom)

    def _waits_box(self) -> QtWidgets.QWidget:
        box = QtWidgets.QFrame()
        box.setProperty("role", "card")
        grid = QtWidgets.QGridLayout(box)
        grid.setContentsMargins(8, 6, 8, 6)
        title = QtWidgets.QLabel("请求在哪里等 · what waited where")
        title.setStyleSheet("font-weight: 600;")
        grid.addWidget(title, 0, 0, 1, 3)
        self.link_label = caption("", name="pools_link_line")
        self.link_label.setTextFormat(QtCore.Qt.TextFormat.RichText)
        grid.addWidget(self.link_label, 1, 0, 1, 3)
        self.transfer_label = caption("", name="pools_transfer_line")
        grid.addWidget(self.transfer_label, 2, 0, 1, 3)
        for c, text in enumerate(("", "p50", "p95")):
            head = QtWidgets.QLabel(text)
            head.setStyleSheet("font-weight: 600;")
            grid.addWidget(head, 3, c)
        self.wait_cells: dict[str, tuple[QtWidgets.QLabel, QtWidgets.QLabel]] = {}
        for r, (key, label) in enumerate(WAITS, start=4):
            grid.addWidget(QtWidgets.QLabel(label), r, 0)
            cells = (QtWidgets.QLabel("-"), QtWidgets.QLabel("-"))
            for c, cell in enumerate(cells, start=1):
                cell.setObjectName(f"wait_{key}_{'p50' if c == 1 else 'p95'}")
                cell.setAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
                grid.addWidget(cell, r, c)
            self.wait_cells[key] = cells
        grid.setColumnStretch(0, 1)
        grid.setRowStretch(len(WAITS) + 4, 1)
        return box

    def clear(self) -> None:
        self.figure = None
        self.setVisible(False)

    def draw(self, fig: PoolsFigure) -> None:
        if not self.is_built():
            self._build()
        self.figure = fig
        block = fig.block
        self.command.setText(f"<code>{fig.command()}</code>")
        self.images_label.setText(images_line(fig.report))
        self.images_label.setVisible(bool(self.images_label.text()))
        for side in SIDES:
            s = fig.pools[side]
            self.lines[side].setText(pool_line(side, block[side]))
            q = self.queue_cards[side].curves
            q["waiting"].setData(*steps(s.t, s.waiting))
            q["running"].setData(*steps(s.t, s.running))
            top = max(float(np.max(s.waiting, initial=0)), float(np.max(s.running, initial=0)), 1.0)
            self.queue_cards[side].plot.setYRange(0, top * 1.05)  # an empty pool still reads 0..1
            self.kv_cards[side].curves["kv"].setData(*steps(s.kv_t, s.kv_percent))
        self.inflight_card.curves["inflight"].setData(*steps(fig.inflight_t, fig.inflight))
        self.inflight_card.plot.setYRange(0, max(float(np.max(fig.inflight, initial=0)), 1.0) * 1.05)
        self.inflight_card.set_subtitle(f"峰值 {int(np.max(fig.inflight)) if fig.inflight.size else 0} · "
                                        f"peak {int(np.max(fig.inflight)) if fig.inflight.size else 0}")
        self.link_label.setText(link_line(block))
        self.transfer_label.setText(transfer_line(block))
        for key, (p50, p95) in self.wait_cells.items():
            w = block["waits"][key]
            p50.setText(ms_text(w["p50"]))
            p95.setText(ms_text(w["p95"]))
        self.setVisible(True)
