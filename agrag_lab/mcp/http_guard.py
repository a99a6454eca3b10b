"""What stands between the network and ``agrag-lab mcp --transport http``: one ASGI layer.

Four guards, in the order a request meets them:

1. **A bearer token** (:class:`HttpGuard`, ``token``): every request must carry
   ``Authorization: Bearer TOKEN``, compared in constant time; 401 otherwise.
   ``agrag-lab mcp`` requires one on any host that is not loopback (from
   ``--token-file``, or generated and printed to stderr).
2. **Host and Origin** (:func:`transport_security`): the SDK's DNS-rebinding
   check, switched on for *every* bind address (the SDK does so only for
   127.0.0.1, localhost and ::1): the allowed ``Host`` values are the bind
   address (and, for a wildcard bind, this machine's names and addresses) with
   any port, plus ``--allowed-host``; the allowed ``Origin`` values are the same
   hosts over http, plus ``--allowed-origin``.
3. **JSON-RPC shape** (:func:`invalid_request`): a body that parses as JSON but
   is not a JSON-RPC 2.0 request, notification or response (an object or
   boolean id, a missing or non-string method, params that are not an object,
   a batch) is answered here with -32600 *Invalid Request*, the id echoed when
   it is a valid id and null otherwise. The SDK would take an object id for a
   notification (202, no answer) and answer the other shapes with -32602 and
   a validation dump; a body that is not JSON at all stays the SDK's -32700.
4. **Transport sessions** (:class:`TransportSessions`): the SDK keeps at most
   10,000 legacy (``Mcp-Session-Id``) sessions and answers 503 to everyone past
   that until they expire (30 min). Here a session is keyed by its own id
   (a random secret the server hands out), never by the client's address
   (every local client is 127.0.0.1). A client that sends a secret of its own
   in :data:`CLIENT_HEADER` keeps at most ``per_client`` sessions (opening one
   more ends its own least recently used); all sessions together are at most
   ``total``. Past ``total`` a new session ends one that is not in use: the
   oldest that never sent a request after its ``initialize``, else the one
   unused the longest, if unused for :data:`ACTIVE_SECONDS`; when every
   session is in use the newcomer gets 503 with ``Retry-After``. So an
   ``initialize`` flood ends only flood sessions, never a neighbour's active
   one. Idle sessions are reaped after ``idle_timeout`` (the SDK's timer).

Examples
--------
>>> invalid_request({"jsonrpc": "2.0", "id": {"x": 1}, "method": "ping"})
(None, 'the id must be a string or an integer (got an object)')
>>> invalid_request({"jsonrpc": "2.0", "id": 7, "method": "ping"}) is None
True
>>> sorted(allowed_hosts("127.0.0.2"))  # a loopback bind also answers to the machine's loopback names
['127.0.0.1', '127.0.0.1:*', '127.0.0.2', '127.0.0.2:*', '[::1]', '[::1]:*', 'localhost', 'localhost:*']
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import socket
import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcp.server.transport_security import TransportSecuritySettings

if TYPE_CHECKING:
    from mcp.server.streamable_http import StreamableHTTPServerTransport
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

__all__ = [
    "ACTIVE_SECONDS",
    "CLIENT_HEADER",
    "HttpGuard",
    "TransportSessions",
    "allowed_hosts",
    "allowed_origins",
    "client_key",
    "invalid_request",
    "is_loopback",
    "transport_security",
]

log = logging.getLogger("agrag_lab.mcp")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

INVALID_REQUEST = -32600
#: The largest body this layer reads to check its shape (the SDK refuses larger ones anyway: 4 MiB).
MAX_BODY = 4 * 1024 * 1024
_LOOPBACK_NAMES = ("localhost",)
_WILDCARDS = ("0.0.0.0", "::", "")


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a bind address) only accepts connections from this machine.

    Examples
    --------
    >>> is_loopback("127.0.0.2"), is_loopback("::1"), is_loopback("0.0.0.0"), is_loopback("localhost")
    (True, True, False, True)
    """
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _shown(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def _machine_addresses() -> set[str]:
    """This machine's name and the addresses it resolves to (for a wildcard bind)."""
    names = {socket.gethostname(), socket.getfqdn(), "127.0.0.1", "localhost", "::1"}
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None):
            names.add(str(info[4][0]))
    except OSError:
        pass
    return {n for n in names if n}


def _bound_names(bind: str, extra: Iterable[str]) -> set[str]:
    if bind in _WILDCARDS:
        names = _machine_addresses()
    elif is_loopback(bind):
        names = {bind, "127.0.0.1", "localhost", "::1"}
    else:
        names = {bind}
    return names | {e for e in extra if e}


def allowed_hosts(bind: str, extra: Iterable[str] = ()) -> list[str]:
    """The ``Host`` header values a server bound to ``bind`` accepts: each name, with or without a port."""
    hosts: set[str] = set()
    for name in _bound_names(bind, extra):
        if ":" in name and name.count(":") == 1 and not name.startswith("["):  # "name:port" given explicitly
            hosts.add(name)
            continue
        hosts.update({_shown(name), f"{_shown(name)}:*"})
    return sorted(hosts)


def allowed_origins(bind: str, extra_hosts: Iterable[str] = (), origins: Iterable[str] = ()) -> list[str]:
    """The ``Origin`` values accepted: the bound names over http (any port), plus ``origins`` as given."""
    found: set[str] = set()
    for name in _bound_names(bind, extra_hosts):
        found.update({f"http://{_shown(name)}", f"http://{_shown(name)}:*"})
    return sorted(found | {o.rstrip("/") for o in origins if o})


def transport_security(
    bind: str, extra_hosts: Iterable[str] = (), origins: Iterable[str] = ()
) -> TransportSecuritySettings:
    """The SDK's Host/Origin check, on for every bind address."""
    extra = list(extra_hosts)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=allowed_hosts(bind, extra),
        allowed_origins=allowed_origins(bind, extra, origins),
    )


def _kind(value: object) -> str:
    names = {dict: "an object", list: "an array", bool: "a boolean", float: "a number with a fraction",
             type(None): "null", str: "a string", int: "an integer"}
    return names.get(type(value), type(value).__name__)


def _valid_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def invalid_request(message: object) -> tuple[str | int | None, str] | None:
    """``None`` if ``message`` is a JSON-RPC 2.0 message MCP accepts, else (the id to answer with, why).

    Examples
    --------
    >>> invalid_request([])
    (None, 'batches are not supported; send one JSON-RPC message per request')
    >>> invalid_request({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]})
    (1, 'params must be an object (got an array)')
    """
    if isinstance(message, list):
        return None, "batches are not supported; send one JSON-RPC message per request"
    if not isinstance(message, dict):
        return None, f"a JSON-RPC message must be an object (got {_kind(message)})"
    has_id = "id" in message
    answer_id = message["id"] if has_id and _valid_id(message["id"]) else None
    if message.get("jsonrpc") != "2.0":
        return answer_id, f'"jsonrpc" must be "2.0" (got {message.get("jsonrpc")!r})'
    if has_id and not _valid_id(message["id"]):
        return None, f"the id must be a string or an integer (got {_kind(message['id'])})"
    if "method" in message:
        if not isinstance(message["method"], str) or not message["method"]:
            return answer_id, f"method must be a non-empty string (got {_kind(message['method'])})"
        if "params" in message and not isinstance(message["params"], dict):
            return answer_id, f"params must be an object (got {_kind(message['params'])})"
        if "result" in message or "error" in message:
            return answer_id, "a request has no result or error; a response has no method"
        return None
    if not has_id:
        return None, "a message needs a method (a request or notification) or an id (a response)"
    if ("result" in message) == ("error" in message):
        return answer_id, "a response has exactly one of result and error"
    return None


#: The request header in which a client may send a secret of its own: the sessions opened with one
#: secret are one client's (bounded by ``per_client``). Without it, each session is a client of its own.
CLIENT_HEADER = b"x-agrag-client-secret"
#: A session that sent a request this recently is in use: no newcomer ends it.
ACTIVE_SECONDS = 60.0


@dataclass
class TransportSessions:
    """Bounds on the SDK's legacy transport sessions: per client secret, in all, and idle.

    ``manager`` is the SDK's ``StreamableHTTPSessionManager``; a session is
    ended through it (``_discard_session``, the SDK's own way to end one: its
    id answers 404 at once), so the SDK's state and ours cannot disagree.
    Clients are told apart by the secret they send (:data:`CLIENT_HEADER`,
    kept as its sha256), never by their address.
    """

    manager: StreamableHTTPSessionManager
    per_client: int = 32
    total: int = 256
    clock: Callable[[], float] = time.monotonic
    active_seconds: float = ACTIVE_SECONDS
    _owner: dict[str, str | None] = field(default_factory=dict)
    _used: dict[str, float] = field(default_factory=dict)
    _requests: dict[str, int] = field(default_factory=dict)

    def _live(self) -> dict[str, StreamableHTTPServerTransport]:
        instances = self.manager._server_instances  # the SDK's own table of live sessions
        for sid in [s for s in self._owner if s not in instances]:  # ended by DELETE, idle or a crash
            self._forget(sid)
        return instances

    def _forget(self, session_id: str) -> None:
        self._owner.pop(session_id, None)
        self._used.pop(session_id, None)
        self._requests.pop(session_id, None)

    def count(self, client: str | None = None) -> int:
        """Live sessions of ``client`` (a secret's digest; all sessions when None)."""
        self._live()
        return sum(1 for owner in self._owner.values() if client is None or owner == client)

    def opened(self, session_id: str, client: str | None) -> None:
        """Record that ``client`` (None: a client without a secret) opened ``session_id``."""
        self._owner[session_id] = client
        self._used[session_id] = self.clock()
        self._requests[session_id] = 0

    def used(self, session_id: str) -> None:
        """Record a request of ``session_id`` (it becomes the most recently used, and in use)."""
        if session_id in self._used:
            self._used[session_id] = self.clock()
            self._requests[session_id] += 1

    async def make_room(self, client: str | None) -> bool:
        """End sessions until ``client`` may open one within both bounds; False when all are in use."""
        self._live()
        if client is not None:
            while self.count(client) >= self.per_client:
                await self._end(min((s for s, o in self._owner.items() if o == client), key=self._used.__getitem__))
        while self.count() >= self.total:
            victim = self._unused()
            if victim is None:
                return False
            await self._end(victim)
        return True

    def _unused(self) -> str | None:
        """The session to end for a newcomer: the oldest never used after opening, else the longest idle
        past :attr:`active_seconds`; None when every session is in use."""
        never = [s for s in self._owner if self._requests.get(s, 0) == 0]
        if never:
            return min(never, key=self._used.__getitem__)
        idle = min(self._owner, key=self._used.__getitem__, default=None)
        if idle is not None and self.clock() - self._used[idle] >= self.active_seconds:
            return idle
        return None

    async def _end(self, session_id: str) -> None:
        transport = self._live().get(session_id)
        self._forget(session_id)
        if transport is not None:
            log.info("ending transport session %s: its client is past its bound", session_id[:12])
            await self.manager._discard_session(session_id, transport)


def client_key(secret: str | None) -> str | None:
    """What a client is known by: the sha256 of the secret it sent (None without one).

    Examples
    --------
    >>> client_key(None), client_key("s3cret") == client_key("s3cret") != client_key("other")
    (None, True)
    """
    return None if not secret else hashlib.sha256(secret.encode("utf-8", "replace")).hexdigest()


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


async def _answer(send: Send, status: int, body: dict[str, Any], headers: Iterable[tuple[bytes, bytes]] = ()) -> None:
    data = json.dumps(body).encode()
    await send({
        "type": "http.response.start", "status": status,
        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()), *headers],
    })
    await send({"type": "http.response.body", "body": data})


def _error(code: int, message: str, request_id: str | int | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


class HttpGuard:
    """ASGI middleware: bearer token, JSON-RPC shape and transport-session bounds (see the module).

    Parameters
    ----------
    app : ASGI app
        The SDK's streamable HTTP app (which checks Host and Origin itself).
    token : str, optional
        Required as ``Authorization: Bearer TOKEN`` on every request when set.
    sessions : TransportSessions, optional
        Bounds the legacy transport sessions when set.
    """

    def __init__(self, app: ASGIApp, *, token: str | None = None, sessions: TransportSessions | None = None) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode() if token else None
        self.sessions = sessions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self._expected is not None:
            given = (_header(scope, b"authorization") or "").encode("latin-1")
            if not hmac.compare_digest(given, self._expected):
                await _answer(send, 401, _error(INVALID_REQUEST, "a bearer token is required: send "
                              "'Authorization: Bearer TOKEN' with the token the server was started with"),
                              [(b"www-authenticate", b'Bearer realm="agrag-lab mcp"')])
                return
        opening = False
        if scope.get("method") == "POST":
            body, more = await _read(receive, MAX_BODY)
            if not more and body.strip():
                try:
                    parsed: object = json.loads(body)
                except ValueError:
                    parsed = _NOT_JSON
                if parsed is not _NOT_JSON:
                    problem = invalid_request(parsed)
                    if problem is not None:
                        request_id, why = problem
                        await _answer(send, 400, _error(INVALID_REQUEST, f"Invalid Request: {why}", request_id))
                        return
                    opening = isinstance(parsed, dict) and parsed.get("method") == "initialize"
            receive = _replay(body, more, receive)
        await self._bounded(scope, receive, send, opening)

    async def _bounded(self, scope: Scope, receive: Receive, send: Send, opening: bool) -> None:
        sessions = self.sessions
        session_id = _header(scope, b"mcp-session-id")
        if sessions is None:
            await self.app(scope, receive, send)
            return
        if session_id is not None:
            sessions.used(session_id)
            await self.app(scope, receive, send)
            return
        client = client_key(_header(scope, CLIENT_HEADER))  # never the address: every local client is 127.0.0.1
        if opening and not await sessions.make_room(client):  # only an initialize without a session id opens one
            await _answer(send, 503, _error(INVALID_REQUEST, f"the server holds its most sessions "
                          f"({sessions.total}), all in use; retry later, or end unused sessions (HTTP DELETE)"),
                          [(b"retry-after", str(int(sessions.active_seconds)).encode())])
            return

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start" and message.get("status", 500) < 400:
                for key, value in message.get("headers", ()):
                    if bytes(key).lower() == b"mcp-session-id":
                        sessions.opened(bytes(value).decode("latin-1"), client)
            await send(message)

        await self.app(scope, receive, watch)


_NOT_JSON = object()


async def _read(receive: Receive, limit: int) -> tuple[bytes, bool]:
    """The request body up to ``limit`` bytes, and whether more follows (then it is not checked here)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), False
        chunk = bytes(message.get("body", b""))
        chunks.append(chunk)
        size += len(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), False
        if size > limit:
            return b"".join(chunks), True


def _replay(body: bytes, more: bool, receive: Receive) -> Receive:
    """A ``receive`` that gives ``body`` back first, then (if the body was not all read) the rest."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": more}
        return await receive()

    return again
