"""What a user's file must be before any parser sees it (sessions, talks): a regular file
(a FIFO would block the open or the read, a device never end), at most a size bound
(read through the descriptor that was checked, so a file swapped or grown since is caught
too), and nested no deeper than a bound (the JSON and TOML parsers recurse per level and
die with RecursionError, or take minutes, far below what Python's stack allows). Each
refusal is a FileRefused with a short reason for the caller to put in its own error. No Qt.
"""
from __future__ import annotations

import os
import re
import stat

_JSON = re.compile(r'[\[\]{}"]')
_TOML = re.compile(r"[\[\]{}\"'#]")
# Where a one-line string ends: its quote (or, in TOML, the line's end); a backslash escapes.
_BASIC_JSON = re.compile(r'["\\]')
_BASIC_TOML = re.compile(r'["\\\n]')
_LITERAL = re.compile(r"['\n]")


class FileRefused(Exception):
    """The reason a file is not read, as a phrase: 'not a regular file (a fifo)'."""


def _kind(mode: int) -> str:
    return ("a directory" if stat.S_ISDIR(mode) else "a fifo" if stat.S_ISFIFO(mode) else
            "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else
            "not a plain file")


def read_regular(path: str | os.PathLike, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most max_bytes, or FileRefused. Opened
    non-blocking, so a FIFO is refused at once instead of waiting for a writer."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as err:
        raise FileRefused(f"cannot open ({err.strerror or err})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(f"not a regular file ({_kind(info.st_mode)})")
        if info.st_size > max_bytes:
            raise FileRefused(f"{info.st_size:,} bytes; at most {max_bytes:,} bytes")
        chunks, size = [], 0
        while size <= max_bytes:  # the file may have grown since fstat
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as err:
        raise FileRefused(f"cannot read ({err.strerror or err})") from None
    finally:
        os.close(fd)
    if size > max_bytes:
        raise FileRefused(f"over {max_bytes:,} bytes; at most {max_bytes:,} bytes")
    return b"".join(chunks)


def check_depth(text: str, max_depth: int, syntax: str) -> None:
    """FileRefused if arrays or tables ([ and {) nest deeper than max_depth outside
    strings and comments. syntax: 'json' ("..." strings) or 'toml' (also '...',
    multi-line \"\"\"...\"\"\" and '''...''', and # comments)."""
    depth = 0
    i, n = 0, len(text)
    toml = syntax == "toml"
    special = _TOML if toml else _JSON
    while True:
        m = special.search(text, i)
        if m is None:
            return
        i = m.start()
        c = text[i]
        if c in "[{":
            depth += 1
            if depth > max_depth:
                raise FileRefused(f"nested deeper than {max_depth} levels (line {text.count(chr(10), 0, i) + 1})")
        elif c in "]}":
            depth = max(depth - 1, 0)
        elif c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        else:
            i = _string_end(text, i, toml)
            continue
        i += 1


def _string_end(text: str, i: int, toml: bool) -> int:
    """The index just past the string that starts at i (or the end of the text)."""
    quote = text[i]
    triple = toml and text.startswith(quote * 3, i)
    if triple:
        end = text.find(quote * 3, i + 3)
        if end < 0:
            return len(text)
        end += 3
        while end < len(text) and text[end] == quote:  # up to two quotes may end the content
            end += 1
        return end
    stop = (_BASIC_TOML if toml else _BASIC_JSON) if quote == '"' else _LITERAL
    j = i + 1
    while True:
        m = stop.search(text, j)
        if m is None:
            return len(text)
        if m.group() == "\\":  # an escape: skip the character it escapes
            j = m.end() + 1
            continue
        return m.end()
