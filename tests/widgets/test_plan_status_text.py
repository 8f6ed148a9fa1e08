"""Plan's sweep status reads whole in each language (issue 14: English dropped the count)."""
from __future__ import annotations

from widgets.kit.i18n import split_pair
from widgets.plan import summary_status


def test_the_status_is_one_pair_with_the_numbers_on_both_sides():
    text = summary_status({"points": {"done": 12, "reused": 3, "left": 2, "refused": 1}}, 12)
    zh, en = split_pair(text)
    assert zh == "完成 12 个点(复用 3),2 个未完成,1 个被拒"
    assert en == "12 points done, 3 reused, 2 left, 1 refused by the replay"
    assert split_pair(summary_status({}, 5)) == ("完成 5 个点(复用 0)", "5 points done, 0 reused")
