"""The password of a FalkorDB server: made for a server we start, found for a connection.

A FalkorDB server with no password lets any local user run ``CONFIG SET
requirepass`` (locking its owner out) or rewrite its graphs (issue 42). The
server agrag-lab starts always requires one: generated, written to a file
only its owner reads (mode 600, like the lab token), and handed to the server
in a config file of the same mode (never on the command line, which every
local user can read). A connection finds the password, first found wins:

1. the ``password`` given to :meth:`FalkorDBGraphStore.connect
   <agrag_lab.graph_stores.falkordb.store.FalkorDBGraphStore.connect>`;
2. a server this process started (:func:`remember`);
3. ``$AGRAG_FALKORDB_PASSWORD``;
4. the file ``$AGRAG_FALKORDB_PASSWORD_FILE`` names;
5. the file ``python -m agrag_lab.graph_stores.falkordb.server`` wrote for that host and
   port (:func:`password_file`, under the user's state directory).

A user name (a server with ACL users) comes from ``$AGRAG_FALKORDB_USERNAME``.

Examples
--------
>>> remember("127.0.0.1", 6399, "s3cret")
>>> find_password("127.0.0.1", 6399)
's3cret'
>>> password_file("::1", 6379).name
'falkordb-__1-6379.password'
"""

from __future__ import annotations

import os
import re
import secrets
import threading
from pathlib import Path

from agrag_lab.owner_files import read_owner_file, state_dir, write_owner_file

__all__ = [
    "PASSWORD_ENV",
    "PASSWORD_FILE_ENV",
    "USERNAME_ENV",
    "config_text",
    "find_password",
    "new_password",
    "password_file",
    "remember",
]

#: The environment variable that holds the password of the FalkorDB server a command connects to.
PASSWORD_ENV = "AGRAG_FALKORDB_PASSWORD"
#: The environment variable that names a file (mode 600) holding that password.
PASSWORD_FILE_ENV = "AGRAG_FALKORDB_PASSWORD_FILE"
#: The environment variable that holds the user name, for a server with ACL users.
USERNAME_ENV = "AGRAG_FALKORDB_USERNAME"

_started: dict[tuple[str, int], str] = {}
_lock = threading.Lock()


def new_password() -> str:
    """A new random password (32 bytes, URL-safe text)."""
    return secrets.token_urlsafe(32)


def password_file(host: str, port: int) -> Path:
    """Where ``python -m agrag_lab.graph_stores.falkordb.server`` keeps the password of its server on ``host:port``."""
    safe = re.sub(r"[^A-Za-z0-9.-]", "_", host)
    return state_dir() / f"falkordb-{safe}-{port}.password"


def config_text(password: str) -> str:
    """The redis config lines that make a server require ``password``."""
    quoted = password.replace("\\", "\\\\").replace('"', '\\"')
    return f'requirepass "{quoted}"\n'


def remember(host: str, port: int, password: str) -> None:
    """Record the password of a server this process started (a connection to it then needs none given)."""
    with _lock:
        _started[(host, port)] = password


def find_password(host: str, port: int, given: str | None = None) -> str | None:
    """The password to connect to ``host:port`` with (see the module for the order), or None.

    Raises
    ------
    ServiceError
        ``$AGRAG_FALKORDB_PASSWORD_FILE`` names a file that cannot be read, is empty, or that other
        users may read.
    """
    if given is not None:
        return given
    with _lock:
        started = _started.get((host, port))
    if started is not None:
        return started
    if os.environ.get(PASSWORD_ENV):
        return os.environ[PASSWORD_ENV]
    named = os.environ.get(PASSWORD_FILE_ENV)
    if named:
        return read_owner_file(named, "password")
    kept = password_file(host, port)
    if kept.exists():
        return read_owner_file(kept, "password")
    return None


def write_password(path: Path, password: str) -> None:
    """Write ``password`` to ``path`` (mode 600)."""
    write_owner_file(path, password)
