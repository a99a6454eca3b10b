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

SQLite (ours, and Chroma's) never reports ``EFBIG``: its unix VFS turns any
failed write but ``ENOSPC`` into ``SQLITE_IOERR_WRITE`` ("disk I/O error",
Chroma's "code: 778"), and ``ENOSPC`` into ``SQLITE_FULL``. So an I/O error in a
process that has a file-size limit (``RLIMIT_FSIZE``, set by ``ulimit -f``) is
told as that limit, the likely cause; without one it stays an I/O error.
(A process that does not ignore ``SIGXFSZ`` is killed by the signal instead:
that is the shell's "File size limit exceeded", before any of this runs.)

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
from collections.abc import Iterator
from contextlib import contextmanager

from agrag_lab.errors import DiskWriteError

__all__ = ["NOTHING_KEPT", "disk_write_error", "disk_writes", "write_failure"]

#: What a failed write left, when it failed before anything of the run was kept (the documents' commit).
NOTHING_KEPT = "Nothing of this run was kept and the index is as it was before"
_SIZE_LIMIT = "a file reached the size limit (ulimit -f) or the file system's largest file"

_ERRNOS = {
    errno.ENOSPC: "the disk is full",
    errno.EFBIG: _SIZE_LIMIT,
    errno.EDQUOT: "the disk quota is used up",
    errno.EIO: "the device reported an I/O error",
    errno.EROFS: "the file system is read-only",
}
_MESSAGES = (
    ("database or disk is full", "the disk is full"),
    ("no space left on device", "the disk is full"),
    ("file too large", _SIZE_LIMIT),
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


def file_size_limit() -> int | None:
    """This process's file-size limit in bytes (``ulimit -f``; ``RLIMIT_FSIZE``), or ``None`` without one."""
    try:
        import resource  # POSIX only
    except ImportError:
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    return None if soft == resource.RLIM_INFINITY else int(soft)


def write_failure(exc: BaseException, *, size_limit: int | None = -1) -> str | None:
    """What went wrong if ``exc`` (or one of its causes) is a full disk or an I/O error, else ``None``.

    ``size_limit``: the process's file-size limit (default: read with :func:`file_size_limit`);
    with one, SQLite's I/O error is told as that limit (see the module's text).

    Examples
    --------
    >>> import sqlite3
    >>> write_failure(sqlite3.OperationalError("disk I/O error"), size_limit=None)
    'the device reported an I/O error (disk I/O error)'
    >>> print(write_failure(sqlite3.OperationalError("disk I/O error"), size_limit=65536))
    a file reached the size limit (ulimit -f) of this process, 65,536 bytes (SQLite: disk I/O error)
    """
    limit = file_size_limit() if size_limit == -1 else size_limit
    for link in _chain(exc):
        if isinstance(link, OSError) and link.errno in _ERRNOS:
            return f"{_ERRNOS[link.errno]} ({link.strerror or link})"
        text = str(link).lower()
        for needle, meaning in _MESSAGES:
            if needle in text:
                if needle == "disk i/o error" and limit is not None:
                    return (f"a file reached the size limit (ulimit -f) of this process, {limit:,} bytes "
                            f"(SQLite: {str(link).strip()[-160:]})")
                return f"{meaning} ({str(link).strip()[:200]})"
    return None


def disk_write_error(exc: BaseException, where: str, kept: str = NOTHING_KEPT) -> DiskWriteError | None:
    """The :class:`DiskWriteError` for ``exc`` raised while writing ``where``, or ``None`` if it is not one.

    ``kept`` says what the failed write left (default :data:`NOTHING_KEPT`).

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
        f"writing {where} failed: {problem}. {kept}; free some space (or raise the limit) and run the command again"
    )


@contextmanager
def disk_writes(where: str, kept: str) -> Iterator[None]:
    """Turn a full disk or an I/O error inside the block into :func:`disk_write_error` (anything else passes).

    Examples
    --------
    >>> import errno
    >>> try:
    ...     with disk_writes("the graph file", "The index answers as before"):
    ...         raise OSError(errno.ENOSPC, "No space left on device")
    ... except DiskWriteError as exc:
    ...     print(exc)
    writing the graph file failed: the disk is full (No space left on device). The index answers as before; free some space (or raise the limit) and run the command again
    """
    try:
        yield
    except DiskWriteError:
        raise
    except Exception as exc:
        error = disk_write_error(exc, where, kept)
        if error is None:
            raise
        raise error from exc
