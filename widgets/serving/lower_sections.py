"""Serving's sections under the replay plots, built a section per turn of the event loop
(ServingPanel's build steps) into one box that stays hidden until the last is in: the
metrics table, the measured overlay, the replicas view, the calibration and the P/D pools'
view; the P/D and image fields join the deployment fields hidden too. Each part joining the
shown page had re-laid out the page above it, one turn each; shown together, once."""
from __future__ import annotations

from PySide6 import QtWidgets

from widgets.serving import calibrate_glue, images_section, pools_section
from widgets.serving.metrics_table import MetricsSection
from widgets.serving.overlay import OverlayPlots
from widgets.serving.replicas_view import ReplicasView
from widgets.serving.trace_source import in_language


class LowerSections:
    """A mixin of ServingPanel: needs self.state, self._replay_column, self._metrics_key,
    self._overlay_key, self._calibrate_key and self.deployment_section."""

    def _build_metrics(self) -> None:
        self._lower = QtWidgets.QWidget()
        self._lower.setObjectName("replay_lower")
        self._lower_column = QtWidgets.QVBoxLayout(self._lower)
        self._lower_column.setContentsMargins(0, 0, 0, 0)
        self._lower_column.setSpacing(self._replay_column.spacing())
        self._lower.hide()
        self._replay_column.addWidget(self._lower)
        self.metrics_section = in_language(MetricsSection(self.state, self._metrics_key))
        self.metrics_section.drawn.connect(lambda table: setattr(self, "metrics_table", table))
        self._lower_column.addWidget(self.metrics_section)

    def _build_overlay(self) -> None:
        self.overlay = in_language(OverlayPlots(self._overlay_key))
        self._lower_column.addWidget(self.overlay)

    def _build_replicas(self) -> None:
        self.replicas_view = in_language(ReplicasView())
        self._lower_column.addWidget(self.replicas_view)

    def _build_calibrate(self) -> None:
        self.calibrate_section = calibrate_glue.attach(self, self._calibrate_key)
        self._lower_column.addWidget(self.calibrate_section)

    def _build_pools(self) -> None:
        self.pools_section = pools_section.attach(self, f"serving.pools.{id(self)}")  # P/D pools (issue 15)
        self.pools_section.form.hide()

    def _build_images(self) -> None:
        self.images_section = images_section.attach(self, f"serving.images.{id(self)}")  # image requests (issue 15)
        self.images_section.form.hide()

    def _show_lower(self) -> None:
        """The hidden parts at once: each shown alone re-lays out the page above it again."""
        for part in (self.pools_section.form, self.images_section.form, self._lower):
            part.show()

