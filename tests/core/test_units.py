import pytest

from core.units import GiB, MiB, NumberError, format_bytes, format_flops, format_seconds, format_value, parse_number


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
                                        ("1_024", 1024), ("0.8MB", 800_000), ("2s", 2), ("1h", 3600),
                                        ("10µs", 1e-5), ("4k", 4000)])
def test_parse_number_accepts_suffixes(text, value):
    assert parse_number(text) == pytest.approx(value)


def test_parse_number_rejects_words():
    with pytest.raises(ValueError):
        parse_number("lots")


def test_a_comma_is_not_a_thousands_separator():
    # '1,5' once read as 15; commas only separate the items of a list.
    for text in ("1,024", "1,5"):
        with pytest.raises(NumberError, match="comma"):
            parse_number(text)


@pytest.mark.parametrize("text,unit,value", [
    ("20ms", "ms", 20), ("0.02s", "ms", 20), ("0.035s", "ms", 35), ("20", "ms", 20), ("40ms", "s", 0.04),
    ("2min", "s", 120), ("1h", "s", 3600), ("10µs", "s", 1e-5), ("10μs", "s", 1e-5), ("250ns", "us", 0.25),
    ("90min", "GPU·h", 1.5), ("4k", "tokens", 4000), ("1.1k", "tokens", 1100), ("2M", "", 2e6), ("3G", "px", 3e9),
    ("312T", "FLOP/s", 312e12), ("1P", "FLOP/s", 1e15), ("48k", "Hz", 48_000), ("24GiB", "bytes", 24 * GiB),
    ("1.6TB", "bytes/s", 1.6e12), ("2TB/s", "bytes/s", 2e12), ("512MiB", "bytes/s", 512 * MiB),
])
def test_suffix_is_converted_to_the_unit_of_the_parameter(text, unit, value):
    assert parse_number(text, unit) == value  # exact: one rounding, not 20.000000000000004


@pytest.mark.parametrize("text,unit,why", [
    ("40ms", "bytes", "is a time, not a size in bytes"), ("1GiB", "cards", "is a size in bytes, not a count"),
    ("4k", "bytes", "is a count, not a size in bytes"), ("2GB", "ms", "is a size in bytes, not a time"),
    ("3k", "s", "is a count, not a time"), ("1s", "tokens", "is a time, not a count"),
    ("5x", "×", "unknown suffix 'x'"), ("2 m", "s", "unknown suffix 'm'"),
    ("nan", "", "is not a number"), ("inf", "s", "is not a number"), ("-inf", "", "is not a number"),
    ("1" * 400, "", "is too large"), ("1e308k", "", "is too large"),
])
def test_a_suffix_that_does_not_fit_the_unit_is_refused(text, unit, why):
    with pytest.raises(NumberError) as err:
        parse_number(text, unit)
    assert why in err.value.reason
