"""Evidence sessions that outlive a server process: a small SQLite store of their own.

Over stdio, clients such as the MCP Inspector CLI start a new server for every
call, so a handle minted by one process must be resumed by the next. Each
session (its owner, when it was last used, the ids it fetched) is written to
``sessions.sqlite`` in the user's state directory, never inside the index
(which may be read-only or shared):

1. ``$AGRAG_LAB_STATE_DIR`` when set;
2. else the platform's user state directory for ``agrag-lab``
   (``platformdirs.user_state_dir``: ``$XDG_STATE_HOME/agrag-lab`` or
   ``~/.local/state/agrag-lab`` on Linux).

A session is *bound* to the index and the scope it was opened on
(:func:`binding`): another server (another index, or another scope) does not
see it. Handles are stored as their SHA-256, so the file holds nothing a
client could present. The bounds of :class:`~agrag_lab.mcp.sessions.SessionRegistry`
hold here too (idle timeout; at most ``per_client`` sessions per owner, its
least recently used go first; at most ``max_sessions`` per binding, the
greediest owner's oldest first), applied by :meth:`SessionStore.prune`
whenever a session is added.

Examples
--------
>>> store = SessionStore(":memory:", "index-a|scope-1")
>>> store.add("es-abc", "stdio", now=100.0)
>>> store.remember("es-abc", ["ada@0123456789ab#c1"])
>>> store.load("es-abc", now=101.0, idle_timeout=60.0)
('stdio', ('ada@0123456789ab#c1',))
>>> SessionStore(":memory:", "index-b|scope-1").load("es-abc", now=101.0, idle_timeout=60.0) is None
True
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path

from agrag_lab.errors import ServiceError
from agrag_lab.owner_files import STATE_DIR_ENV, state_dir

__all__ = ["STATE_DIR_ENV", "SessionStore", "binding", "default_path", "state_dir"]

#: How many forgotten handles keep the reason they were forgotten (per store).
_REASONS_KEPT = 4096

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    key TEXT PRIMARY KEY, binding TEXT NOT NULL, owner TEXT NOT NULL, used REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_by_binding ON sessions (binding, used);
CREATE TABLE IF NOT EXISTS fetched (
    key TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL, PRIMARY KEY (key, id)
);
CREATE TABLE IF NOT EXISTS forgotten (
    key TEXT PRIMARY KEY, binding TEXT NOT NULL, reason TEXT NOT NULL, at REAL NOT NULL
);
"""


def default_path() -> Path:
    """The session store of this user: ``state_dir() / "sessions.sqlite"``."""
    return state_dir() / "sessions.sqlite"


def binding(index: str | os.PathLike[str], readable: Iterable[str] | None) -> str:
    """What a session is bound to: the index folder (resolved) and the scope's readable documents.

    ``readable`` is ``None`` for an unrestricted scope.

    Examples
    --------
    >>> binding("/data/idx", None) == binding("/data/idx", None) != binding("/data/idx", ["a"])
    True
    """
    scope = "*" if readable is None else "\n".join(sorted(readable))
    text = f"{Path(index).resolve()}\n{scope}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _key(handle: str) -> str:
    return hashlib.sha256(handle.encode("utf-8")).hexdigest()


class SessionStore:
    """The sessions of one binding (index and scope) in a SQLite file shared by server processes.

    Parameters
    ----------
    path : str or PathLike
        The SQLite file (made with its folder); ``":memory:"`` keeps nothing past the process.
    binding : str
        What the sessions are bound to (:func:`binding`).

    Raises
    ------
    ServiceError
        The file cannot be made or opened (say where it can, with ``AGRAG_LAB_STATE_DIR``).
    """

    def __init__(self, path: str | os.PathLike[str], binding: str) -> None:
        self.path = str(path)
        self.binding = binding
        self._lock = threading.Lock()
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA busy_timeout = 30000")
            self._db.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise ServiceError(
                f"cannot keep evidence sessions in {self.path} ({exc}); set {STATE_DIR_ENV} to a writable folder"
            ) from exc

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._db.close()

    def _write(self, statements: Iterable[tuple[str, tuple[object, ...]]]) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for sql, params in statements:
                    self._db.execute(sql, params)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def add(self, handle: str, owner: str, *, now: float) -> None:
        """Keep a new session of ``owner``."""
        self._write([("INSERT OR REPLACE INTO sessions VALUES (?, ?, ?, ?)", (_key(handle), self.binding, owner, now))])

    def touch(self, handle: str, *, now: float) -> None:
        """Mark a session used now."""
        self._write([("UPDATE sessions SET used = ? WHERE key = ? AND binding = ?", (now, _key(handle), self.binding))])

    def remember(self, handle: str, ids: Iterable[str]) -> None:
        """Add fetched ids to a session (ids it holds already keep their place)."""
        key = _key(handle)
        rows = list(dict.fromkeys(ids))
        if not rows:
            return
        self._write([
            ("INSERT OR IGNORE INTO fetched SELECT ?, COALESCE((SELECT MAX(seq) FROM fetched WHERE key = ?), 0) + 1, ?",
             (key, key, i))
            for i in rows
        ])

    def load(self, handle: str, *, now: float, idle_timeout: float) -> tuple[str, tuple[str, ...]] | None:
        """``(owner, fetched ids)`` of a live session of this binding, or None (unknown, expired, or another binding).

        A session unused for more than ``idle_timeout`` seconds is forgotten here.
        """
        key = _key(handle)
        with self._lock:
            row = self._db.execute(
                "SELECT owner, used FROM sessions WHERE key = ? AND binding = ?", (key, self.binding)
            ).fetchone()
        if row is None:
            return None
        owner, used = str(row[0]), float(row[1])
        if now - used > idle_timeout:
            self.forget(handle, f"it was unused for more than {idle_timeout:g} s", now=now)
            return None
        with self._lock:
            ids = tuple(r[0] for r in self._db.execute("SELECT id FROM fetched WHERE key = ? ORDER BY seq", (key,)))
        return owner, ids

    def reason(self, handle: str) -> str | None:
        """Why a handle of this binding was forgotten, if it is remembered."""
        with self._lock:
            row = self._db.execute(
                "SELECT reason FROM forgotten WHERE key = ? AND binding = ?", (_key(handle), self.binding)
            ).fetchone()
        return None if row is None else str(row[0])

    def forget(self, handle: str, reason: str, *, now: float) -> None:
        """Drop a session and remember why."""
        self._forget_keys([(_key(handle), reason)], now)

    def _forget_keys(self, keys: list[tuple[str, str]], now: float) -> None:
        if not keys:
            return
        statements: list[tuple[str, tuple[object, ...]]] = []
        for key, reason in keys:
            statements += [
                ("DELETE FROM sessions WHERE key = ?", (key,)),
                ("DELETE FROM fetched WHERE key = ?", (key,)),
                ("INSERT OR REPLACE INTO forgotten VALUES (?, ?, ?, ?)", (key, self.binding, reason, now)),
            ]
        statements.append((
            "DELETE FROM forgotten WHERE key IN (SELECT key FROM forgotten ORDER BY at DESC LIMIT -1 OFFSET ?)",
            (_REASONS_KEPT,),
        ))
        self._write(statements)

    def prune(self, *, now: float, idle_timeout: float, per_client: int, max_sessions: int) -> None:
        """Apply the bounds to this binding's sessions (see the module)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT key, owner, used FROM sessions WHERE binding = ? ORDER BY used", (self.binding,)
            ).fetchall()
        gone: list[tuple[str, str]] = []
        live: list[tuple[str, str, float]] = []
        for key, owner, used in rows:
            if now - float(used) > idle_timeout:
                gone.append((key, f"it was unused for more than {idle_timeout:g} s"))
            else:
                live.append((key, owner, float(used)))
        by_owner: dict[str, list[tuple[str, float]]] = {}
        for key, owner, used in live:
            by_owner.setdefault(owner, []).append((key, used))
        for held in by_owner.values():
            while len(held) > per_client:
                key, _ = held.pop(0)
                gone.append((key, f"the client that opened it opened more than {per_client} sessions (the server "
                                  f"keeps at most {per_client} per client, least recently used go first)"))
        while sum(len(h) for h in by_owner.values()) > max_sessions:
            greediest = max(by_owner.values(), key=lambda h: (len(h), -h[0][1]))
            key, _ = greediest.pop(0)
            gone.append((key, f"the server keeps at most {max_sessions} sessions in all and the client that "
                              "opened it held the most (its least recently used go first)"))
        self._forget_keys(gone, now)
