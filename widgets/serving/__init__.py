"""§3.1.3 as one page: the chapter's banner (decode demand against capacity, three
segments, ▶), the calculators of 例题 3-1 (mix, bandwidth-bound decode rate, backlog with
the presets of 练习 3-2), and the continuous-batching replay of two scenarios side by side
with the book's observed values beside the simulated ones, played back live.

A trace file (opened, or dropped on the panel) replaces the book's windows in both
replays; under the plots, the replays under vLLM bench serve's names and, for a vllm bench
result, its measured TTFT and ITL distributions against the simulated ones.

The panel is a view of core.serving.state.ServingState; its figures come from
core.serving.figures (and overlay_figures). Loading, the replays, the metrics and the band
over seeds run on the job runner (busy badge, cancel, the latest edit wins), so the page
shows at once and fills in."""
from __future__ import annotations

import shiboken6
from PySide6 import QtCore, QtWidgets

from core.serving import figures as F
from core.serving.state import REPLAY_SIDES, ServingState
from widgets.kit.calculator_card import CalculatorCard
from widgets.kit.jobs import jobs
from widgets.kit.lifetime import free_on_close
from widgets.kit.page import PAGE_COLUMN_EM, ReflowLayout, column, fixed_text_width, page_header, scroll_page
from widgets.kit.panels import PanelInfo
from widgets.kit.theme import LEGEND
from widgets.kit.timeline_player import TimelinePlayer
from widgets.kit.turns import InTurns
from widgets.serving import calibrate_glue
from widgets.serving.backlog import BacklogCardSection, BacklogPlot
from widgets.serving.band import BandOverSeeds
from widgets.serving.banner import BannerDrawing, BannerSection
from widgets.serving.byte_fields import ByteEcho
from widgets.serving.deployed_replays import DeployedReplays
from widgets.serving.lower_sections import LowerSections
from widgets.serving.model_picker import ModelPickerSection
from widgets.serving.replay_controls import CAPTION, ReplayControls, caption
from widgets.serving.replay_plots import ReplayPlots
from widgets.serving.trace_source import TraceSourceSection, in_language

LEAD = ("平均数相同,负载不一定相同:三段的平均请求率都是每秒 4 条,只有长输入(8192→256)与长输出(1024→2048)"
        "两类的占比不同。decode 能力由显存带宽给出(虚线 = 100%);前一分钟空闲的算力留不到后一分钟。")


def _fixed_time_label(player: TimelinePlayer) -> None:
    """The player's time text changes every frame; a fixed width keeps it from re-laying
    out the page."""
    fixed_text_width(player.time_label, "00,000.00 / 00,000.00 s")


class ServingPanel(DeployedReplays, BannerDrawing, BandOverSeeds, LowerSections, QtWidgets.QWidget):
    """The Serving panel (§3.1.3), a view of a ServingState."""

    # object, not dict: PySide would convert a dict (and its long series lists) to a QVariantMap.
    replay_computed = QtCore.Signal(object)  # {side: summary} once both replays are current
    band_computed = QtCore.Signal(object)

    built = QtCore.Signal()  # every section is on the page

    def __init__(self, state: ServingState | None = None, parent=None):
        super().__init__(parent)
        free_on_close(self)  # a closed panel is freed (widgets/kit/lifetime.py)
        self.state = state if state is not None else ServingState()
        self._keys = {side: f"serving.replay.{side}.{id(self)}" for side in REPLAY_SIDES}
        self._band_key = f"serving.band.{id(self)}"
        self._trace_key, self._metrics_key = f"serving.trace.{id(self)}", f"serving.metrics.{id(self)}"
        self._overlay_key = f"serving.overlay.{id(self)}"
        self._calibrate_key = f"serving.calibrate.{id(self)}"
        self.calibrate_section = None
        self.metrics_table: dict | None = None  # the latest vLLM metrics table drawn
        self._drawn_source = None  # the replays' source drawn last (a new one opens on its whole run)
        self._submitted: dict[str, object] = {}
        self.band_figure: dict | None = None
        self.banner = self.backlog_plot = self.backlog_section = self.controls = None
        self.trace_section = self.metrics_section = self.overlay = self.model_section = self.caption = None
        self._built = False
        self._build_ui()
        self._connect()
        self.refresh()

    # ---- construction -------------------------------------------------------------
    def _build_ui(self) -> None:
        """The page and its header now; every other section one per turn of the event
        loop (a plot takes about 40 ms to make), so the panel shows at once and fills in
        while the replays run on the job runner."""
        self._layout = scroll_page(self, "")
        self._scroll = self.findChild(QtWidgets.QScrollArea)
        self._layout.addWidget(page_header("§3.1.3 请求分布:空闲的算力存不起来 · Serving",
                                           (LEGEND[0], LEGEND[1], LEGEND[2], LEGEND[4], LEGEND[5]), LEAD))
        steps = [self._build_top, self._build_backlog_plot, self._build_banner_player, self._build_cards,
                 self._build_replay_group, self._build_trace_source, self._build_controls, self._build_table,
                 self._build_replay_player]
        self.plots = ReplayPlots()
        # The sections under the replays, one a turn too (together they held the window for
        # a quarter of a second of CPU on a first visit).
        steps += self.plots.build_steps() + [self._build_metrics, self._build_overlay, self._build_replicas,
                                             self._build_calibrate, self._build_pools, self._build_images,
                                             self._show_lower, self._finish_build]
        # widgets/kit/turns.py; in turns even with no event loop yet (the panel is wired
        # and refreshed after this returns, before its first piece).
        self._build = InTurns(self, steps, now_without_loop=False)

    def _build_top(self) -> None:
        self._top = ReflowLayout(columns=2, min_column_em=PAGE_COLUMN_EM)  # one column when narrow
        self.banner = BannerSection()
        self._top.addWidget(self.banner)
        self._layout.addLayout(self._top)
        self.banner_bars, self.banner_over = self.banner.bars, self.banner.over
        self.capacity_line, self.capacity_label = self.banner.capacity_line, self.banner.capacity_label
        self.banner_cursor, self.banner_status = self.banner.cursor, self.banner.status
        self._draw_banner()

    def _build_backlog_plot(self) -> None:
        self.backlog_plot = BacklogPlot()
        self._top.addWidget(self.backlog_plot)
        self.backlog_cursor = self.backlog_plot.cursor
        self._draw_backlog()
        self._draw_banner_frame(self.state.player("banner"))

    def _build_banner_player(self) -> None:
        self.banner_player = TimelinePlayer(duration=3 * F.SEGMENT_S, speed=10.0, unit="s")
        self.banner_player.setToolTip("▶ 例题 3-1: play the three segments; the cursor moves over the banner and the backlog curves")
        _fixed_time_label(self.banner_player)
        self._layout.addWidget(self.banner_player)
        self.banner_player.position_changed.connect(lambda t: self.state.set_player("banner", t))
        self._draw_banner_frame(self.state.player("banner"))

    def _build_cards(self) -> None:
        cards = ReflowLayout(columns=2, min_column_em=PAGE_COLUMN_EM)
        self.mix_card = CalculatorCard(self.state.card("mix"), compact=True)
        self.rate_card = CalculatorCard(self.state.card("rate"), compact=True)
        self.byte_echo = ByteEcho(self.rate_card)  # W and BW as bare digits read as GB and TB/s beside
        self.backlog_section = BacklogCardSection(self.state)
        # Two columns (three side by side are wider than a 1280-pixel window).
        cards.addWidget(column(self.mix_card, self.rate_card, stretch_last=False))
        cards.addWidget(self.backlog_section)
        self._layout.addLayout(cards)
        self.preset_box, self.backlog_card = self.backlog_section.preset_box, self.backlog_section.card

    # The replay group a part per turn (its engine pickers and the replays' forms: each part
    # is a subtree whose widgets are polished as it joins the shown page).
    def _build_replay_group(self) -> None:
        """The group on the page, its heading, caption and the engine pickers."""
        group = QtWidgets.QGroupBox()
        group.setObjectName("replay_group")
        col = QtWidgets.QVBoxLayout(group)
        # The heading inside the box, wrapped: a group box's own title never wraps and would
        # make the page as wide as itself.
        heading = QtWidgets.QLabel("真实回放 · KV 池满了,空着的算力也接不了新请求 · continuous batching, two scenarios side by side")
        heading.setObjectName("replay_heading")
        heading.setWordWrap(True)
        heading.setStyleSheet("font-weight: 600;")
        col.addWidget(heading)
        self.caption = QtWidgets.QLabel(CAPTION)
        self.caption.setObjectName("replay_caption")
        self.caption.setWordWrap(True)
        self.caption.setProperty("role", "caption")
        # The engine first (model, card and the setup they make), then the workload.
        self.model_section = in_language(ModelPickerSection(self.state))
        self.model_section.add_below(self.caption)
        col.addWidget(self.model_section)
        self.deployment_section = self.model_section.deployment
        self.deployment_section.deployed_changed.connect(self._on_deployed)
        if self.deployment_section.deployed.key:
            self._on_deployed(self.deployment_section.deployed)  # a restored state's deployment
        self._replay_column = col
        self._layout.addWidget(group)
        self._layout.addStretch(1)

    def _build_trace_source(self) -> None:
        self.trace_section = in_language(TraceSourceSection(self.state, self._trace_key))
        self.trace_section.take_drops_on(self)  # a trace file dropped anywhere on the panel
        self._replay_column.addWidget(self.trace_section)

    def _build_controls(self) -> None:
        """A's first fields and B's shares now, A's other fields in the next turns, then the
        comparison table (_build_table)."""
        self._controls = ReplayControls(self.state, tuple(self._keys.values()), self._band_key, table_later=True)
        self._replay_column.addWidget(self._controls)
        self._build.insert_next(self._controls.form_steps())  # A's other fields, a few a turn

    def _build_table(self) -> None:
        self._controls.build_table()
        self.controls = c = self._controls  # whole now: the panel's views may draw into it
        self.replay_form, self.b_shares_edit, self.b_error = c.replay_form, c.b_shares_edit, c.b_error
        self.compare_table, self.band_button, self.band_label = c.compare_table, c.band_button, c.band_label
        self.replay_status = c.replay_status
        self.controls.show_band(self.band_figure)
        self.controls.show_source(self.state.trace_workload is not None)

    def _build_replay_player(self) -> None:
        self.replay_player = TimelinePlayer(duration=1.0, speed=10.0, unit="s")
        self.replay_player.setToolTip("▶ play both replays; Space toggles")
        _fixed_time_label(self.replay_player)
        self._replay_column.addWidget(self.replay_player)
        self._replay_column.addWidget(self.plots)
        self.replay_player.position_changed.connect(lambda t: self.state.set_player("replay", t))
        self._show_caption()

    def _finish_build(self) -> None:
        p = self.plots
        self.queue_plots, self.kv_plots, self.gantt_plots = p.queue_plots, p.kv_plots, p.gantt_plots
        self.gantt_images, self.gantt_masks, self.cursors = p.gantt_images, p.gantt_masks, p.cursors
        self.cdf_plot, self.book_p95_lines = p.cdf_plot, p.book_p95_lines
        self._built = True
        for side in REPLAY_SIDES:
            fig = (self.state.replay(side).result or {}).get("figure")
            if fig is not None:
                self._draw_replay(side, fig)
        self.built.emit()

    def is_built(self) -> bool:
        """Every section is on the page."""
        return self._built

    def is_ready(self) -> bool:
        """Built, and every replay computed for the state's current inputs (snapshots, tests
        and benchmarks wait on this)."""
        keys = (*self._keys.values(), self._trace_key, self._metrics_key, self._overlay_key)
        return (self._built and not any(jobs().busy(k) for k in keys) and not self.state.trace_pending()
                and all(self._current(s) for s in REPLAY_SIDES))

    # ---- wiring -------------------------------------------------------------------
    def _connect(self) -> None:
        self.state.changed.connect(self._on_state_changed)
        self._scroll.verticalScrollBar().valueChanged.connect(lambda _: self.plots.catch_up())

    def refresh(self) -> None:
        """Draw everything from the state: the cheap figures now, the replays on the runner."""
        self._draw_banner()
        self._draw_backlog()
        for side in REPLAY_SIDES:
            self._on_replay_card_changed(side)
        self._on_band_changed()

    def _on_state_changed(self, path: str, value) -> None:  # noqa: C901 - one branch per state path
        if not shiboken6.isValid(self):
            return
        if path in ("cards.mix", "cards.rate"):
            self._draw_banner()
        elif path == "cards.backlog":
            self._draw_backlog()
        elif path == "view.backlog_preset":
            if self.backlog_section is not None:
                self.backlog_section.show_preset(value)
        elif path == "cards.model_choice":
            self._show_caption()
        elif path.startswith("cards.replay_"):
            self._on_replay_card_changed(path[-1].upper())
            self._show_caption()  # A's prefix caching
            if path == "cards.replay_a" and self.trace_section is not None:
                self.trace_section.show_prefix_caching()
            if self.state.view("band"):
                self._submit_band()
        elif path == "view.band":
            self._on_band_changed()
        elif path == "trace":
            if self.trace_section is not None:
                self.trace_section.show_state()
        elif path == "trace.workload":
            if self.trace_section is not None:
                self.trace_section.show_state()  # what is loaded now
            if self.controls is not None:
                self.controls.show_source(self.state.trace_workload is not None)
            if self.calibrate_section is not None:
                calibrate_glue.offer_trace(self, self.calibrate_section)
            for side in REPLAY_SIDES:
                self._on_replay_card_changed(side)
            self._show_caption()  # whether the trace has prefixes to cache
        elif path.startswith("view.slo_") and self.metrics_section is not None:
            self.metrics_section.show_slos()
            self.metrics_section.submit()
        elif path == "player.banner":
            self._draw_banner_frame(value)
        elif path == "player.replay":
            self._draw_replay_frame(value)

    def _show_caption(self) -> None:
        """The replays' caption names the chosen model and card (the book's by default)."""
        result = self.state.card("model_choice").result
        if self.caption is not None and result:
            budget = int(result["replay_values"].get("token_budget", 8192))
            text = caption(result["model_name"], result["hardware_name"], budget, self.state.replay_prefix_caching("A"))
            if text != self.caption.property("source_text"):  # set (and laid out) only when it changes
                self.caption.setProperty("source_text", text)
                self.caption.setText(text)
                in_language(self.caption)

    # ---- replays (on the job runner) ----------------------------------------------------
    def _on_replay_card_changed(self, side: str) -> None:
        card = self.state.replay(side)
        source = self.state.replay_source(side)
        deployed = self.deployed
        if self._current(side):
            self._submitted.pop(side, None)
        elif self._submitted.get(side) != (card.inputs, source, deployed.key):
            inputs = card.inputs
            self._submitted[side] = (inputs, source, deployed.key)
            workload = self.state.trace_workload
            cost = deployed.cost(inputs)
            jobs().submit(self._keys[side], F.replay_side, inputs, context=self, workload=workload,
                          prefix_caching=self.state.replay_prefix_caching(side), source=source,
                          cost=cost, client=self._checked_client(deployed, inputs, workload, cost),
                          done=lambda out, s=side, i=inputs, k=deployed.key: self._on_replay_done(s, i, out, k),
                          failed=lambda text, s=side, i=inputs: self._on_replay_failed(s, i, text))
        fig = (card.result or {}).get("figure")
        if fig is not None and self._built and self.plots.figure(side) is not fig:
            self._draw_replay(side, fig)  # a result the state already had (a restored session)

    def _on_replay_done(self, side: str, inputs, out: dict, key: tuple = ()) -> None:
        self._submitted.pop(side, None)
        out["deployment_key"] = key
        self.state.replay(side).set_result(inputs, out)  # drawn on the card's change (if current)

    def _on_replay_failed(self, side: str, inputs, text: str) -> None:
        self._submitted.pop(side, None)
        card = self.state.replay(side)
        card.set_result(inputs, card.result, failure=text)
        if self.controls is not None:
            self.controls.replay_status.setText(f"replay {side} failed: {text.strip().splitlines()[-1]}")

    def _draw_replay(self, side: str, fig: F.ReplaySide) -> None:
        self.plots.draw_side(side, fig)
        figs = {s: (self.state.replay(s).result or {}).get("figure") for s in REPLAY_SIDES}
        if getattr(self, "replicas_view", None) is not None:
            self.replicas_view.draw(figs)
        self.controls.draw_table(F.compare_rows(figs))
        self.controls.replay_status.setText(F.replay_status(figs))
        t_end = max(f.t_end for f in figs.values() if f is not None)
        first = self.replay_player.duration <= 1.0  # the placeholder before the first run
        self.replay_player.set_duration(t_end)
        current = all(self._current(s) for s in REPLAY_SIDES)
        new_source = current and self._drawn_source != self.state.replay_source("A")
        if current:
            self._drawn_source = self.state.replay_source("A")
        at = self.state.player("replay")
        if (first and at == 0.0) or new_source or at > t_end:
            self.state.set_player("replay", t_end)  # open on the whole run; ▶ starts again from 0
        else:
            self._draw_replay_frame(self.state.player("replay"))
        if current:
            self._submit_metrics()
            self.replay_computed.emit({s: {k: v for k, v in self.state.replay(s).result.items() if k != "figure"}
                                       for s in REPLAY_SIDES})

    def _draw_replay_frame(self, t: float) -> None:
        if not self._built:
            return
        if self.replay_player.position != t:
            self.replay_player.seek(t)
        self.plots.draw_frame(t, playing=self.replay_player.is_playing())

    # ---- vLLM metrics and the measured overlay (on the job runner) ---------------------
    def _submit_metrics(self) -> None:
        figs = {s: (self.state.replay(s).result or {}).get("figure") for s in REPLAY_SIDES}
        if self.metrics_section is not None and all(f is not None for f in figs.values()):
            self.metrics_section.submit(figs)
            self.overlay.submit(figs["A"])

    def close(self) -> bool:
        if not shiboken6.isValid(self):
            return True  # closed and freed already (widgets/kit/lifetime.py): nothing left to stop
        self._build.stop()
        for player in ("banner_player", "replay_player"):
            if hasattr(self, player):
                getattr(self, player).pause()
        for key in (*self._keys.values(), self._band_key, self._trace_key, self._metrics_key, self._overlay_key,
                    self._calibrate_key):
            jobs().cancel(key)
        self.state.changed.disconnect(self._on_state_changed)
        if getattr(self, "deployment_section", None) is not None:
            self.deployment_section.disconnect_state()
        if getattr(self, "byte_echo", None) is not None:
            self.byte_echo.disconnect()
        return super().close()


PANEL = PanelInfo(key="serving", title="请求分布与连续批处理 · Serving", section="3.1.3", order=1.5,
                  factory=ServingPanel)
