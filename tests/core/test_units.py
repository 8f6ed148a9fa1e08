import pytest

from core.units import GiB, MiB, format_bytes, format_flops, format_seconds, format_value, parse_number


def test_byte_prefixes_are_distinct():
    assert GiB == 1024**3 and MiB == 1024**2
    assert format_bytes(8_192_000) == "7.8125 MiB"
    assert format_bytes(8_192_000, "si") == "8.192 MB"
    assert format_bytes(56.25 * MiB) == "56.25 MiB"


def test_flops_and_seconds_read_like_the_book():
    assert format_flops(1.310e12) == "1.31 TFLOPs"
    assert format_seconds(0.02289) == "22.89 ms"
    assert format_seconds(419.8) == "419.8 s"


def test_format_value_shows_absent_outputs_as_a_dash():
    assert format_value(None, "cost") == "—"
    assert format_value(1023, "steps") == "1,023 steps"


@pytest.mark.parametrize("text,value", [("24GiB", 24 * GiB), ("1.792e12", 1.792e12), ("40ms", 0.04),
                                        ("1,024", 1024), ("0.8MB", 800_000)])
def test_parse_number_accepts_suffixes(text, value):
    assert parse_number(text) == pytest.approx(value)


def test_parse_number_rejects_words():
    with pytest.raises(ValueError):
        parse_number("lots")
