"""Prefill/decode pools on the Serving panel: the P/D fields in the deployment part (pools=
xPyD, kv_link=, kv_transfer=) and the pools view in the replay column. With pools= set,
replay A's workload and engine limits, the pickers and the deployment run as a P/D run of
`lab simulate serving` on the job runner (widgets/serving/pools_run.py: the same keys give
the CLI's numbers; the command is shown over the plots); a refusal shows next to the field
it names. The two single-pool replays stay as they are beside it. With the images section's
image_share above 0 the P/D run carries those images too (E -> P -> D: the encoder in the
prefill instance or EPD in front, the visual tokens' KV shipped to decode).

    section = attach(panel, key)   # ServingPanel's one hook

The P/D fields are the state's pools card (core.serving.pools_card: sessions, talks, reset
and undo carry them): an edit goes to the card, and the fields follow the card whoever
changed it. The P/D run has no client limit: with max_concurrency set, a line says so."""
from __future__ import annotations

import shiboken6
from PySide6 import QtCore, QtWidgets

from core.serving.disagg.links import OVERLAPS, link_choices
from core.serving.images_card import image_keys
from widgets.kit.jobs import jobs
from widgets.kit.page import caption
from widgets.serving.pools_run import PoolsFigure, PoolsRefused, pd_raw, run_pools, trace_raw
from widgets.serving.pools_view import PoolsView
from widgets.serving.trace_source import in_language

LEAD = ("填 xPyD 即另跑一次 prefill/decode 分离回放(回放 A 的负载,同一模型与部署),两池并排画在回放下方 · "
        "give xPyD to also run replay A's workload on separate prefill and decode pools (the same model and "
        "deployment); both pools are drawn side by side under the replays")
NO_CLIENT = ("prefill/decode 回放不带客户端并发上限 max_concurrency={n}(它只用于单池回放:闭环客户端要等每个请求解码完) · "
             "the P/D run has no client limit: max_concurrency={n} is the single-pool replays' only (a closed-loop "
             "client would wait for each request's decode finish)")
LABELS = {"pools": "池 · pools (xPyD)", "kv_link": "KV 链路 · kv_link", "kv_transfer": "KV 传输方式 · kv_transfer"}


class _Field(QtWidgets.QWidget):
    """A label, an input and its error line right under it."""

    def __init__(self, key: str, edit: QtWidgets.QWidget, parent=None):
        super().__init__(parent)
        self.key, self.edit = key, edit
        col = QtWidgets.QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(1)
        row = QtWidgets.QHBoxLayout()
        self.label = QtWidgets.QLabel(LABELS[key])
        row.addWidget(self.label)
        row.addWidget(edit, 1)
        col.addLayout(row)
        self.error = QtWidgets.QLabel("")
        self.error.setObjectName(f"pools_{key}_error")
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


class PoolsForm(QtWidgets.QWidget):
    """The P/D fields; submitted(dict) when one is edited (the text as typed)."""

    submitted = QtCore.Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        col = QtWidgets.QVBoxLayout(self)
        col.setContentsMargins(0, 6, 0, 0)
        col.setSpacing(4)
        heading = QtWidgets.QLabel("prefill/decode 分离 · prefill/decode disaggregation")
        heading.setStyleSheet("font-weight: 600;")
        col.addWidget(heading)
        col.addWidget(caption(LEAD))
        self.pools_edit = QtWidgets.QLineEdit()
        self.pools_edit.setObjectName("pools_pools")
        self.pools_edit.setPlaceholderText("1P1D, 2P4D")
        self.link_box = QtWidgets.QComboBox()
        self.link_box.setObjectName("pools_kv_link")
        self.link_box.setEditable(True)  # a number of GB/s too
        self.link_box.addItems(link_choices())
        self.link_box.setCurrentText("rdma-400g")
        self.transfer_box = QtWidgets.QComboBox()
        self.transfer_box.setObjectName("pools_kv_transfer")
        self.transfer_box.addItems(OVERLAPS)
        self.fields = {k: _Field(k, w) for k, w in (("pools", self.pools_edit), ("kv_link", self.link_box),
                                                     ("kv_transfer", self.transfer_box))}
        # Two fields a row: three side by side are wider than the page at 1280x720 in F11.
        grid = QtWidgets.QGridLayout()
        for i, f in enumerate(self.fields.values()):
            grid.addWidget(f, i // 2, i % 2)
        col.addLayout(grid)
        self.message = QtWidgets.QLabel("")
        self.message.setObjectName("pools_message")
        self.message.setProperty("role", "error")
        self.message.setWordWrap(True)
        self.message.setVisible(False)
        col.addWidget(self.message)
        self.status = caption("", name="pools_status")
        col.addWidget(self.status)
        self.note = caption("", name="pools_note")
        self.note.setVisible(False)
        col.addWidget(self.note)
        self.pools_edit.editingFinished.connect(self._submit)
        self.link_box.lineEdit().editingFinished.connect(self._submit)
        self.link_box.activated.connect(lambda _i: self._submit())
        self.transfer_box.activated.connect(lambda _i: self._submit())

    def values(self) -> dict[str, str]:
        return {"pools": self.pools_edit.text().strip(), "kv_link": self.link_box.currentText().strip(),
                "kv_transfer": self.transfer_box.currentText()}

    def set_values(self, pools: str, kv_link: str = "rdma-400g", kv_transfer: str = "whole") -> None:
        """Set the fields as typed and submit once."""
        self.show_values({"pools": pools, "kv_link": kv_link, "kv_transfer": kv_transfer})
        self._submit()

    def show_values(self, values) -> None:
        """The fields show values (the state's), without submitting."""
        if self.pools_edit.text() != values["pools"]:
            self.pools_edit.setText(values["pools"])
        if self.link_box.currentText() != values["kv_link"]:
            self.link_box.setCurrentText(values["kv_link"])
        if self.transfer_box.currentText() != values["kv_transfer"]:
            self.transfer_box.setCurrentText(values["kv_transfer"])

    def _submit(self) -> None:
        self.submitted.emit(self.values())

    def show_error(self, field: str | None, message: str | None) -> None:
        """message next to field (under the fields when it names another key); None clears."""
        for key, f in self.fields.items():
            f.show_error(message if key == field else None)
        other = f"{field}: {message}" if message and field not in self.fields else ""
        self.message.setText(other)
        self.message.setVisible(bool(other))


class PoolsSection(QtCore.QObject):
    """Runs the P/D run of the panel's keys on the job runner and draws it."""

    drawn = QtCore.Signal(object)  # PoolsFigure
    refused = QtCore.Signal(str, str)  # field, message

    def __init__(self, panel, key: str):
        super().__init__(panel)
        self.panel, self.key = panel, key
        self.form = in_language(PoolsForm())
        self.view = in_language(PoolsView())
        self.raw: dict = {}
        self.card = panel.state.card("pools")
        self.form.show_values(self.card.inputs)
        self.form.submitted.connect(self._on_form)
        panel.state.changed.connect(self._on_state_changed)
        panel.deployment_section.deployed_changed.connect(lambda _d: self.submit())
        panel.installEventFilter(self)
        if self.card.inputs["pools"] and not self.card.errors:
            self.submit()  # a restored state's pools

    def _on_form(self, values: dict) -> None:
        """A field edited: into the state's card (a refusal shows next to its field)."""
        if not self.card.update(values):
            self.submit()  # the same refusal again emits nothing: show it here

    def _on_state_changed(self, path: str, _value) -> None:
        if not shiboken6.isValid(self):
            return
        if path == "cards.pools":
            if not self.card.errors:
                self.form.show_values(self.card.inputs)  # reset, undo, a session: the fields follow
            self.submit()
        elif self.raw and path in ("cards.replay_a", "cards.model_choice", "coefficients", "trace.workload",
                                   "cards.images"):
            self.submit()

    def keys(self) -> dict[str, str]:
        """The `lab simulate serving` keys of the P/D run the panel's inputs make ({}: none)."""
        s = self.panel.state
        raw = pd_raw(s.card("model_choice").inputs, s.card("deployment").inputs, s.coefficients,
                     s.replay("A").inputs, self.card.inputs)
        src = s.trace_loaded if s.trace_workload is not None else None
        if raw and src is not None:  # the loaded trace, read as the CLI reads it
            raw.update(trace_raw(src))
        if raw:  # the images section's images ride along: E -> P -> D
            raw.update(image_keys(s.card("images").inputs))
        return raw

    def submit(self) -> None:
        if not shiboken6.isValid(self):
            return
        if self.card.errors:  # the state keeps its last good fields; no run of text it refused
            field, message = next(iter(self.card.errors.items()))
            self.raw = {}
            jobs().cancel(self.key)
            self.view.clear()
            self.form.status.setText("")
            self.form.show_error(field, message)
            self.refused.emit(field, message)
            return
        self.raw = raw = self.keys()
        self.form.show_error(None, None)
        limit = int(self.panel.state.card("deployment").inputs["max_concurrency"] or 0)
        self.form.note.setText(NO_CLIENT.format(n=limit) if raw and limit else "")
        self.form.note.setVisible(bool(raw and limit))
        in_language(self.form)
        if not raw:
            jobs().cancel(self.key)
            self.view.clear()
            self.form.status.setText("")
            return
        self.form.status.setText("prefill/decode 回放运行中… · the P/D run is running…")
        in_language(self.form)
        jobs().submit(self.key, run_pools, raw, context=self.form,
                      done=lambda out, r=raw: self._on_done(r, out), failed=self._on_failed)

    def _on_done(self, raw: dict, out) -> None:
        if not shiboken6.isValid(self) or raw != self.raw:
            return
        if isinstance(out, PoolsRefused):
            self.form.status.setText("")
            self.form.show_error(out.field, out.message)
            self.view.clear()
            self.refused.emit(out.field, out.message)
            return
        assert isinstance(out, PoolsFigure)
        self.view.draw(out)
        in_language(self.view)
        self.form.status.setText("")
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


def attach(panel, key: str) -> PoolsSection:
    """The P/D fields under the panel's deployment fields, the pools view under its
    replicas view."""
    section = PoolsSection(panel, key)
    panel.deployment_section.layout().addWidget(section.form)
    col = panel.replicas_view.parentWidget().layout()  # the box of the sections under the plots
    col.insertWidget(col.indexOf(panel.replicas_view) + 1, section.view)  # beside the one-pool replicas
    return section
