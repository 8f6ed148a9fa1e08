"""The Vision panel's state as data: images, cards, view options; JSON round trip; one event
per real change; refusals that change nothing."""
import json

import pytest

from core.registry import ParamError
from core.vision.layout import KV_BYTES_PER_TOKEN
from core.vision.pixel_limit import PIXEL_LIMIT_HARD, PIXEL_LIMIT_MAX_MP, pixel_limit
from core.vision.state import SAMPLE, ImageEntry, VisionState


@pytest.fixture
def events():
    return []


@pytest.fixture
def state(events):
    s = VisionState()
    s.changed.connect(lambda path, value: events.append(path))
    return s


def test_opens_on_one_generated_image_with_the_books_values(state):
    assert state.images() == [SAMPLE]
    assert state.sources == ("",)
    r = state.card("request").result
    assert r["visual_tokens"] == 400 and r["ec_bytes"] == 8_192_000
    assert r["input_kv_bytes"] == (400 + 400) * KV_BYTES_PER_TOKEN
    assert state.view("image") == "" and state.view("tab") == "volumes"
    assert state.view("patch_grid") and state.view("token_grid")


def test_book_example_is_four_images_and_400_tokens(state):
    state.book_example()
    assert state.images() == [SAMPLE] * 4
    r = state.card("request").result
    assert r["ec_bytes"] == 31.25 * 2**20 and r["input_kv_bytes"] == 281.25 * 2**20


def test_images_replace_the_sample_then_add(state, events):
    a = ImageEntry("/photos/a.jpg", 750, 1000, 12_345)
    b = ImageEntry("/photos/b.png", 640, 640, 999)
    state.add_images([a])
    assert state.images() == [a] and state.view("image") == a.source
    assert events == ["cards.request", "images", "view.image"]
    state.add_images([b])
    assert state.images() == [a, b] and state.view("image") == b.source
    assert state.card("request").result["per_image_tokens"] == [713, 400]
    state.remove_image(1)
    assert state.images() == [a] and state.view("image") == a.source
    state.remove_image(0)
    assert state.images() == [SAMPLE]


def test_one_event_per_real_change(state, events):
    state.set_view("patch_grid", True)
    state.set_images([SAMPLE])
    state.card("request").update({"text_tokens": 400})
    assert events == []
    state.set_view("patch_grid", False)
    state.card("request").update({"question": "before"})
    assert events == ["view.patch_grid", "cards.request"]


def test_refused_image_changes_nothing(state, events):
    strip = ImageEntry("/strip.png", 10, 5000, 100)  # 500:1 under 'fit'
    assert "200:1" in state.refusal(strip)
    with pytest.raises(ParamError) as err:
        state.add_images([strip])
    assert err.value.param == "widths"  # the long side is named
    assert state.images() == [SAMPLE] and events == []
    state.card("request").update({"resize": "keep"})
    assert state.refusal(strip) is None


def test_json_round_trip(state):
    state.add_images([ImageEntry("/p/a.jpg", 750, 1000, 12_345), ImageEntry("/p/b.png", 300, 200, 10)])
    state.select("/p/b.png")
    state.card("request").update({"text_tokens": 1200, "question": "before", "patch": 14})
    state.card("compare").update({"side_b": 1920})
    state.card("diffusion").update({"steps": 20, "cfg": False})
    state.set_view("tab", "generation")
    state.set_view("token_grid", False)
    state.set_view("pixel_limit_mp", 12.5)
    data = json.loads(json.dumps(state.to_json()))
    assert data["images"] == ["/p/a.jpg", "/p/b.png"]
    other = VisionState()
    seen = []
    other.changed.connect(lambda path, value: seen.append(path))
    other.load_json(data)
    assert other.to_json() == state.to_json()
    assert other.images() == state.images() and other.view("image") == "/p/b.png"
    assert other.card("request").result == state.card("request").result
    assert "images" in seen
    assert other.pixel_limit() == 12_500_000


def test_bad_json_changes_nothing(state):
    before = state.to_json()
    bad = [{"images": ["a", "b"]},  # two sources for one image
           {"view": {"tab": "nowhere"}},
           {"view": {"pixel_limit_mp": 500.0}},
           {"cards": {"request": {"merge": 0}}, "view": {"token_grid": False}},
           {"panel": "serving"}]
    for data in bad:
        with pytest.raises(ParamError):
            state.load_json(data)
        assert state.to_json() == before


def test_reset_is_the_state_the_panel_opens_with(state):
    state.book_example()
    state.set_view("tab", "compare")
    state.card("compare").update({"side_b": 1920})
    state.reset()
    assert state.to_json() == VisionState().to_json()


def test_pixel_limit_range_rounds_inwards(state):
    # Shown with one decimal, the largest limit must still be one the loader takes.
    assert PIXEL_LIMIT_MAX_MP == 178.9
    assert pixel_limit(PIXEL_LIMIT_MAX_MP) <= PIXEL_LIMIT_HARD
    state.set_view("pixel_limit_mp", PIXEL_LIMIT_MAX_MP)
    assert state.pixel_limit() == 178_900_000
    for bad in (179.0, 0.5, float("nan")):
        with pytest.raises(ParamError) as err:
            state.set_view("pixel_limit_mp", bad)
        assert err.value.param == "view.pixel_limit_mp" and "178.9" in err.value.message
    assert state.view("pixel_limit_mp") == PIXEL_LIMIT_MAX_MP


def test_zoom_is_in_image_pixels_and_a_new_picture_is_shown_whole(state, events):
    state.set_view("zoom", [10, 20, 300, 400])
    assert state.view("zoom") == (10, 20, 300, 400)
    other = VisionState()
    other.load_json(json.loads(json.dumps(state.to_json())))
    assert other.view("zoom") == (10, 20, 300, 400)
    for bad in ([1, 2, 3], [5, 0, 1, 10], [0, 0, float("inf"), 1], "all"):
        with pytest.raises(ParamError) as err:
            state.set_view("zoom", bad)
        assert err.value.param == "view.zoom"
    state.add_images([ImageEntry("/p/a.jpg", 750, 1000, 12_345)])
    assert state.view("zoom") == ()
    assert events[-2:] == ["view.image", "view.zoom"]
