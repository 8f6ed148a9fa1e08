"""core/file_guard.py: what a user's file must be before a parser sees it."""
import os

import pytest

from core.file_guard import FileRefused, check_depth, read_regular


def test_a_regular_file_within_the_bound_is_read_whole(tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes(b"x" * 3_000_000)
    assert read_regular(path, 3_000_000) == b"x" * 3_000_000
    with pytest.raises(FileRefused, match="3,000,000 bytes; at most 2,999,999 bytes"):
        read_regular(path, 2_999_999)


def test_what_is_not_a_regular_file_is_refused_without_reading(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(FileRefused, match=r"not a regular file \(a fifo\)"):
        read_regular(fifo, 100)  # opened non-blocking: returns at once, no writer needed
    with pytest.raises(FileRefused, match=r"not a regular file \(a directory\)"):
        read_regular(tmp_path, 100)
    with pytest.raises(FileRefused, match=r"not a regular file \(a device\)"):
        read_regular("/dev/zero", 100)
    with pytest.raises(FileRefused, match="cannot open"):
        read_regular(tmp_path / "missing", 100)


@pytest.mark.parametrize("text, syntax, depth", [
    ("a = [[1, 2], {b = [3]}]", "toml", 3),
    ('a = "[[[[[[" # {{{{{{\nb = [1]', "toml", 1),
    ("a = '[[[[[['\nb = [1]", "toml", 1),
    ('a = """\n[[[[[[\n"""\nb = [1]', "toml", 1),
    ("a = '''[[[[''' \nb = [[1]]", "toml", 2),
    ('a = "say \\"[[[[\\"" \nb = [1]', "toml", 1),
    ('{"a": [[["[[[[\\"[[", 1]]]}', "json", 4),
    ('{"a": "#[[[["}', "json", 1),
])
def test_nesting_is_counted_outside_strings_and_comments(text, syntax, depth):
    check_depth(text, depth, syntax)
    with pytest.raises(FileRefused, match=f"nested deeper than {depth - 1} levels"):
        check_depth(text, depth - 1, syntax)
