"""core.sweep.spec: the grid syntax (lists, ranges, list-valued keys, seeds) and its
refusals, each a ParamError naming the key and what is valid."""
import pytest

from core.registry import ParamError
from core.sweep.points import digest, file_digest, make_point
from core.sweep.spec import number_range, parse_grid, parse_seeds, split_values


class Kind:
    """A small kind: two number keys, one list key, one text key, one fixed key."""
    name = "toy"
    kinds = {"a": "number", "n": "int", "rates": "list", "mode": "text", "trace": "text", "slo_x": "number"}

    def value_kind(self, key):
        return self.kinds.get(key)

    def unit(self, key):
        return "ms" if key == "a" else ""

    def valid_keys(self):
        return list(self.kinds)

    def fixed_keys(self):
        return ("trace", "slo_x")


def test_lists_multiply_into_a_grid_first_key_slowest():
    spec = parse_grid(Kind(), {"n": "1,2", "mode": "x,y,z", "a": "5"})
    assert spec.axes == [("n", ["1", "2"]), ("mode", ["x", "y", "z"])]
    assert spec.fixed == {"a": "5"}
    settings = spec.settings()
    assert len(settings) == 6
    assert [(s["n"], s["mode"]) for s in settings[:3]] == [("1", "x"), ("1", "y"), ("1", "z")]
    assert all(s["a"] == "5" for s in settings)


def test_ranges_include_stop_and_do_not_drift():
    assert number_range("n", "1:8:1", True) == [str(i) for i in range(1, 9)]
    assert number_range("a", "0:1:0.1", False) == [repr(i * 0.1) for i in range(11)]
    assert number_range("a", "8:2:-3", False) == ["8.0", "5.0", "2.0"]
    assert number_range("a", "20ms:60ms:20ms", False, "ms") == ["20.0", "40.0", "60.0"]
    assert split_values("rates", "4,4;8,8", "list") == ["4,4", "8,8"]
    assert split_values("mode", "a:b:c", "text") == ["a:b:c"]  # a colon means a range only for numbers


@pytest.mark.parametrize("text, word", [("1:5:0", "step 0"), ("5:1:1", "empty range"), ("1:x:1", "not a number")])
def test_bad_ranges_are_refused_naming_the_key(text, word):
    with pytest.raises(ParamError) as err:
        parse_grid(Kind(), {"a": text})
    assert err.value.param == "a" and word in str(err.value) and "valid: start:stop:step" in str(err.value)


def test_whole_number_key_refuses_a_fractional_step():
    with pytest.raises(ParamError, match="whole numbers"):
        parse_grid(Kind(), {"n": "1:4:0.5"})


def test_seeds():
    assert parse_seeds("0-7") == list(range(8))
    assert parse_seeds("3") == [3]
    assert parse_seeds("0-2,9") == [0, 1, 2, 9]
    for bad in ("7-0", "x", "1,1", "-3", "0-99999"):
        with pytest.raises(ParamError) as err:
            parse_seeds(bad)
        assert err.value.param == "seeds" and "valid:" in str(err.value)


def test_unknown_key_names_the_valid_ones():
    with pytest.raises(ParamError) as err:
        parse_grid(Kind(), {"max_num_seq": "1,2"})
    assert err.value.param == "max_num_seq"
    assert "valid: seeds, search, attainment, tolerance, confidence, a, n, rates, mode" in str(err.value)


def test_fixed_keys_take_one_value_and_lists_no_empties_or_repeats():
    for raw, key in (({"trace": "a.csv,b.csv"}, "trace"), ({"mode": "x,,y"}, "mode"), ({"n": "1,1"}, "n"),
                     ({"mode": " "}, "mode")):
        with pytest.raises(ParamError) as err:
            parse_grid(Kind(), raw)
        assert err.value.param == key


def test_search_keys():
    spec = parse_grid(Kind(), {"search": "max_rate", "slo_x": "5", "tolerance": "0.05"})
    assert spec.search.as_json() == {"kind": "max_rate", "attainment": 0.9, "tolerance": 0.05}
    for raw, key in (({"attainment": "0.9"}, "attainment"), ({"search": "min_cost"}, "search"),
                     ({"search": "max_rate", "attainment": "1.5"}, "attainment"),
                     ({"search": "max_rate", "tolerance": "0"}, "tolerance")):
        with pytest.raises(ParamError) as err:
            parse_grid(Kind(), raw)
        assert err.value.param == key


def test_too_many_points_are_refused():
    with pytest.raises(ParamError, match="at most 100,000"):
        parse_grid(Kind(), {"n": "1:1000:1", "a": "1:1000:1"})


def test_point_keys_follow_content_not_names(tmp_path):
    one, two = tmp_path / "one.csv", tmp_path / "two.csv"
    one.write_text("x\n1\n")
    two.write_text("x\n1\n")
    assert file_digest(one) == file_digest(two)
    two.write_text("x\n2\n")
    assert file_digest(one) != file_digest(two)
    p = make_point("toy", {"n": "1"}, {"n": "1", "seed": "0"}, {"n": 1.0}, 0, None, "sha256:a")
    q = make_point("toy", {"n": "1"}, {"n": "1", "seed": "1"}, {"n": 1.0}, 1, None, "sha256:a")
    r = make_point("toy", {"n": "1"}, {"n": "1", "seed": "0"}, {"n": 1.0}, 0, None, "sha256:b")
    assert p.setting == q.setting and p.key != q.key  # seeds of one setting
    assert p.key != r.key  # another trace content
    assert digest({"a": 0.1, "b": [1, 2]}) == digest({"b": [1, 2], "a": 0.1})
