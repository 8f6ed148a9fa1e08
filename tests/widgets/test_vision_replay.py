"""The Vision panel's handoff card: "replay it" runs the three handoffs through the engine
off the GUI thread and plots TTFT p50/p95 against link bandwidth (waits on its signal)."""
import numpy as np

from core.registry import get
from core.serving.multimodal import handoff as ho
from widgets.vision import VisionPanel


def test_replay_it_plots_the_three_handoffs(qtbot):
    panel = VisionPanel()
    qtbot.addWidget(panel)
    panel.resize(1280, 720)
    card = panel.volumes.replay
    assert card.inputs is not None and not card.plot.isVisible()
    card.rate.setValue(4.0)
    with qtbot.waitSignal(card.replayed, timeout=240_000) as blocker:
        card.button.click()
        assert card.button.isEnabled()  # the click returned at once: the sweep is on a worker
    result = blocker.args[0]
    assert result["bandwidth_bytes_per_s"] == list(ho.PANEL_BANDWIDTHS)
    # The panel's request (its images and text) is what ran: the calculator's bytes per request.
    figures = get("vision.request").compute(**card.inputs)
    assert result["image"]["bytes_per_request"] == figures["raw_bytes"]
    assert result["ec"]["bytes_per_request"] == figures["ec_bytes"]
    assert result["kv"]["bytes_per_request"] == figures["input_kv_bytes"]
    for key in ("image", "ec", "kv"):
        curve = card.plot.curves[f"{key}_p50"]
        assert np.allclose(curve.xData, [b / 1e9 for b in ho.PANEL_BANDWIDTHS])  # what was set (log mode draws log10)
        assert np.allclose(curve.yData, result[key]["ttft_p50_s"])
        assert np.allclose(card.plot.curves[f"{key}_p95"].yData, result[key]["ttft_p95_s"])
        assert all(a <= b for a, b in zip(result[key]["ttft_p50_s"], result[key]["ttft_p95_s"]))
    assert result["kv"]["bytes_per_request"] > result["ec"]["bytes_per_request"] > result["image"]["bytes_per_request"]
    assert "wins" in card.status.text()
    # Another request: the plot says it is of the previous one.
    panel.state.card("request").update({"text_tokens": "800"})
    qtbot.waitUntil(lambda: "previous request" in card.status.text(), timeout=10_000)
    panel.close()
