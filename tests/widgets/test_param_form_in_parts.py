"""widgets/kit/param_form.py's form in parts (first=N, then rest_steps): the fields come in
the model's order, each part showing the model's values, and the whole form reads as a
form built at once."""
from core.serving.state import ServingState
from widgets.kit.param_form import ParamForm


def _texts(form: ParamForm) -> dict:
    return {name: form.field(name).edit.text() for name in form._fields
            if hasattr(form.field(name).edit, "text")}


def test_a_form_in_parts_ends_as_the_form_built_at_once(qtbot):
    state = ServingState()
    whole = ParamForm(state.replay("A"))
    qtbot.addWidget(whole)
    parts = ParamForm(state.replay("A"), first=3)
    qtbot.addWidget(parts)
    names = list(whole._fields)
    assert len(names) > 10 and list(parts._fields) == names[:3]
    steps = parts.rest_steps(4)
    assert len(steps) == -(-(len(names) - 3) // 4) and parts.rest_steps(4) == []  # handed out once
    steps[0]()
    assert list(parts._fields) == names[:7]
    for step in steps[1:]:
        step()
    assert list(parts._fields) == names and _texts(parts) == _texts(whole) != {}
