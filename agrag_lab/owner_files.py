"""Secrets in files only their owner may read, and where agrag-lab keeps per-user state.

A token or a password never goes on a command line (every local user can read
the process list): it is written to a file of mode 600 and read back from
one, refused when other users could read it. The lab's token, the graph
server's password and the evidence sessions all live under :func:`state_dir`
unless the user says otherwise.

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> path = Path(tempfile.mkdtemp()) / "secret"
>>> write_owner_file(path, "s3cret")
>>> read_owner_file(path, "password"), oct(path.stat().st_mode & 0o777)
('s3cret', '0o600')
"""

from __future__ import annotations

import os
from pathlib import Path

from agrag_lab.errors import ServiceError

__all__ = ["STATE_DIR_ENV", "read_owner_file", "state_dir", "write_owner_file"]

#: The environment variable that overrides where agrag-lab keeps per-user state.
STATE_DIR_ENV = "AGRAG_LAB_STATE_DIR"


def state_dir() -> Path:
    """Where agrag-lab keeps per-user state (``$AGRAG_LAB_STATE_DIR``, else the platform's state dir).

    Examples
    --------
    >>> import os
    >>> os.environ["AGRAG_LAB_STATE_DIR"] = "/tmp/agrag-state"
    >>> str(state_dir())
    '/tmp/agrag-state'
    >>> del os.environ["AGRAG_LAB_STATE_DIR"]
    """
    chosen = os.environ.get(STATE_DIR_ENV)
    if chosen:
        return Path(chosen).expanduser()
    import platformdirs

    return Path(platformdirs.user_state_dir("agrag-lab", appauthor=False))


def write_owner_file(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` with mode 600 from its creation (its folder made, mode 700, when missing)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)  # an older file may have had another mode
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)


def read_owner_file(path: str | os.PathLike[str], what: str = "token") -> str:
    """The ``what`` (a token, a password) in ``path``, a file only its owner may read (mode 600 or stricter).

    Raises
    ------
    ServiceError
        The file cannot be read, is empty, or other users may read or write it.
    """
    path = Path(path)
    try:
        mode = path.stat().st_mode
        text = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ServiceError(f"cannot read the {what} file {str(path)!r} ({exc.strerror or exc}); "
                           f"write the {what} in a file with mode 600") from exc
    if mode & 0o077:
        raise ServiceError(f"the {what} file {str(path)!r} has mode {mode & 0o777:o}: other users may read it; "
                           f"run chmod 600 {path}")
    if not text:
        raise ServiceError(f"the {what} file {str(path)!r} is empty; write the {what} in it")
    return text
