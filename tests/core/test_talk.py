"""Talk files: parsing, checking each scene against its panel's state model, and the
messages a bad scene gets (naming the scene and the field)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.registry import ParamError
from core.talk import load_talk, state_model

CHAPTER3 = Path(__file__).resolve().parents[2] / "talks" / "chapter3.toml"


def _talk(tmp_path, text: str, probe=None):
    path = tmp_path / "talk.toml"
    path.write_text(text, encoding="utf-8")
    return load_talk(path, probe)


GOOD = """
title = "demo"
[[scene]]
title = "练习 3-1"
panel = "request"
annotation = "练习 3-1 · 总输出相同,请求数不同"
notes = "eight requests"
[scene.cards.split]
requests = 4
output_tokens_total = "2k"

[[scene]]
panel = "training"
view = { tab = "rl" }
players = { pipeline = 2.5 }
autoplay = true
zoom = 1.5
focus = "cycle"
figure = "例题 3-4"
ranges = { "例题 3-4" = { x = [0, 80], y = [0.5, 2e3] } }
"""


def test_a_good_file_gives_scenes_with_the_panels_whole_state(tmp_path):
    talk = _talk(tmp_path, GOOD)
    assert talk.title == "demo" and talk.errors == [] and talk.first_good == 0
    first, second = talk.scenes
    assert (first.number, first.panel, first.title, first.notes) == (1, "request", "练习 3-1", "eight requests")
    assert first.annotation == "练习 3-1 · 总输出相同,请求数不同"
    # The state is the model's own JSON: values parsed (2k -> 2000), defaults left out.
    assert first.state["cards"]["split"] == {"requests": 4, "output_tokens_total": 2000}
    assert first.state["cards"]["anatomy"] == {} and first.state["players"] == {"steps": 0.0}
    assert first.focus == "split"  # the first card the scene sets
    assert second.state["view"]["tab"] == "rl" and second.state["players"]["pipeline"] == 2.5
    assert (second.autoplay, second.zoom, second.focus, second.figure) == ("step", 1.5, "cycle", "例题 3-4")
    assert second.ranges == {"例题 3-4": {"x": (0.0, 80.0), "y": (0.5, 2000.0)}}
    # Loading the scene's state into a fresh model reproduces it exactly.
    model = state_model("training")
    model.load_json(second.state)
    assert model.to_json() == second.state


BAD_SCENES = [
    ('panel = "nope"', "panel", "valid: request"),
    ('title = "x"', "panel", "required"),
    ('panel = "request"\ncards.nosuch = { a = 1 }', "cards.nosuch", "unknown card"),
    ('panel = "request"\ncards.split = { requets = 4 }', "cards.split.requets", "valid"),
    ('panel = "request"\ncards.split = { requests = -3 }', "cards.split.requests", "valid"),
    ('panel = "request"\ncards.split = { requests = "many" }', "cards.split.requests", "valid"),
    ('panel = "training"\nview = { tab = "nowhere" }', "view.tab", "valid: step, flops, rl"),
    ('panel = "request"\nview = { colour = 1 }', "view.colour", "unknown"),
    ('panel = "request"\nplayers = { steps = -1 }', "player.steps", ">= 0"),
    ('panel = "request"\nplayers = { banner = 1 }', "players.banner", "valid: steps"),
    ('panel = "request"\nplayers = { banner = { speed = 2 } }', "players.banner", "valid: steps"),
    ('panel = "serving"\nplayers = { banner = { speed = -2 } }', "players.banner.speed", "> 0"),
    ('panel = "serving"\nplayers = { banner = { pace = 2 } }', "players.banner.pace", "position, speed"),
    ('panel = "agents"\nautoplay = true', "autoplay", "no ▶ player"),
    ('panel = "request"\nautoplay = "banner"', "autoplay", "steps"),
    ('panel = "request"\nzoom = 9', "zoom", "0.5..3"),
    ('panel = "request"\nfocus = "pie"', "focus", "no card"),
    ('panel = "request"\nranges = { "图 3-2" = { x = [3, 1] } }', "ranges.图 3-2.x", "low < high"),
    ('panel = "request"\nranges = { "图 3-2" = { z = [0, 1] } }', "ranges.图 3-2", "x = [low, high]"),
    ('panel = "request"\nanotation = "typo"', "anotation", "unknown scene key"),
    ('panel = "request"\nimage = "a.png"', "image", "only on a vision scene"),
    ('panel = "vision"\nimage = "missing.png"', "image", "no file"),
]


@pytest.mark.parametrize("body, field, hint", BAD_SCENES)
def test_a_bad_scene_is_named_with_its_field_and_the_talk_opens_at_the_first_good(tmp_path, body, field, hint):
    text = f'[[scene]]\ntitle = "broken one"\n{body}\n\n[[scene]]\ntitle = "fine"\npanel = "agents"\n'
    if body.startswith("title"):
        text = f"[[scene]]\n{body}\n\n[[scene]]\ntitle = \"fine\"\npanel = \"agents\"\n"
    talk = _talk(tmp_path, text)
    assert len(talk.errors) == 1
    message = talk.errors[0]
    assert message.startswith("scene 1 «")
    assert f": {field}" in message and hint in message
    assert not talk.scenes[0].ok and talk.scenes[1].ok
    assert talk.first_good == 1


def test_every_bad_scene_gets_its_own_message(tmp_path):
    talk = _talk(tmp_path, '[[scene]]\npanel = "agents"\n[[scene]]\ntitle = "two"\npanel = "x"\n'
                           '[[scene]]\npanel = "agents"\n[[scene]]\ntitle = "four"\npanel = "request"\nzoom = 0\n')
    assert [s.ok for s in talk.scenes] == [True, False, True, False]
    assert talk.errors[0].startswith("scene 2 «two»: panel:")
    assert talk.errors[1].startswith("scene 4 «four»: zoom:")


@pytest.mark.parametrize("text, hint", [
    ("[[scene]\npanel = 1", "not TOML"),
    ("title = 'no scenes'", "no scenes"),
    ("colour = 1\n[[scene]]\npanel = 'agents'", "unknown key 'colour'"),
    ("[[scene]]\npanel = 'x'", "no good scene"),
])
def test_a_file_without_a_good_scene_is_refused_whole(tmp_path, text, hint):
    with pytest.raises(ParamError) as err:
        _talk(tmp_path, text)
    assert err.value.param == "talk" and hint in err.value.message


def test_a_missing_file_is_refused(tmp_path):
    with pytest.raises(ParamError) as err:
        load_talk(tmp_path / "none.toml")
    assert err.value.param == "talk" and "none.toml" in err.value.message


def test_scene_numbers_out_of_range_name_scene_and_the_range(tmp_path):
    talk = _talk(tmp_path, GOOD)
    assert talk.scene(2) is talk.scenes[1]
    for number in (0, 3):
        with pytest.raises(ParamError) as err:
            talk.scene(number)
        assert err.value.param == "--scene" and "valid: 1..2" in err.value.message


def test_a_vision_scene_loads_an_image_relative_to_the_talk_file(tmp_path):
    (tmp_path / "pics").mkdir()
    (tmp_path / "pics" / "cat.png").write_bytes(b"not read: the probe answers")
    seen = []

    def probe(path):
        seen.append(path)
        return 1280, 960, 250_000

    talk = _talk(tmp_path, '[[scene]]\npanel = "vision"\nimage = "pics/cat.png"\nview = { tab = "compare" }\n', probe)
    scene = talk.scenes[0]
    path = os.path.join(str(tmp_path), "pics", "cat.png")
    assert seen == [path] and scene.image == path
    assert scene.state["images"] == [path] and scene.state["view"]["image"] == path
    request = scene.state["cards"]["request"]
    assert (request["heights"], request["widths"], request["file_bytes"]) == ([1280], [960], [250_000])
    # Without a probe (pure core) the scene says where it can be read.
    talk = _talk(tmp_path, '[[scene]]\npanel = "vision"\nimage = "pics/cat.png"\n[[scene]]\npanel = "agents"\n')
    assert "image" in talk.errors[0] and "lab talk" in talk.errors[0]


def test_chapter3_is_in_the_books_order_with_its_captions():
    talk = load_talk(CHAPTER3)
    assert talk.errors == []
    assert talk.scenes[0].title == "图 3-1" and talk.scenes[-1].title == "练习 3-10 前半"
    for scene in talk.scenes:
        assert scene.annotation and scene.title and scene.notes
    book = CHAPTER3.parents[2] / "shared" / "spec" / "ch3-illustrated.zh.txt"
    if not book.exists():
        pytest.skip("the book's text is not beside the repository")
    text = book.read_text(encoding="utf-8")
    for scene in talk.scenes:
        assert scene.annotation in text, scene.annotation  # the book's caption, verbatim
    # The scenes the chapter's body names (not only its exercise list) come in its order.
    body = text[:text.index("动手验证")]
    places = [body.index(s.title) for s in talk.scenes if s.title in body]
    assert len(places) >= 25 and places == sorted(places)


def test_talk_parsing_needs_no_qt():
    code = ("import sys, core.talk\ncore.talk.load_talk(sys.argv[1])\n"
            "print(','.join(m for m in sys.modules if m.split('.')[0] in ('PySide6','PIL','widgets','lab')))")
    out = subprocess.run([sys.executable, "-c", code, str(CHAPTER3)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_an_audio_scene_keeps_its_state_when_the_timeline_result_arrives():
    """The timeline is computed off the GUI thread; its result must not move the
    comparison (练习 3-5's spike) away from what the scene loaded."""
    model = state_model("audio")
    scene = model.to_json()
    model.timeline.set_result(model.timeline.inputs, {"chunks": []})
    assert model.to_json() == scene
    model.timeline.update({"chunks": 12})  # an edit of the stream: the comparison follows
    assert model.cards["compare"].inputs["chunks"] == 12


def test_a_players_speed_goes_to_its_view_option_or_to_the_player(tmp_path):
    talk = _talk(tmp_path, '[[scene]]\npanel = "request"\nplayers = { steps = { position = 5, speed = 50 } }\n'
                           '[[scene]]\npanel = "serving"\nplayers = { banner = { speed = 20 } }\n')
    request, serving = talk.scenes
    assert request.state["view"]["step_speed"] == 50.0 and request.state["players"]["steps"] == 5.0
    assert request.speeds == {}
    assert serving.speeds == {"banner": 20.0} and serving.state["players"]["banner"] == 0.0
