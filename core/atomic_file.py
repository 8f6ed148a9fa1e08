"""Writing a file whole or not at all (sessions, exports, result files): the bytes go to a
temporary file in the target's folder, are flushed to disk, and the temporary file is
renamed over the target. A reader, or a crash, sees the old file or the new one, never
half of one; write_atomic_all does the same for a set of files (all new, or none)."""
from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Mapping


def write_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write data to path atomically. On failure the temporary file is removed, a file
    already at path is left as it was, and the OSError is raised again with its filename
    telling the step that failed: path's folder (no file could be made there) or path
    (writing or renaming failed). A new file gets the usual 0644; a replaced one keeps its
    mode."""
    write_atomic_all({path: data})


def write_atomic_all(files: Mapping[str | os.PathLike, bytes]) -> None:
    """Write several files whole, or change none of them (a command's --out folder): each
    is staged as a temporary file beside its target (written, flushed, fsync'd), and only
    when every one is staged are they renamed over their targets. A full disk fails while
    staging: every temporary file is removed and no target changes. OSError as write_atomic
    raises it (filename: the folder, or the file that failed)."""
    staged: list[tuple[str, str]] = []
    try:
        for target, data in files.items():
            path = os.path.abspath(os.fspath(target))
            folder, name = os.path.split(path)
            try:
                handle, temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".part", dir=folder)
            except OSError as err:
                raise OSError(err.errno, err.strerror, folder) from None
            staged.append((temp, path))
            try:
                with os.fdopen(handle, "wb") as file:
                    file.write(data)
                    file.flush()
                    os.fsync(file.fileno())
                os.chmod(temp, os.stat(path).st_mode & 0o777 if os.path.exists(path) else 0o644)
            except OSError as err:
                raise OSError(err.errno, err.strerror, path) from None
        for temp, path in staged:
            try:
                os.replace(temp, path)
            except OSError as err:
                raise OSError(err.errno, err.strerror, path) from None
    except OSError:
        for temp, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(temp)
        raise
