"""`lab snapshot --talk` and `lab talk` on the command line: the size asked, and bad input
refused with exit code 2 naming the option, before any window opens."""
from __future__ import annotations

import pytest
from PySide6 import QtGui

from core.talk import load_talk
from lab.cli import main
from tests.lab.talk_testkit import CHAPTER3

SCENES = len(load_talk(CHAPTER3).scenes)  # the valid --scene range, as the shipped talk has grown


def test_snapshot_talk_scene_writes_the_size_asked(tmp_path, capsys):
    out = tmp_path / "scene.png"
    assert main(["snapshot", "--talk", str(CHAPTER3), "--scene", "2", "--out", str(out), "--size", "960x600"]) == 0
    image = QtGui.QImage(str(out))
    assert (image.width(), image.height()) == (960, 600)


@pytest.mark.parametrize("args, field, hint", [
    (["--talk", str(CHAPTER3), "--scene", "99"], "--scene", f"valid: 1..{SCENES}"),
    (["--talk", str(CHAPTER3), "--scene", "0"], "--scene", f"valid: 1..{SCENES}"),
    (["--talk", str(CHAPTER3), "--scene", "two"], "--scene", f"valid: a scene number 1..{SCENES}"),
    (["--talk", str(CHAPTER3)], "--scene", f"valid: a scene number 1..{SCENES}"),
    (["--scene", "1"], "--talk", "required with --scene"),
    (["request", "--talk", str(CHAPTER3), "--scene", "1"], "PANEL", "no PANEL"),
    (["--talk", "/nonexistent/talk.toml", "--scene", "1"], "--talk", "talk.toml"),
])
def test_snapshot_talk_bad_input_exits_2_naming_the_option(args, field, hint, tmp_path, capsys):
    assert main(["snapshot", *args, "--out", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{field}:" in err and hint in err
    assert not (tmp_path / "x.png").exists()


def test_snapshot_of_a_bad_scene_exits_2_with_its_message(tmp_path, capsys):
    path = tmp_path / "t.toml"
    path.write_text('[[scene]]\npanel = "agents"\n[[scene]]\ntitle = "two"\npanel = "request"\nzoom = 7\n',
                    encoding="utf-8")
    assert main(["snapshot", "--talk", str(path), "--scene", "2", "--out", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "--scene:" in err and "scene 2 «two»: zoom" in err


def test_lab_talk_refuses_a_bad_file_before_any_window(tmp_path, capsys):
    path = tmp_path / "t.toml"
    path.write_text("[[scene]\n", encoding="utf-8")
    assert main(["talk", str(path)]) == 2
    assert "not TOML" in capsys.readouterr().err
