"""Evidence sessions of MCP clients: server-minted handles, connection aliases, expiry.

``check_citations`` must know what *this* client fetched, so fetches are
remembered per evidence session. Protocol revision 2026-07-28 has no
connection state, so sessions follow the explicit-handle pattern of SEP-2567:
the server mints an unguessable handle that the client passes as ``session``.
Where the transport does identify a client (stdio; a legacy streamable HTTP
``Mcp-Session-Id``) that identity aliases a default session. Sessions idle
for ``idle_timeout`` are forgotten, and at most ``max_sessions`` are kept
(least recently used go first).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

from agrag_lab.errors import UnknownSessionError

if TYPE_CHECKING:
    from agrag_lab.evidence.session import EvidenceSession

__all__ = ["SessionRegistry", "UnknownSessionError"]


class SessionRegistry:
    """Evidence sessions keyed by server-minted handles; connection keys alias handles.

    Parameters
    ----------
    factory : callable
        Makes a new :class:`EvidenceSession` (with the server's fixed scope).
    max_sessions : int
        Most sessions kept; the least recently used go first.
    idle_timeout : float
        Seconds after which an unused session is forgotten.
    clock : callable
        Monotonic seconds (tests pass a fake).

    Examples
    --------
    >>> reg = SessionRegistry(lambda: object(), max_sessions=2)  # type: ignore[arg-type, return-value]
    >>> h1, s1 = reg.open()
    >>> reg.get(h1) is s1
    True
    >>> reg.for_connection("stdio")[0] == reg.for_connection("stdio")[0]
    True
    >>> _ = reg.open(); len(reg)
    2
    >>> reg.get(h1)
    Traceback (most recent call last):
    ...
    agrag_lab.errors.UnknownSessionError: unknown or expired evidence session handle; call open_session (or fetch_evidence without `session`) for a new one, and fetch again what you will cite
    """

    def __init__(
        self,
        factory: Callable[[], EvidenceSession],
        *,
        max_sessions: int = 256,
        idle_timeout: float = 3600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._factory = factory
        self.max_sessions = max_sessions
        self.idle_timeout = idle_timeout
        self._clock = clock
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, tuple[EvidenceSession, float]] = OrderedDict()
        self._aliases: dict[str, str] = {}

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)

    def _expire(self, now: float) -> None:
        while self._sessions:
            handle, (_, used) = next(iter(self._sessions.items()))
            if now - used <= self.idle_timeout and len(self._sessions) <= self.max_sessions:
                break
            del self._sessions[handle]
            for key in [k for k, h in self._aliases.items() if h == handle]:
                del self._aliases[key]

    def _mint(self, now: float) -> tuple[str, EvidenceSession]:
        handle = "es-" + secrets.token_urlsafe(18)
        session = self._factory()
        self._sessions[handle] = (session, now)
        self._expire(now)
        return handle, session

    def open(self) -> tuple[str, EvidenceSession]:
        """A new session and its handle."""
        with self._lock:
            return self._mint(self._clock())

    def get(self, handle: str) -> EvidenceSession:
        """The session of ``handle`` (and mark it used).

        Raises
        ------
        UnknownSessionError
            No live session has this handle.
        """
        with self._lock:
            now = self._clock()
            self._expire(now)
            found = self._sessions.get(handle)
            if found is None:
                raise UnknownSessionError(
                    "unknown or expired evidence session handle; call open_session (or fetch_evidence "
                    "without `session`) for a new one, and fetch again what you will cite"
                )
            self._sessions[handle] = (found[0], now)
            self._sessions.move_to_end(handle)
            return found[0]

    def for_connection(self, key: str) -> tuple[str, EvidenceSession]:
        """The default session of a transport connection (made on first use)."""
        with self._lock:
            now = self._clock()
            self._expire(now)
            handle = self._aliases.get(key)
            if handle is not None and handle in self._sessions:
                session = self._sessions[handle][0]
                self._sessions[handle] = (session, now)
                self._sessions.move_to_end(handle)
                return handle, session
            handle, session = self._mint(now)
            self._aliases[key] = handle
            return handle, session
