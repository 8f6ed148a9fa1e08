"""Image requests on the Serving panel (issue 15): the image fields under the P/D ones
(image_share=, image_size=, image_ids=, encoder_cache_size=, epd_encoders=, ec_link_gb_s=)
and what the run gives: encoder-cache hits, EC bytes, the encoder's time added, and TTFT
p50/p95 with and without the images. With image_share > 0, replay A's workload (its
engine limits, the pickers, the deployment, a loaded trace) runs with these images and
without them on the job runner (widgets/serving/images_run.py: `lab simulate serving`'s
numbers; the command is shown); a refusal shows next to the field it names.

    section = attach(panel, key)   # ServingPanel's one hook

The fields are the state's images card (core.serving.images_card: sessions, talks, reset
and undo carry them); the fields follow the card whoever changed it."""
from __future__ import annotations

import shiboken6
from PySide6 import QtCore, QtWidgets

from core.serving.images_card import NAMES
from widgets.kit.jobs import jobs
from widgets.kit.page import ReflowLayout, caption
from widgets.serving.images_run import ImagesFigure, ImagesRefused, images_raw, run_images, ttft_ms
from widgets.serving.pools_run import replay_raw, trace_raw
from widgets.serving.pools_view import ms_text
from widgets.serving.trace_source import in_language

HEADING = "图片请求 · image requests"
LEAD = ("图片占比大于 0 即另跑回放 A 的负载两次:带这些图片(编码器在实例内,或 EPD 编码卡经链路送 EC)与不带,"
        "比较首 token 时延 · an image share above 0 also runs replay A's workload twice, with these images (the "
        "encoder in the instance, or EPD encoder cards shipping EC over a link) and without, to compare TTFT")
LABELS = {"image_share": "图片占比 · image_share", "image_size": "图片尺寸 (HxW) · image_size (HxW)",
          "image_ids": "图片 id 数 · image_ids", "encoder_cache_size": "编码器缓存 · encoder_cache_size",
          "epd_encoders": "EPD 编码卡 · epd_encoders", "ec_link_gb_s": "EC 链路 (GB/s) · ec_link_gb_s (GB/s)"}
PLACEHOLDERS = {"image_share": "0.5", "image_size": "640x640", "image_ids": "0", "encoder_cache_size": "vLLM",
                "epd_encoders": "0", "ec_link_gb_s": "50"}
NO_CLIENT = ("图片回放不带客户端并发上限 max_concurrency={n}(它只用于单池回放) · the image runs have no client limit: "
             "max_concurrency={n} is the single-pool replays' only (the image run replays the engine alone)")
ROWS = (("with", "带图片 · with images"), ("text", "不带图片 · without images"))
MIB = 2 ** 20


class _Field(QtWidgets.QWidget):
    """A label, an input and its error line right under it."""

    def __init__(self, key: str, parent=None):
        super().__init__(parent)
        self.key = key
        self.edit = QtWidgets.QLineEdit()
        self.edit.setObjectName(f"images_{key}")
        self.edit.setPlaceholderText(PLACEHOLDERS[key])
        col = QtWidgets.QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(1)
        row = QtWidgets.QHBoxLayout()
        self.label = QtWidgets.QLabel(LABELS[key])
        row.addWidget(self.label)
        row.addWidget(self.edit, 1)
        col.addLayout(row)
        self.error = QtWidgets.QLabel("")
        self.error.setObjectName(f"images_{key}_error")
        self.error.setProperty("role", "error")
        self.error.setWordWrap(True)
        self.error.setVisible(False)
        col.addWidget(self.error)

    def show_error(self, message: str | None) -> None:
        self.error.setText(message or "")
        self.error.setVisible(bool(message))
        self.edit.setProperty("invalid", "true" if message else "false")
        self.edit.style().unpolish(self.edit)
        self.edit.style().polish(self.edit)


class ImagesForm(QtWidgets.QWidget):
    """The image fields and the run's figures; submitted(dict) when a field is edited."""

    submitted = QtCore.Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        col = QtWidgets.QVBoxLayout(self)
        col.setContentsMargins(0, 6, 0, 0)
        col.setSpacing(4)
        heading = QtWidgets.QLabel(HEADING)
        heading.setStyleSheet("font-weight: 600;")
        col.addWidget(heading)
        col.addWidget(caption(LEAD))
        self.fields = {k: _Field(k) for k in NAMES}
        grid = ReflowLayout(columns=3, min_column_em=10, spacing=8, fill=False)
        for f in self.fields.values():
            grid.addWidget(f)
            f.edit.editingFinished.connect(self._submit)
        col.addLayout(grid)
        self.message = QtWidgets.QLabel("")
        self.message.setObjectName("images_message")
        self.message.setProperty("role", "error")
        self.message.setWordWrap(True)
        self.message.setVisible(False)
        col.addWidget(self.message)
        self.status = caption("", name="images_status")
        col.addWidget(self.status)
        self.note = caption("", name="images_note")
        self.note.setVisible(False)
        col.addWidget(self.note)
        self.results = QtWidgets.QWidget()
        rcol = QtWidgets.QVBoxLayout(self.results)
        rcol.setContentsMargins(0, 0, 0, 0)
        self.encoder_line = QtWidgets.QLabel("")
        self.encoder_line.setObjectName("images_encoder")
        self.encoder_line.setWordWrap(True)
        rcol.addWidget(self.encoder_line)
        table = QtWidgets.QGridLayout()
        table.addWidget(QtWidgets.QLabel("TTFT"), 0, 0)
        table.addWidget(QtWidgets.QLabel("p50"), 0, 1)
        table.addWidget(QtWidgets.QLabel("p95"), 0, 2)
        self.ttft_cells: dict[str, tuple[QtWidgets.QLabel, QtWidgets.QLabel]] = {}
        for i, (key, label) in enumerate(ROWS, start=1):
            table.addWidget(QtWidgets.QLabel(label), i, 0)
            cells = (QtWidgets.QLabel("-"), QtWidgets.QLabel("-"))
            for j, cell in enumerate(cells, start=1):
                cell.setObjectName(f"images_ttft_{key}_{('p50', 'p95')[j - 1]}")
                table.addWidget(cell, i, j)
            self.ttft_cells[key] = cells
        table.setColumnStretch(3, 1)
        rcol.addLayout(table)
        self.command = QtWidgets.QLabel("")
        self.command.setObjectName("images_command")
        self.command.setWordWrap(True)
        self.command.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        rcol.addWidget(self.command)
        self.results.setVisible(False)
        col.addWidget(self.results)

    def values(self) -> dict[str, str]:
        return {k: f.edit.text().strip() for k, f in self.fields.items()}

    def set_values(self, **values: str) -> None:
        """Type values into their fields and submit once (tests, like a user's edits)."""
        for key, text in values.items():
            self.fields[key].edit.setText(text)
        self._submit()

    def show_values(self, inputs) -> None:
        """The fields show the state's values, without submitting."""
        for key, f in self.fields.items():
            value = inputs[key]
            text = value if isinstance(value, str) else f"{value:g}" if isinstance(value, float) else str(value)
            if f.edit.text().strip() != text and _parsed(f.edit.text()) != value:
                f.edit.setText(text)

    def _submit(self) -> None:
        self.submitted.emit(self.values())

    def show_error(self, field: str | None, message: str | None) -> None:
        """message next to field (under the fields when it names another key); None clears."""
        for key, f in self.fields.items():
            f.show_error(message if key == field else None)
        other = f"{field}: {message}" if message and field not in self.fields else ""
        self.message.setText(other)
        self.message.setVisible(bool(other))

    def draw(self, fig: ImagesFigure | None) -> None:
        self.results.setVisible(fig is not None)
        if fig is None:
            return
        b = fig.block
        moved = (f",经链路 {b['ec_bytes_moved'] / MIB:,.1f} MiB", f" ({b['ec_bytes_moved'] / MIB:,.1f} MiB over the "
                 "link)") if b.get("mode") == "epd" else ("", "")
        added = b["encoder_added_ms"] / 1e3
        self.encoder_line.setText(
            f"{b['images']:,} 张图片:编码器缓存命中 {b['encoder_cache_hits']:,},编码 {b['encoder_cache_misses']:,};"
            f"EC {b['ec_bytes'] / MIB:,.1f} MiB{moved[0]};编码器增加 {added:,.3f} s · {b['images']:,} images: "
            f"{b['encoder_cache_hits']:,} encoder-cache hits, {b['encoder_cache_misses']:,} encoded; EC "
            f"{b['ec_bytes'] / MIB:,.1f} MiB{moved[1]}; encoder time added {added:,.3f} s")
        for key, report in (("with", fig.report), ("text", fig.text_report)):
            for cell, value in zip(self.ttft_cells[key], ttft_ms(report)):
                cell.setText(ms_text(value))
        self.command.setText(f"<code>{fig.command()}</code>")


def _parsed(text: str):
    """A field's text as the card would hold it, for comparing (a number typed '0.50')."""
    try:
        return float(text)
    except ValueError:
        return text.strip()


class ImagesSection(QtCore.QObject):
    """Runs the image run of the panel's keys on the job runner and shows it."""

    drawn = QtCore.Signal(object)  # ImagesFigure
    refused = QtCore.Signal(str, str)  # field, message

    def __init__(self, panel, key: str):
        super().__init__(panel)
        self.panel, self.key = panel, key
        self.card = panel.state.card("images")
        self.form = in_language(ImagesForm())
        self.form.show_values(self.card.inputs)
        self.raw: dict = {}
        self.form.submitted.connect(self._on_form)
        panel.state.changed.connect(self._on_state_changed)
        panel.deployment_section.deployed_changed.connect(lambda _d: self.submit())
        panel.installEventFilter(self)
        if image_run_wanted(self.card):
            self.submit()  # a restored state's images

    def _on_form(self, values: dict) -> None:
        given = {k: v for k, v in values.items() if v != "" or k == "encoder_cache_size"}
        if not self.card.update(given):
            self.submit()  # the same refusal again emits nothing: show it here

    def _on_state_changed(self, path: str, _value) -> None:
        if not shiboken6.isValid(self):
            return
        if path == "cards.images":
            if not self.card.errors:
                self.form.show_values(self.card.inputs)
            self.submit()
        elif self.raw and path in ("cards.replay_a", "cards.model_choice", "coefficients", "trace.workload"):
            self.submit()

    def keys(self) -> dict[str, str]:
        """The `lab simulate serving` keys of the image run ({}: none)."""
        s = self.panel.state
        base = replay_raw(s.card("model_choice").inputs, s.card("deployment").inputs, s.coefficients,
                          s.replay("A").inputs)
        if s.trace_workload is not None and s.trace_loaded is not None:
            base.update(trace_raw(s.trace_loaded))
        return images_raw(base, self.card.inputs)

    def submit(self) -> None:
        if not shiboken6.isValid(self):
            return
        if self.card.errors:  # the state keeps its last good fields; no run of text it refused
            field, message = next(iter(self.card.errors.items()))
            self._stop()
            self.form.show_error(field, message)
            self.refused.emit(field, message)
            return
        self.raw = raw = self.keys()
        self.form.show_error(None, None)
        limit = int(self.panel.state.card("deployment").inputs["max_concurrency"] or 0)
        self.form.note.setText(NO_CLIENT.format(n=limit) if raw and limit else "")
        self.form.note.setVisible(bool(raw and limit))
        if not raw:
            self._stop()
            return
        self.form.status.setText("图片回放运行中… · the image run is running…")
        in_language(self.form)
        jobs().submit(self.key, run_images, raw, context=self.form,
                      done=lambda out, r=raw: self._on_done(r, out), failed=self._on_failed)

    def _stop(self) -> None:
        self.raw = {}
        jobs().cancel(self.key)
        self.form.status.setText("")
        self.form.draw(None)

    def _on_done(self, raw: dict, out) -> None:
        if not shiboken6.isValid(self) or raw != self.raw:
            return
        self.form.status.setText("")
        if isinstance(out, ImagesRefused):
            self.form.show_error(out.field, out.message)
            self.form.draw(None)
            self.refused.emit(out.field, out.message)
            return
        self.form.draw(out)
        in_language(self.form)
        self.drawn.emit(out)

    def _on_failed(self, text: str) -> None:
        if shiboken6.isValid(self) and text:
            self.form.status.setText(f"失败 · failed: {text.strip().splitlines()[-1]}")
            in_language(self.form)

    def eventFilter(self, watched, event):
        if event.type() == QtCore.QEvent.Type.Close and watched is self.panel:
            jobs().cancel(self.key)
            self.panel.state.changed.disconnect(self._on_state_changed)
        return False


def image_run_wanted(card) -> bool:
    return bool(card.inputs["image_share"]) and not card.errors


def attach(panel, key: str) -> ImagesSection:
    """The image fields and figures under the P/D fields (the deployment part)."""
    section = ImagesSection(panel, key)
    panel.deployment_section.layout().addWidget(section.form)
    return section
