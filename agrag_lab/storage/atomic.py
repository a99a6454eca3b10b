"""Crash-safe file writes: write a temporary sibling, fsync, then ``os.replace``.

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> write_bytes_atomic(d / "x.json", b"{}")
>>> (d / "x.json").read_bytes()
b'{}'
>>> write_text_atomic(d / "y.json", '{"a": 1}')
>>> (d / "y.json").read_text()
'{"a": 1}'
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that a crash leaves the old or the new file.

    Raises
    ------
    OSError
        The folder is not writable; the old file is untouched and no temporary file is left behind.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    with contextlib.suppress(OSError, AttributeError):  # the rename itself, where the platform allows
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Replace the file at ``path`` with ``text`` (UTF-8) atomically.

    Raises
    ------
    OSError
        The folder is not writable; the old file is untouched and
        no temporary file is left behind.
    """
    write_bytes_atomic(Path(path), text.encode("utf-8"))


def replace_dir_atomic(build: Path, target: Path) -> None:
    """Move the finished folder ``build`` to ``target``, replacing any old one.

    A crash leaves either the old folder or the new one at ``target`` (the old
    one is renamed aside first and removed last).
    """
    old = target.with_name(f".{target.name}.old")
    if old.exists():
        shutil.rmtree(old)
    if target.exists():
        os.replace(target, old)
    os.replace(build, target)
    if old.exists():
        shutil.rmtree(old)
