import os

import pytest

from core import atomic_file
from core.atomic_file import write_atomic


def test_writes_the_bytes_and_keeps_a_replaced_files_mode(tmp_path):
    path = tmp_path / "a.bin"
    write_atomic(path, b"one")
    assert path.read_bytes() == b"one" and path.stat().st_mode & 0o777 == 0o644
    path.chmod(0o600)
    write_atomic(str(path), b"two")
    assert path.read_bytes() == b"two" and path.stat().st_mode & 0o777 == 0o600
    assert os.listdir(tmp_path) == ["a.bin"]


def test_a_failed_rename_keeps_the_old_file_and_names_the_path(tmp_path, monkeypatch):
    path = tmp_path / "a.bin"
    path.write_bytes(b"old")

    def full_disk(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic_file.os, "replace", full_disk)
    with pytest.raises(OSError) as err:
        write_atomic(path, b"new")
    assert err.value.filename == str(path) and err.value.errno == 28
    assert path.read_bytes() == b"old" and os.listdir(tmp_path) == ["a.bin"]


def test_a_missing_folder_is_named_as_the_folder(tmp_path):
    with pytest.raises(OSError) as err:
        write_atomic(tmp_path / "no" / "a.bin", b"x")
    assert err.value.filename == str(tmp_path / "no")
    assert os.listdir(tmp_path) == []
