"""The handoff card's "replay it": the book's three handoffs (ship the image, EC or KV)
run through the serving engine for the panel's request at a load, and TTFT p50/p95
plotted against link bandwidth (core/serving/multimodal/handoff.py). The sweep runs on
the app's job runner: the GUI never waits for it; a new click cancels the one running."""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from PySide6 import QtCore, QtWidgets

from core.serving.multimodal import handoff as ho
from core.units import format_bytes
from widgets.kit.jobs import BusyBadge, jobs
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import COLORS, pen

JOB_KEY = "vision.handoff_replay"
KINDS = {"image": "wait", "ec": "ec", "kv": "state"}  # the handoff diagram's colours
# "中文 · English" pairs: the language switch shows one side (widgets/kit/i18n_text.py).
LEGEND = {"image": "传原图,接收方编码 · ship the image (receiver encodes)",
          "ec": "传 EC(编码器分离) · ship EC (EPD)", "kv": "传 KV(P/D 分离) · ship KV (P/D)"}
SHORT = {"image": ("传原图", "ship the image"), "ec": ("传 EC", "ship EC"), "kv": ("传 KV", "ship KV")}
DEFAULT_RATE = 10.0


def run_sweep(inputs: Mapping[str, Any], rate_per_s: float, cancel=None) -> dict:
    """What the job computes (a plain function: the worker thread runs it)."""
    load = ho.request_load(inputs, rate_per_s)
    kwargs = {} if cancel is None else {"cancel": cancel}
    return ho.sweep_bandwidth(ho.PANEL_BANDWIDTHS, load, **kwargs)


class HandoffReplay(QtWidgets.QWidget):
    """A "replay it" button, the load, and the plot of TTFT against link bandwidth."""

    replayed = QtCore.Signal(object)  # the sweep drawn (its dict)
    replay_failed = QtCore.Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.inputs: dict[str, Any] | None = None
        self.result: dict | None = None
        self._replayed_inputs: dict[str, Any] | None = None  # the request the plot is of
        self._submitted: dict[str, Any] | None = None
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        row = QtWidgets.QHBoxLayout()
        self.button = QtWidgets.QPushButton("跑一遍 ▶ · replay it ▶")
        self.button.setObjectName("handoff_replay")
        self.button.setToolTip("Run the three handoffs through the serving engine (Qwen3-VL-4B, one H100 per "
                               "instance) at this load, for link bandwidths from 1 Gbit/s to NVLink")
        self.button.clicked.connect(self.replay)
        self.rate = QtWidgets.QDoubleSpinBox()
        self.rate.setRange(0.1, 1000.0)
        self.rate.setDecimals(1)
        self.rate.setValue(DEFAULT_RATE)
        self.rate.setSuffix(" req/s")
        self.rate.setToolTip("Poisson arrivals of this request (200 of them, 128 output tokens each)")
        self.status = QtWidgets.QLabel("")
        self.status.setProperty("role", "caption")
        self.status.setWordWrap(True)
        self.badge = BusyBadge(JOB_KEY, owner=self)
        row.addWidget(self.button)
        row.addWidget(QtWidgets.QLabel("负载 · load"))
        row.addWidget(self.rate)
        row.addWidget(self.badge)
        row.addStretch(1)
        lay.addLayout(row)
        lay.addWidget(self.status)  # its own line: the summary in two languages is long
        self.plot = PlotCard("TTFT 与链路带宽:三种交接跑过引擎 · TTFT against link bandwidth: the three handoffs "
                             "through the engine", "实线 p50,虚线 p95;对数坐标 · solid p50, dashed p95; log-log")
        p = self.plot.plot
        p.setLogMode(x=True, y=True)
        p.setLabel("bottom", "链路带宽 (GB/s) · link bandwidth (GB/s)")
        p.setLabel("left", "TTFT (s)")
        p.setMouseEnabled(x=False, y=False)
        legend = p.addLegend(offset=(-10, 4))  # top right: the slow-link end of the curves is top left
        for key, kind in KINDS.items():
            legend.addItem(self.plot.add_curve(f"{key}_p50", pen=pen(kind, 2.0), symbol="o", symbolSize=5,
                                               symbolBrush=COLORS[kind], symbolPen=None), LEGEND[key])
            self.plot.add_curve(f"{key}_p95", pen=pen(kind, 1.5, dashed=True))
        self.plot.plot_widget.setMinimumHeight(240)
        self.plot.setVisible(False)  # until the first replay
        lay.addWidget(self.plot)

    def set_request(self, inputs: Mapping[str, Any]) -> None:
        """The panel's current request (vision.request's inputs); a replay uses the latest.
        A plot of another request says so (it is not redrawn until replayed)."""
        self.inputs = dict(inputs)
        if self.result is not None and self._replayed_inputs != self.inputs:
            self.status.setText("图是上一个请求的:再跑一遍 · the plot is of the previous request: replay it for this one")

    def replay(self) -> None:
        if self.inputs is None:
            return
        self.status.setText("")
        self._submitted = dict(self.inputs)
        jobs().submit(JOB_KEY, run_sweep, self.inputs, self.rate.value(), done=self._on_done,
                      failed=self._on_failed, context=self)

    def _on_failed(self, text: str) -> None:
        if text:  # empty: cancelled
            self.status.setText("跑失败了 · replay failed: " + text.strip().splitlines()[-1])
            self.replay_failed.emit(text)

    def _on_done(self, result: dict) -> None:
        self.result = result
        self._replayed_inputs = self._submitted
        gb = [b / 1e9 for b in result["bandwidth_bytes_per_s"]]
        for key in KINDS:
            self.plot.curves[f"{key}_p50"].setData(gb, result[key]["ttft_p50_s"])
            self.plot.curves[f"{key}_p95"].setData(gb, result[key]["ttft_p95_s"])
        self.plot.setVisible(True)
        self.status.setText(self._summary(result))
        self.replayed.emit(result)

    @staticmethod
    def _summary(result: dict) -> str:
        """Bytes per request of each handoff and which is fastest at the slowest and fastest
        link, in both languages (a "中文 · English" pair)."""
        sizes = {k: format_bytes(result[k]["bytes_per_request"], "si", 3) for k in KINDS}
        zh = [";".join(f"{SHORT[k][0]} {sizes[k]}/请求" for k in KINDS)]
        en = ["; ".join(f"{SHORT[k][1]} {sizes[k]}/req" for k in KINDS)]
        for i, (where_zh, where_en) in ((0, ("最慢", "slowest")), (-1, ("最快", "fastest"))):
            best = min(KINDS, key=lambda k: result[k]["ttft_p95_s"][i])
            bw = f"{result['bandwidth_bytes_per_s'][i] / 1e9:.3g} GB/s"
            p95 = _ms(result[best]["ttft_p95_s"][i])
            zh.append(f"{bw}({where_zh})时{SHORT[best][0]}最快,p95 {p95}")
            en.append(f"at {bw} ({where_en}) {SHORT[best][1]} wins, p95 {p95}")
        return "。".join(zh) + " · " + " — ".join(en)


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.0f} ms" if math.isfinite(seconds) and seconds < 100 else f"{seconds:,.0f} s"
