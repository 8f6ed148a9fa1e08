"""core.format: numbers read as the book prints them (4 digits, B/T, ×10ⁿ, yes/no)."""
import pytest

from core.format import format_value, full_value, significant
from core.registry import registry


@pytest.mark.parametrize("value,unit,text", [
    (298578849033.8972, "tokens", "298.6B tokens"),  # the book: 约 298.6B 训练 token
    (24819592197.316505, "tokens", "24.82B tokens"),
    (160e9, "tokens", "160B tokens"),  # 8B 模型约 160B token
    (36e12, "tokens", "36T tokens"),
    (8_190_735_360, "params", "8,190,735,360 params"),  # exact counts in full
    (112792.8, "steps", "112,793 steps"),
    (2795.8474452152145, "steps/s", "2,796 steps/s"),  # the integer part is never rounded
    (5591.32, "steps/s", "5,591 steps/s"),
    (125.74070523966427, "GPU·h", "125.7 GPU·h"),
    (0.001291691934505761, "GPU·s", "0.001292 GPU·s"),
    (0.0003229229836264403, "GPU·s", "0.0003229 GPU·s"),
    (0.00003229229836264403, "GPU·s", "3.229×10⁻⁵ GPU·s"),
    (40.16775, "s", "40.17 s"),
    (0.022891091611428573, "s", "22.89 ms"),
    (41020836167.68, "bytes", "38.2 GiB"),
    (8_192_000, "bytes", "7.8125 MiB"),  # exact in 5 digits: as printed
    (294_912_000, "bytes", "281.25 MiB"),
    (3_200_000, "bytes", "3.052 MiB"),
    (960, "bytes", "960 B"),
    (7830392222515200.0, "FLOPs", "7.830×10¹⁵ FLOPs"),  # 约 7.830×10¹⁵ FLOPs
    (1.728e24, "FLOPs", "1.728×10²⁴ FLOPs"),
    (1310300569600, "FLOPs", "1.31 TFLOPs"),
    (45449478144, "FLOPs", "45.45 GFLOPs"),
    (1.3114754098360657, "×", "1.311 ×"),
    (1.0714794096338622, "x", "1.071 ×"),
    (0.2375, "ratio", "0.2375"),
    (0.19206145966709348, "ratio", "0.1921"),
    (1023, "steps", "1,023 steps"),
    (-213299816448.0, "bytes", "-198.7 GiB"),
    (0.0, "s", "0 s"),
    (None, "cost", "—"),
])
def test_values_read_like_the_book(value, unit, text):
    assert format_value(value, unit) == text


def test_booleans_read_yes_and_no():
    assert format_value(True, "") == "yes"
    assert format_value(False, "") == "no"
    assert format_value(0, "bool") == "no"
    assert format_value(1, "bool") == "yes"
    assert full_value(True, "") == "yes (1)"


def test_si_bytes_where_the_section_prints_them():
    assert format_value(15136811008, "bytes", "si") == "15.14 GB"
    assert format_value(41020836167.68, "bytes", "si") == "41.02 GB"
    assert format_value(1.792e12, "bytes/s") == "1.792 TB/s"


def test_full_value_keeps_every_digit():
    assert full_value(2795.8474452152145, "steps/s") == "2,795.8474452152145 steps/s"
    assert full_value(298578849033.8972, "tokens") == "298,578,849,033.8972 tokens"
    assert full_value(8192000, "bytes") == "8,192,000 bytes"
    assert full_value(1.454383300608e+24, "FLOPs") == "1.454383300608×10²⁴ FLOPs"
    assert full_value(None, "s") == "—"


def test_four_significant_digits_at_every_scale():
    assert significant(0.123456) == "0.1235"
    assert significant(9.99996) == "10"
    assert significant(-0.00001) == "-1.000×10⁻⁵"
    assert significant(float("inf")) == "∞"


def test_no_output_of_any_calculator_prints_scientific_e_notation():
    # '2.98579e+11 tokens', '0.000322923 GPU·s' and '1' for true were what the cards showed.
    for calc in registry():
        result = calc.run()
        for out in calc.outputs:
            if out.kind != "scalar":
                continue
            text = calc.format_output(out.name, result.get(out.name))
            assert "e+" not in text and "e-" not in text, (calc.name, out.name, text)
            digits = sum(ch.isdigit() for ch in text.split("×10")[0].lstrip("-0.,"))
            value = result.get(out.name)
            exact_count = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
            whole_number = "." not in text.split(" ")[0]  # from 1,000 up: no decimals
            assert exact_count or whole_number or digits <= 5, (calc.name, out.name, text)


def test_verify_rows_carry_every_digit_for_the_tooltip():
    from core.verify import verify_calculator

    rows = {r.output: r for r in verify_calculator(registry().get("serving.backlog"))}
    row = rows["backlog_at_end_of_arrivals"]
    assert row.computed_text == "112,793 steps"
    assert row.computed_full.startswith("112,792.") and row.book_full == "112,792.8 steps"


def test_one_of_a_count_reads_singular_and_rates_stay_as_they_are():
    assert format_value(1, "calls") == "1 call"
    assert format_value(1, "batches") == "1 batch"
    assert format_value(2, "batches") == "2 batches"
    assert format_value(1, "tokens/s") == "1 tokens/s"  # a rate, not a plural
    assert format_value(1, "GPU·s") == "1 GPU·s"
