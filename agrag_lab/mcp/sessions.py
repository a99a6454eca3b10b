"""Evidence sessions of MCP clients: server-minted handles, bounded per client, idle expiry.

``check_citations`` must know what *this* client fetched, so fetches are
remembered per evidence session. Protocol revision 2026-07-28 has no
connection state, so sessions follow the explicit-handle pattern of SEP-2567:
the server mints an unguessable handle that the client passes as ``session``.
Where the transport does identify a client (stdio; a legacy streamable HTTP
``Mcp-Session-Id``) that identity aliases a default session.

Every session has an *owner*: the client that opened it (see
:meth:`agrag_lab.mcp.server.EvidenceServer` for how a client is told apart:
the stdio process, the ``Mcp-Session-Id``, else the HTTP connection). The
bounds, each with its own rule, so one client cannot evict another's sessions:

* **per client**: an owner keeps at most ``per_client`` sessions; opening one
  more forgets *that owner's* least recently used session;
* **in all**: at most ``max_sessions``; past it, the least recently used
  session of the owner holding the most goes (a client with few sessions
  keeps them while any client holds more);
* **idle**: a session unused for ``idle_timeout`` seconds is forgotten.

A handle that was forgotten says why (which bound, and how to go on) for as
long as the last :data:`REMEMBERED_REASONS` forgotten handles are remembered.

With a :class:`~agrag_lab.mcp.session_store.SessionStore` the sessions outlive
the process: each one minted, used, or forgotten is written there, and a
handle this process does not hold is resumed from it (its owner and fetched
ids) when another server process of the same index and scope made it. The
store applies the same bounds to the sessions of all processes.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agrag_lab.errors import ArgumentError, UnknownSessionError

if TYPE_CHECKING:
    from agrag_lab.evidence.session import EvidenceSession
    from agrag_lab.mcp.session_store import SessionStore

__all__ = ["REMEMBERED_REASONS", "SessionRegistry", "UnknownSessionError"]

#: How many forgotten handles keep the reason they were forgotten.
REMEMBERED_REASONS = 4096
_AGAIN = "call open_session (or fetch_evidence without `session`) for a new one, and fetch again what you will cite"


@dataclass
class _Entry:
    session: EvidenceSession
    owner: str
    used: float


class SessionRegistry:
    """Evidence sessions keyed by server-minted handles, owned by clients; connection keys alias handles.

    Parameters
    ----------
    factory : callable
        Makes a new :class:`EvidenceSession` (with the server's fixed scope).
    max_sessions : int
        Most sessions kept in all.
    per_client : int
        Most sessions one owner keeps; its least recently used go first.
    idle_timeout : float
        Seconds after which an unused session is forgotten.
    clock : callable
        Seconds (wall time, as the store is shared by processes; tests pass a fake).
    store : SessionStore, optional
        Where sessions are kept past this process (see the module); default: nowhere.

    Raises
    ------
    ArgumentError
        A bound below 1 (or an idle timeout not above 0).

    Examples
    --------
    >>> reg = SessionRegistry(lambda: object(), max_sessions=4, per_client=2)  # type: ignore[arg-type, return-value]
    >>> h1, s1 = reg.open("client-a")
    >>> reg.get(h1) is s1
    True
    >>> reg.for_connection("stdio")[0] == reg.for_connection("stdio")[0]
    True
    >>> _ = reg.open("client-a"); _ = reg.open("client-a")  # a third: client-a's oldest goes
    >>> len(reg), reg.owned("client-a"), reg.owned("stdio")
    (3, 2, 1)
    >>> reg.get(h1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    agrag_lab.errors.UnknownSessionError: evidence session es-... was forgotten: the client that opened it opened more than 2 sessions (the server keeps at most 2 per client, least recently used go first); call open_session (or fetch_evidence without `session`) for a new one, and fetch again what you will cite
    """

    def __init__(
        self,
        factory: Callable[[], EvidenceSession],
        *,
        max_sessions: int = 256,
        per_client: int = 32,
        idle_timeout: float = 3600.0,
        clock: Callable[[], float] = time.time,
        store: SessionStore | None = None,
    ) -> None:
        problems = [f"{name} must be at least 1, got {value!r}"
                    for name, value in (("max_sessions", max_sessions), ("per_client", per_client)) if value < 1]
        if not idle_timeout > 0:
            problems.append(f"idle_timeout must be above 0 seconds, got {idle_timeout!r}")
        if problems:
            raise ArgumentError("; ".join(problems))
        self._factory = factory
        self.max_sessions = max_sessions
        self.per_client = min(per_client, max_sessions)
        self.idle_timeout = idle_timeout
        self._clock = clock
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, _Entry] = OrderedDict()  # least recently used first
        self._owners: dict[str, OrderedDict[str, None]] = {}  # owner -> its handles, least recently used first
        self._aliases: dict[str, str] = {}
        self._forgotten: OrderedDict[str, str] = OrderedDict()
        self.store = store

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)

    def owned(self, owner: str) -> int:
        """How many live sessions ``owner`` holds."""
        with self._lock:
            return len(self._owners.get(owner, ()))

    # -- forgetting ------------------------------------------------------------------------
    def _forget(self, handle: str, reason: str) -> None:
        """Forget ``handle`` in this process (a store applies the same bounds itself, over every process)."""
        entry = self._sessions.pop(handle)
        handles = self._owners[entry.owner]
        del handles[handle]
        if not handles:
            del self._owners[entry.owner]
        for key in [k for k, h in self._aliases.items() if h == handle]:
            del self._aliases[key]
        self._forgotten[handle] = reason
        while len(self._forgotten) > REMEMBERED_REASONS:
            self._forgotten.popitem(last=False)

    def _expire(self, now: float) -> None:
        """Forget idle sessions, then the greediest owner's oldest while over ``max_sessions``."""
        while self._sessions:
            handle, entry = next(iter(self._sessions.items()))
            if now - entry.used <= self.idle_timeout:
                break
            self._forget(handle, f"it was unused for more than {self.idle_timeout:g} s")
        while len(self._sessions) > self.max_sessions:
            # the owner holding the most; among equals, the one whose oldest session is least recent
            greediest = max(self._owners.values(), key=lambda hs: (len(hs), -self._sessions[next(iter(hs))].used))
            self._forget(
                next(iter(greediest)),
                f"the server keeps at most {self.max_sessions} sessions in all and the client that opened it "
                "held the most (its least recently used go first)",
            )

    def _mint(self, owner: str, now: float) -> tuple[str, EvidenceSession]:
        mine = self._owners.get(owner)
        while mine is not None and len(mine) >= self.per_client:
            self._forget(
                next(iter(mine)),
                f"the client that opened it opened more than {self.per_client} sessions (the server keeps at most "
                f"{self.per_client} per client, least recently used go first)",
            )
            mine = self._owners.get(owner)
        handle = "es-" + secrets.token_urlsafe(18)
        session = self._factory()
        self._adopt(handle, session, owner, now)
        if self.store is not None:
            self.store.add(handle, owner, now=now)
            self.store.prune(now=now, idle_timeout=self.idle_timeout, per_client=self.per_client,
                             max_sessions=self.max_sessions)
        return handle, session

    def _adopt(self, handle: str, session: EvidenceSession, owner: str, now: float) -> None:
        self._sessions[handle] = _Entry(session, owner, now)
        self._owners.setdefault(owner, OrderedDict())[handle] = None
        self._expire(now)

    def _resume(self, handle: str, now: float) -> EvidenceSession | None:
        """The session of ``handle`` as the store has it (made by any process), or None when it has none.

        The session gains the ids fetched under this handle since (by any process).
        """
        if self.store is None:
            return None
        kept = self.store.load(handle, now=now, idle_timeout=self.idle_timeout)
        if kept is None:
            if handle in self._sessions:
                self._forget(handle, self.store.reason(handle) or "another server process forgot it")
            return None
        owner, ids = kept
        if handle not in self._sessions:
            self._adopt(handle, self._factory(), owner, now)
            if handle not in self._sessions:  # adopting it put this process over a bound
                return None
        session = self._sessions[handle].session
        if ids:
            session.remember(ids)
        return session

    def save(self, handle: str, session: EvidenceSession) -> None:
        """Write the ids ``session`` fetched to the store (after a call that fetched), if there is one."""
        if self.store is not None:
            self.store.remember(handle, session.fetched)

    def _touch(self, handle: str, now: float) -> EvidenceSession:
        entry = self._sessions[handle]
        entry.used = now
        if self.store is not None:
            self.store.touch(handle, now=now)
        self._sessions.move_to_end(handle)
        self._owners[entry.owner].move_to_end(handle)
        return entry.session

    # -- the calls of the server ---------------------------------------------------------------
    def open(self, owner: str = "anonymous") -> tuple[str, EvidenceSession]:
        """A new session of ``owner`` (the calling client) and its handle."""
        with self._lock:
            return self._mint(owner, self._clock())

    def get(self, handle: str) -> EvidenceSession:
        """The session of ``handle`` (and mark it used); any client holding the handle may use it.

        Raises
        ------
        UnknownSessionError
            No live session has this handle; the message says why when it was forgotten.
        """
        with self._lock:
            now = self._clock()
            self._expire(now)
            if self.store is not None:
                self._resume(handle, now)
            if handle not in self._sessions:
                reason = self._forgotten.get(handle) or (self.store.reason(handle) if self.store is not None else None)
                if reason is not None:
                    raise UnknownSessionError(f"evidence session {handle[:10]}... was forgotten: {reason}; {_AGAIN}")
                raise UnknownSessionError(f"unknown or expired evidence session handle; {_AGAIN}")
            return self._touch(handle, now)

    def for_connection(self, key: str) -> tuple[str, EvidenceSession]:
        """The default session of a transport connection (made on first use, owned by ``key``)."""
        with self._lock:
            now = self._clock()
            self._expire(now)
            handle = self._aliases.get(key)
            if handle is not None and handle in self._sessions:
                return handle, self._touch(handle, now)
            handle, session = self._mint(key, now)
            self._aliases[key] = handle
            return handle, session
