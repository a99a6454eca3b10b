"""Telling a full disk (or a failed device) from every other failure of a write.

Every store writes through a different library (SQLite, Chroma's SQLite and
HNSW files, bm25s, our atomic files), and each words a full disk its own way:
``OSError`` with ``ENOSPC``, ``EFBIG`` (a file-size limit: ``ulimit -f``) or
``EIO``; SQLite's "database or disk is full" and "disk I/O error", sometimes
wrapped in another library's exception. :func:`write_failure` reads an
exception and its causes and names the failure, so the CLI can say it in one
line (exit 2) instead of a traceback. The previous state of the index is intact
either way: documents.sqlite commits in one transaction, and the derived stores
are rebuilt from it when they lag behind (``meta.generation``).

Examples
--------
>>> import errno
>>> write_failure(OSError(errno.ENOSPC, "No space left on device"))
'the disk is full (No space left on device)'
>>> write_failure(ValueError("bad input")) is None
True
"""

from __future__ import annotations

import errno

from agrag_lab.errors import DiskWriteError

__all__ = ["disk_write_error", "write_failure"]

_ERRNOS = {
    errno.ENOSPC: "the disk is full",
    errno.EFBIG: "a file reached the size limit (ulimit -f) or the file system's largest file",
    errno.EDQUOT: "the disk quota is used up",
    errno.EIO: "the device reported an I/O error",
    errno.EROFS: "the file system is read-only",
}
_MESSAGES = (
    ("database or disk is full", "the disk is full"),
    ("no space left on device", "the disk is full"),
    ("file too large", "a file reached the size limit (ulimit -f) or the file system's largest file"),
    ("disk i/o error", "the device reported an I/O error"),
    ("disk quota exceeded", "the disk quota is used up"),
)


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen and len(seen) < 20:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def write_failure(exc: BaseException) -> str | None:
    """What went wrong if ``exc`` (or one of its causes) is a full disk or an I/O error, else ``None``."""
    for link in _chain(exc):
        if isinstance(link, OSError) and link.errno in _ERRNOS:
            return f"{_ERRNOS[link.errno]} ({link.strerror or link})"
        text = str(link).lower()
        for needle, meaning in _MESSAGES:
            if needle in text:
                return f"{meaning} ({str(link).strip()[:200]})"
    return None


def disk_write_error(exc: BaseException, where: str) -> DiskWriteError | None:
    """The :class:`DiskWriteError` for ``exc`` raised while writing ``where``, or ``None`` if it is not one.

    Examples
    --------
    >>> import sqlite3
    >>> print(disk_write_error(sqlite3.OperationalError("database or disk is full"), "the documents"))
    writing the documents failed: the disk is full (database or disk is full). Nothing of this run was kept and the index is as it was before; free some space (or raise the limit) and run the command again
    """
    problem = write_failure(exc)
    if problem is None:
        return None
    return DiskWriteError(
        f"writing {where} failed: {problem}. Nothing of this run was kept and the index is as it was before; "
        "free some space (or raise the limit) and run the command again"
    )
