"""Hostile talk files: a FIFO (blocked `lab talk` for minutes), a device, a folder, files
too large, nested past the TOML parser's recursion (RecursionError), too many scenes.
Each is refused by core.talk.load_talk with ParamError('talk', ...) naming the file and
the valid form, within the corpus's bound (in-process: tests/hostile/bounds.py); valid
oddities load."""
from __future__ import annotations

import os

import pytest

from core import talk as core_talk
from core.registry import ParamError
from tests.hostile.bounds import bounded

SCENE = '[[scene]]\ntitle = "one"\npanel = "request"\n'


def _fifo(path):
    os.mkfifo(path)


def _sparse(size):
    def make(path):
        with open(path, "wb") as f:
            f.truncate(size)
    return make


def _text(text):
    def make(path):
        path.write_text(text, encoding="utf-8")
    return make


# name -> (how to make the file, a phrase of the refusal, or None: it loads)
CASES = {
    "a fifo": (_fifo, "not a regular file (a fifo)"),
    "a folder": (os.mkdir, "not a regular file (a directory)"),
    "a sparse 2 GB file": (_sparse(2 * 2**30), "at most"),
    "over the size bound": (_text(SCENE + "# " + "x" * core_talk.MAX_TALK_BYTES + "\n"), "at most"),
    "arrays nested 5,000 deep": (_text(SCENE + "notes = " + "[" * 5000 + "]" * 5000 + "\n"), "nested deeper"),
    "inline tables nested 3,000 deep": (_text(SCENE + "view = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n"),
                                        "nested deeper"),
    "nesting hidden in a string": (_text(SCENE + 'notes = "' + "[" * 5000 + '"\n'), None),
    "nesting in a comment": (_text(SCENE + "# " + "{" * 5000 + "\n"), None),
    "600 scenes": (_text(SCENE * 600), "600 scenes"),
    "not UTF-8": (lambda path: path.write_bytes(b"\xff\xfe" + b"\x00" * 100), "not TOML"),
    "a title of 500 kB": (_text('[[scene]]\ntitle = "' + "t" * 500_000 + '"\npanel = "request"\n'), None),
}


@pytest.fixture(scope="module", autouse=True)
def _imported(tmp_path_factory):
    """Load one plain talk first: the panels' state modules it imports are not a case's cost."""
    path = tmp_path_factory.mktemp("talk") / "plain.toml"
    path.write_text(SCENE, encoding="utf-8")
    core_talk.load_talk(str(path))


@pytest.mark.parametrize("name", CASES)
def test_a_hostile_talk_file(tmp_path, name):
    make, phrase = CASES[name]
    path = tmp_path / "talk.toml"
    make(path)
    with bounded():
        if phrase is None:
            talk = core_talk.load_talk(str(path))
            assert talk.scenes and talk.scenes[0].ok
            return
        with pytest.raises(ParamError) as err:
            core_talk.load_talk(str(path))
    assert err.value.param == "talk"
    assert phrase in err.value.message and "valid" in err.value.message, err.value.message
    assert str(path) in err.value.message


def test_a_device_is_refused(tmp_path):
    with bounded(), pytest.raises(ParamError) as err:
        core_talk.load_talk("/dev/zero")
    assert "not a regular file (a device)" in err.value.message
