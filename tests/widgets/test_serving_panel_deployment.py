"""The Serving panel's deployment keys (tp, pp, ep, quantization, kv_cache_dtype,
gpu_memory_utilization, max_concurrency) under the model and hardware pickers: a change
replays both sides as `lab simulate serving` does with the same keys; a refused value shows
its message next to its field and the last replays stay; back at the defaults the replays
are the book's again."""
import pytest

from core.registry import get
from core.serving import replay as rp
from core.serving.headless import serving_report
from core.serving.simulate_keys import model_defaults
from widgets.kit.jobs import jobs
from widgets.serving.deployment import NAMES

COMPARED = ("ttft_p95_s", "request_p95_s", "first_schedule_wait_p95_s", "last_completion_s", "preemptions",
            "engine_steps", "kv_pool_blocks", "decode_steps_total", "prefill_tokens_total")


def ready(panel) -> bool:
    return panel.is_ready() and not jobs().busy_keys()


@pytest.fixture
def panel(open_serving_panel):
    return open_serving_panel(1280, 720)


def type_in(field, text):
    """Type a value in a field and finish, as a user does."""
    edit = field.edit
    if hasattr(edit, "setCurrentText"):
        edit.setCurrentText(text)  # a combo: its signal edits
    else:
        edit.setText(text)
        edit.editingFinished.emit()


def pick(field, text):
    field.edit.setCurrentText(text)
    field.edit.lineEdit().editingFinished.emit()


def summary(panel, side="A"):
    return {k: panel.state.replay(side).result[k] for k in COMPARED}


def cli(raw):
    report, _ = serving_report(raw)
    return {k: report[k] for k in COMPARED}


def test_every_deployment_key_has_a_field_next_to_the_pickers(panel):
    section = panel.deployment_section
    assert set(NAMES) == {"tp", "pp", "ep", "quantization", "kv_cache_dtype", "gpu_memory_utilization",
                          "max_concurrency"}
    for name in NAMES:
        assert section.field(name).isVisibleTo(panel)
    assert section.parentWidget() is not None and panel.model_section.isAncestorOf(section)
    assert not panel.deployed.active  # the book's run by default


def test_tp_2_replays_as_the_cli_does(panel, qtbot):
    book = summary(panel)
    pick(panel.model_section.hardware_field, "h100-sxm")
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    type_in(panel.deployment_section.field("tp"), "2")
    assert panel.deployed.active
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    got = summary(panel)
    assert got == cli({"model": "qwen3-8b", "hardware": "h100-sxm", "tp": "2"})
    assert got != book
    assert summary(panel, "B")["kv_pool_blocks"] == got["kv_pool_blocks"]  # B follows A
    # Qwen3-8B's 8 KV heads split over 2 ranks: half the KV bytes per token per card.
    assert panel.state.replay("A").inputs["kv_bytes_per_token"] == 147456 / 2
    assert "tp=2" in panel.deployment_section.summary.text()
    assert not panel.model_section.edited_label.isVisible()  # the deployment's values are not hand edits


def test_quantization_and_max_concurrency_replay_as_the_cli_does(panel, qtbot):
    section = panel.deployment_section
    type_in(section.field("quantization"), "fp8")
    type_in(section.field("max_concurrency"), "8")
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    assert summary(panel) == cli({"model": "qwen3-8b", "hardware": "rtx-pro-6000-blackwell", "quantization": "fp8",
                                  "max_concurrency": "8"})


def test_max_concurrency_alone_keeps_the_book_s_step_model(panel, qtbot):
    type_in(panel.deployment_section.field("max_concurrency"), "4")
    assert not panel.deployed.active  # a client's limit, not a deployment
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    assert summary(panel) == cli({"max_concurrency": "4"})


def test_a_refused_value_shows_next_to_its_field_and_the_replays_stay(panel, qtbot):
    section = panel.deployment_section
    result = panel.state.replay("A").result
    type_in(section.field("tp"), "zero")
    field = section.field("tp")
    assert field.error_label.isVisibleTo(panel) and "valid" in field.error_label.text()
    assert panel.state.replay("A").result is result and ready(panel)
    type_in(section.field("tp"), "3")  # Qwen3-8B's 32 query heads do not split over 3 ranks
    assert field.error_label.isVisibleTo(panel) and field.error_label.text()
    assert not panel.deployed.active and panel.state.replay("A").result is result and ready(panel)
    type_in(section.field("tp"), "1")
    assert not field.error_label.isVisibleTo(panel)


def test_back_at_the_defaults_the_replays_are_the_book_s(panel, qtbot):
    book, inputs = summary(panel), panel.state.replay("A").inputs
    type_in(panel.deployment_section.field("kv_cache_dtype"), "fp8")
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    assert summary(panel) != book
    type_in(panel.deployment_section.field("kv_cache_dtype"), "auto")
    assert not panel.deployed.active
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    assert panel.state.replay("A").inputs == inputs
    assert summary(panel) == book


def test_keys_that_do_not_fit_a_new_model_fall_back_to_its_own_values(panel, qtbot):
    type_in(panel.deployment_section.field("tp"), "16")  # Qwen3-8B's 32 heads split over 16 ranks
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    assert panel.deployed.active
    pick(panel.model_section.model_field, "llama-2-13b")  # 40 heads: not over 16 ranks
    field = panel.deployment_section.field("tp")
    assert field.error_label.isVisibleTo(panel) and "40 attention heads" in field.error_label.text()
    assert not panel.deployed.active
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    # A is the choice's, as without a deployment: the CLI's model defaults through the same replay.
    values = get("serving.replay").resolve(model_defaults({"model": "llama-2-13b", "hardware": "rtx-pro-6000-blackwell"}))
    assert panel.state.replay("A").inputs == values
    result, work, config = rp.run_replay(values)
    book = rp.summarize(result, work, config)
    assert summary(panel) == {k: book[k] for k in COMPARED}


def test_a_client_limit_the_replicas_cannot_take_is_said_next_to_its_field(panel, qtbot):
    panel.state.replay("A").update({"replicas": "2"})
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    two_replicas = summary(panel)
    field = panel.deployment_section.field("max_concurrency")
    type_in(field, "4")
    assert field.error_label.isVisibleTo(panel) and "replicas" in field.error_label.text()
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    assert summary(panel) == two_replicas  # replayed without the limit, not failed
    assert "failed" not in panel.controls.replay_status.text()
    panel.state.replay("A").update({"replicas": "1"})
    assert not field.error_label.isVisibleTo(panel)
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    assert summary(panel) == cli({"max_concurrency": "4"})


def test_pp_and_gpu_memory_utilization_replay_as_the_cli_does(panel, qtbot):
    section = panel.deployment_section
    type_in(section.field("gpu_memory_utilization"), "0.5")
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    half = summary(panel)
    assert half == cli({"model": "qwen3-8b", "hardware": "rtx-pro-6000-blackwell", "gpu_memory_utilization": "0.5"})
    type_in(section.field("pp"), "2")
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    got = summary(panel)
    assert got == cli({"model": "qwen3-8b", "hardware": "rtx-pro-6000-blackwell", "gpu_memory_utilization": "0.5",
                       "pp": "2"})
    assert got["kv_pool_blocks"] != half["kv_pool_blocks"]  # half the layers per stage: more tokens per card
