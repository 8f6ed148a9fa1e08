"""AudioPanel's live stream: ▶ prepares on the job runner and starts the engine, ✕ interrupts,
■ stops, and one QTimer drains the engine's rings each frame into the live plots (a mixin:
the panel holds the state, the controls, the plots and the timer)."""
from __future__ import annotations

import time

import shiboken6

from audio.engine import StreamEngine, StreamRun
from audio.live import LiveTrace, wave_columns
from audio.sources import SourceError, make_source
from core.audio.state import VIRTUAL_DEVICE
from core.registry import ParamError
from core.units import format_seconds
from widgets.kit.jobs import jobs

HEALTH_EVERY_S = 0.25  # how often the device's liveness is checked while playing
FOLLOW_WINDOW_S = 1.2  # while playing a long stream, the timeline follows "now" over this window
WAVE_POINTS = 400  # waveform columns drawn per frame


class StreamPlayer:
    """Play, interrupt and stop the stream, and draw each frame of it."""

    @property
    def engine(self) -> StreamEngine:
        if self._engine is None:
            device = self.state.view("device")
            self._engine = StreamEngine(device=device or None, prefer_device=device != VIRTUAL_DEVICE)
        return self._engine

    @property
    def run(self) -> StreamRun | None:
        return self._run

    @property
    def playing(self) -> bool:
        return self._timer.isActive()

    def play(self) -> bool:
        """Stream the card's checked inputs as they are. False (with the reason shown) if it
        cannot. Opening the device (PulseAudio can take a second or two to start calling
        back), laying out the stream and rendering its audio run on the job runner; the
        stream starts when they are done."""
        if not self._built:
            return False  # still building (a key pressed on a first visit)
        if self._run is not None and not self._run.finished:
            self.stop()
        try:
            source = make_source(self.state.view("source"), self.state.view("wav_path"))
        except SourceError as err:
            self.controls.show_error(err)
            return False
        inputs = self.state.stream_inputs  # checked when the form took them: not parsed again
        engine = self.engine
        what = "opening the device and preparing" if not engine.has_sink else "preparing"
        self.controls.show_status(f"{what} {format_seconds(inputs['chunks'] * inputs['chunk_ms'] / 1000)} "
                                  f"of {self.state.view('source')}…")
        owned = self._owns_engine

        def prepare(cancel):
            try:
                engine.prepare(inputs, source)
                return None
            except (ParamError, SourceError) as err:
                return err
            finally:
                if cancel.cancelled and owned and self._closed:
                    engine.close()  # the panel closed while the device was opening

        jobs().submit(self._keys["prepare"], prepare, context=self,
                      done=lambda err: self._prepared(inputs, source, err))
        self._update_buttons()
        return True

    def _prepared(self, inputs, source, err) -> None:
        if err is not None:
            self.controls.show_error(err)
            self.play_failed.emit(str(err))
            return
        # The first page and the cleared live items are painted now, before the stream's
        # threads run: the costliest repaint of a run never competes with its first chunks.
        self.plots.reset_live()
        fig = self.plots.figure
        if (self.state.view("follow") and fig is not None and self._drawn.get("timeline") == inputs
                and fig.x_range[1] > FOLLOW_WINDOW_S * 1.5 * 1e3):
            self.plots.follow(0.0, FOLLOW_WINDOW_S)
        self.plots.repaint()
        try:
            run = self.engine.start(inputs, source=source)
        except (ParamError, SourceError) as error:
            self.controls.show_error(error)
            self.play_failed.emit(str(error))
            return
        self._run = run
        self._drawn.pop("model_moments", None)
        self._trace = LiveTrace(run.timeline.n, run.timeline.chunk_s)
        self._frame_no = 0
        self._new_events = {"timeline", "level"}
        self.state.set_player("stream", 0.0)
        self.controls.show_status(self.engine.status)
        self._last_health = time.perf_counter()
        self._timer.start()
        self._update_buttons()
        self.stream_started.emit()

    def stop(self) -> None:
        if not self._built:
            return
        if self._run is not None:
            self._run.stop()
            self._on_frame()
        self._finish()

    def key_actions(self) -> list[tuple[str, str, object]]:
        """This panel's keys; the window gives them to it while it is on screen (lab.keyboard)."""
        return [("Space", "play / stop", self.toggle_play), ("P", "play", self.play),
                ("I", "interrupt", self.interrupt), ("Esc", "stop", self.stop)]

    def toggle_play(self) -> None:
        """Space: stop a stream that plays, else play (a stream still being prepared goes on)."""
        if self.playing:
            self.stop()
        elif not jobs().busy(self._keys["prepare"]):
            self.play()

    def interrupt(self) -> None:
        if not self._built:
            return
        if self._run is None or self._run.finished:
            return
        if self._run.interrupt() is not None:
            self.interrupted.emit()

    def _finish(self) -> None:
        was_active = self._timer.isActive()
        self._timer.stop()
        self.plots.set_now(None)
        summary = None
        if self._run is not None:
            summary = self._run.summary()
            self.controls.show_summary(summary)
            self.plots.show_all()
            if self._trace is not None:  # the whole run over the whole model, not the last page
                self.plots.draw_timeline(self._trace, None, True)
                self.plots.draw_level(self._trace, True)
        self._update_buttons()
        if was_active and summary is not None:
            self.stream_finished.emit(summary)

    def _on_frame(self) -> None:
        """One GUI frame: drain the rings, update what changed and is in view."""
        run, trace = self._run, self._trace
        if run is None or trace is None:
            return
        t_start = time.perf_counter()
        pulled = run.pull()
        added = trace.add(pulled)
        m = run.control.moments
        if "interrupt" in added.moments or (m is not None and "model_moments" not in self._drawn):
            # The dashed lines now show what the model predicts for this interrupt.
            self.plots.show_model_moments(m.interrupt_s, m.mute_at_s, m.backend_stop_at_s, m.release_at_s)
            self._drawn["model_moments"] = True
        if self.isVisible():
            self._frame_no += 1
            fig = self.plots.figure
            turned = False
            if (self.state.view("follow") and fig is not None and fig.timeline is run.timeline
                    and fig.x_range[1] > FOLLOW_WINDOW_S * 1.5 * 1e3):
                turned = self.plots.follow(pulled.now, FOLLOW_WINDOW_S)
            self.state.set_player("stream", pulled.now)
            # The two big plots take turns (30 Hz each, a page turn or the last frame draws
            # both): a frame repaints one of them and the waveform, so it stays well inside
            # 16 ms and never holds the GIL long enough to starve the audio threads.
            self._new_events |= {"timeline", "level"} if added.events or turned or "mute" in added.moments else set()
            self.plots.draw_moments(trace, added.moments)
            if self._frame_no % 2 == 0 or turned or pulled.done:
                self.plots.draw_timeline(trace, pulled.now, "timeline" in self._new_events)
                self._new_events.discard("timeline")
            if self._frame_no % 2 == 1 or turned or pulled.done:
                self.plots.draw_level(trace, "level" in self._new_events)
                self._new_events.discard("level")
            self.plots.draw_wave(*wave_columns(pulled.wave, run.playout.rate_hz, WAVE_POINTS))
            self.frame_times_s.append(time.perf_counter() - t_start)
        # else another panel is showing: keep draining the rings, draw nothing.
        self._check_health(t_start)
        if pulled.done:
            self._finish()  # this pull held the run's last events, and they are drawn: stop pulling

    def _check_health(self, now: float) -> None:
        """A few times a second: has the device gone away? (The engine then carries on
        with the virtual sink and says so.)"""
        if now - self._last_health > HEALTH_EVERY_S:
            self._last_health = now
            if self.engine.poll():
                self.controls.show_status(self.engine.status, error=True)

    def _on_busy_changed(self, key: str, _busy: bool) -> None:
        if key == self._keys["prepare"] and shiboken6.isValid(self) and not self._closed:
            self._update_buttons()

    def _update_buttons(self) -> None:
        self.controls.set_playing(self.playing, preparing=jobs().busy(self._keys["prepare"]))
