"""The writer lock of an index folder: one writing process at a time.

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> with WriterLock(d):
...     pass
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType

from agrag_lab.errors import IndexLockedError


class WriterLock:
    """An exclusive, non-blocking ``flock`` on ``<folder>/write.lock``.

    The operating system releases it when the process dies, so a killed
    ingest never leaves a stale lock behind.
    """

    def __init__(self, folder: Path) -> None:
        self.path = folder / "write.lock"
        self._fd: int | None = None

    def acquire(self) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise IndexLockedError(
                f"the index {self.path.parent} is open for writing in another process; "
                "close it there first, or open this one with Graph.open(path, read_only=True)"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> WriterLock:
        self.acquire()
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.release()
