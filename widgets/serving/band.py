"""The Serving panel's band over seeds: both replays again over BAND_SEEDS seeds on the job
runner, their spread per metric beside the table. A mixin of ServingPanel, kept out of its
module."""
from __future__ import annotations

from core.serving import figures as F
from core.serving.state import BAND_SEEDS, REPLAY_SIDES
from widgets.kit.jobs import jobs


class BandOverSeeds:
    """Needs self.state (a ServingState), self.controls once built, self._band_key and the
    band_computed signal."""

    @property
    def band(self) -> dict:
        """{side: {metric: (min, median, max)}} of the latest band, or {}."""
        return self.band_figure["bands"] if self.band_figure else {}

    def _on_band_changed(self) -> None:
        if self.state.view("band"):
            self._submit_band()
        else:
            jobs().cancel(self._band_key)
            self.band_figure = None
        if self.controls is not None:
            self.controls.show_band(self.band_figure)

    def _submit_band(self) -> None:
        cards = {s: self.state.replay(s) for s in REPLAY_SIDES}
        sides = {s: c.inputs for s, c in cards.items()}
        if self.band_figure is not None and self.band_figure["inputs"] == sides:
            return
        self.band_figure = None
        if self.controls is not None:
            self.controls.show_band(None)
        jobs().submit(self._band_key, F.band_figure, sides, range(BAND_SEEDS), context=self, done=self._on_band_done)

    def _on_band_done(self, fig: dict) -> None:
        self.band_figure = fig
        if self.controls is not None:
            self.controls.show_band(fig)
        self.band_computed.emit(fig["bands"])
