"""``EvidenceServer``: every tool of the registry served over MCP, within a fixed scope.

The tools are a loop over :data:`agrag_lab.evidence.tools.TOOLS`: each spec
becomes one SDK :class:`~mcp.server.mcpserver.tools.Tool` whose input schema is
the spec's argument model (plus ``session`` when the tool uses an evidence
session's memory), whose output schema is the spec's result type, and whose
body runs the spec's function on a worker thread. ``open_session`` is the one
tool of the server itself (it hands out evidence session handles).
"""

from __future__ import annotations

import dataclasses
import errno
import json
import logging
import os
import socket
import time
import typing
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, cast

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field, ValidationError, create_model

from agrag_lab.errors import AgragError, ServiceError
from agrag_lab.evidence.tools import TOOLS, Hints, ToolSpec, describe_validation_error
from agrag_lab.mcp.http_guard import HttpGuard, TransportSessions, transport_security
from agrag_lab.mcp.identity import INSTRUCTIONS, NAME, TITLE, server_version
from agrag_lab.mcp.session_store import SessionStore, binding
from agrag_lab.mcp.sessions import SessionRegistry, UnknownSessionError

if TYPE_CHECKING:
    from agrag_lab.evidence.scope import Scope
    from agrag_lab.evidence.session import EvidenceSession
    from agrag_lab.graph import Graph

__all__ = ["INSTRUCTIONS", "EvidenceServer", "SessionHandle", "SessionInfo", "server_tools"]

log = logging.getLogger(__name__)

Transport = Literal["stdio", "http"]
_T = TypeVar("_T")

SessionHandle = Annotated[
    str | None,
    Field(
        max_length=100,
        description="The evidence session handle returned by open_session or an earlier fetch_evidence; "
        "omit it to use this connection's default session (stdio, legacy HTTP sessions).",
    ),
]

_SESSION_NOTE = (
    " Evidence session: omit `session` over stdio or a legacy HTTP session (the connection has one); "
    "otherwise pass the handle that open_session or fetch_evidence returned."
)
_OPEN_DESCRIPTION = (
    "Start a new, empty evidence session and return its handle. The session remembers the ids you fetch "
    "(pass the handle as `session` to fetch_evidence, check_citations and render_citations); a citation "
    "is valid only if fetched in the same session. Use one per task, or share one between agents that "
    "should share what they read. A session is forgotten after a time unused, and a client that opens more "
    "than a bound loses its own least recently used (both are in the answer)."
)
_SCOPE_WORDS = ("scope", "document", "where", "filter")


class SessionInfo(BaseModel):
    """A new evidence session."""

    session: str = Field(description="The handle to pass as `session` to fetch, check and render.")
    idle_timeout_seconds: float = Field(description="The session is forgotten after this long unused.")
    sessions_per_client: int = Field(
        description="Most sessions one client keeps; opening more forgets its least recently used."
    )
    scope_restricted: bool = Field(description="Whether the server's scope names documents or a predicate.")


def _json_result(data: dict[str, Any]) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(data, ensure_ascii=False))],
        structured_content=data,
    )


def _annotations(hints: Hints) -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=hints.read_only, destructive_hint=hints.destructive,
        idempotent_hint=hints.idempotent, open_world_hint=hints.open_world,
    )


def _output_model(spec: ToolSpec) -> type[BaseModel]:
    """The output schema of ``spec``: its result's fields, after ``session`` when it uses one."""
    hints = typing.get_type_hints(spec.result)
    fields: dict[str, Any] = {}
    if spec.memory != "none":
        fields["session"] = (str, Field(description="The evidence session these results belong to."))
    for f in dataclasses.fields(spec.result):
        fields[f.name] = (hints[f.name], ...)
    return create_model(spec.result.__name__, __doc__=spec.result.__doc__, **fields)


class _StrictTool(Tool):
    """A tool that refuses undeclared arguments and words validation errors per field."""

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        known = set(self.parameters.get("properties", {}))
        extra = sorted(set(arguments) - known)
        if extra:
            hint = ""
            if any(word in name.lower() for name in extra for word in _SCOPE_WORDS):
                hint = " The scope is fixed when the server starts; no argument can change it."
            takes = ", ".join(sorted(known)) or "no arguments"
            raise ToolError(
                f"invalid arguments for {self.name}: unexpected argument(s) "
                f"{', '.join(repr(e) for e in extra)}; it takes {takes}.{hint}"
            )
        try:
            return await super().run(arguments, context, convert_result=convert_result)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(
                    f"invalid arguments for {self.name}: {describe_validation_error(exc.__cause__)}"
                ) from exc.__cause__
            raise


def _spec_tool(spec: ToolSpec, owner: Callable[[], EvidenceServer]) -> Tool:
    """The MCP tool of one registry entry, run by the server ``owner()`` returns."""
    extra: dict[str, Any] = {"session": (SessionHandle, None)} if spec.memory != "none" else {}
    bases: tuple[type[BaseModel], ...] = (spec.arguments, ArgModelBase)
    arguments = cast("type[ArgModelBase]", create_model(f"{spec.name}Arguments", __base__=bases, **extra))

    async def call(ctx: Context[Any, Any], **values: Any) -> CallToolResult:
        server = owner()
        handle: str | None = values.pop("session", None)
        args = spec.arguments.model_construct(**values)  # validated by `arguments`
        if spec.memory == "none":
            data = await server._call(spec.run, server.reader, args)
            return _json_result(data)
        handle, session = server._session(ctx, handle, create=spec.memory == "writes")
        data = await server._call(spec.run, session, args)
        if spec.memory == "writes":
            server.sessions.save(handle, session)
        return _json_result({"session": handle, **data})

    description = spec.description + (_SESSION_NOTE if spec.memory != "none" else "")
    return _StrictTool(
        fn=call,
        name=spec.name,
        title=None,
        description=description,
        parameters=arguments.model_json_schema(by_alias=True),
        fn_metadata=FuncMetadata(arg_model=arguments, output_model=_output_model(spec)),
        is_async=True,
        context_kwarg="ctx",
        annotations=_annotations(spec.hints),
    )


def _open_session_tool(owner: Callable[[], EvidenceServer]) -> Tool:
    """``open_session``, the one tool of the server itself."""

    async def open_session(ctx: Context[Any, Any]) -> Annotated[CallToolResult, SessionInfo]:
        server = owner()
        handle, _ = server.sessions.open(server._client(ctx)[0])
        info = SessionInfo(
            session=handle,
            idle_timeout_seconds=server.sessions.idle_timeout,
            sessions_per_client=server.sessions.per_client,
            scope_restricted=not server.reader.resolved.unrestricted,
        )
        return _json_result(info.model_dump(mode="json"))

    tool = _StrictTool.from_function(
        open_session, name="open_session", description=_OPEN_DESCRIPTION, annotations=_annotations(Hints(read_only=False))
    )
    tool.parameters["additionalProperties"] = False  # advertise what _StrictTool enforces
    return tool


def _not_open() -> EvidenceServer:
    raise ToolError("the index is not open yet")


def server_tools(owner: Callable[[], EvidenceServer] = _not_open) -> list[Tool]:
    """The tools an :class:`EvidenceServer` serves: one per registry entry, then ``open_session``.

    What they list (names, schemas, descriptions) depends on no index, so a
    server can answer ``tools/list`` while its index opens
    (:class:`~agrag_lab.mcp.front.DeferredServer`); ``owner`` returns the
    server that runs them (by default none: a call is refused).
    """
    return [*(_spec_tool(spec, owner) for spec in TOOLS), _open_session_tool(owner)]


class EvidenceServer:
    """An MCP server over one index, its scope fixed at construction.

    Parameters
    ----------
    graph : Graph
        The index (opened read-only by the CLI).
    scope : Scope, optional
        What every client may read; default everything. Fixed now, and resolved into documents again
        whenever another process changes the index (a new document the rule names becomes readable).
    transport : {"stdio", "http"}
        How clients connect; over stdio the one client has a default session.
    max_sessions : int
        Most evidence sessions kept at once (past it the client holding the most loses its oldest).
    sessions_per_client : int
        Most evidence sessions one client keeps (see :mod:`agrag_lab.mcp.sessions`).
    idle_timeout : float
        Seconds after which an unused evidence session is forgotten.
    workers : int
        Threads that run evidence calls at once (the index is shared).
    session_store : str or PathLike, optional
        The SQLite file where evidence sessions outlive this process
        (:mod:`agrag_lab.mcp.session_store`; ``agrag-lab mcp`` uses the user's
        state directory); default: sessions live as long as this server.

    Attributes
    ----------
    mcp : MCPServer
        The SDK server, with the tools registered.
    sessions : SessionRegistry
        The evidence sessions of the clients.
    reader : EvidenceSession
        The session that runs the tools that use no fetch memory.

    See :mod:`agrag_lab.mcp` for an in-process example.
    """

    def __init__(
        self,
        graph: Graph,
        scope: Scope | None = None,
        *,
        transport: Transport = "stdio",
        max_sessions: int = 256,
        sessions_per_client: int = 32,
        idle_timeout: float = 3600.0,
        workers: int = 2,
        session_store: str | os.PathLike[str] | None = None,
    ) -> None:

        self.graph = graph
        self.transport = transport
        template = graph.evidence(scope)
        # the rule, not the documents it names now: every session resolves it again when the index changes
        self.scope: Scope = template.scope
        self.reader = template
        store = None
        if session_store is not None:
            readable = None if template.resolved.unrestricted else template.resolved.readable
            store = SessionStore(session_store, binding(graph.path, readable))
        self.sessions = SessionRegistry(
            lambda: self.graph.evidence(self.scope), max_sessions=max_sessions,
            per_client=sessions_per_client, idle_timeout=idle_timeout, store=store,
        )
        self._limiter = anyio.CapacityLimiter(max(1, workers))
        self._tool_list = server_tools(lambda: self)
        self.mcp: MCPServer[Any] = MCPServer(
            NAME,
            title=TITLE,
            instructions=INSTRUCTIONS,
            version=server_version(),
            tools=list(self._tool_list),
            middleware=[self.check_tool_name],
            log_level="WARNING",
        )

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The names of the tools served."""
        return tuple(t.name for t in self._tool_list)

    # -- plumbing ----------------------------------------------------------------------------
    async def check_tool_name(self, ctx: Any, call_next: Callable[[Any], Any]) -> Any:
        """Middleware: an unknown tool name is a protocol error (-32602) that lists the tools."""
        if ctx.method == "tools/call" and isinstance(ctx.params, Mapping):
            name = ctx.params.get("name")
            if isinstance(name, str) and name not in self.tool_names:
                shown = name if len(name) <= 80 else name[:80] + "..."
                raise MCPError(
                    code=INVALID_PARAMS,
                    message=f"Unknown tool: {shown!r}. This server's tools are {', '.join(self.tool_names)}.",
                )
        return await call_next(ctx)

    async def _call(self, fn: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        """Run an evidence function on a worker thread; its AgragError becomes a tool error."""
        try:
            return await anyio.to_thread.run_sync(partial(fn, *args, **kwargs), limiter=self._limiter)
        except AgragError as exc:
            raise ToolError(str(exc)) from exc

    def _client(self, ctx: Context[Any, Any]) -> tuple[str, bool]:
        """Who is calling, and whether the transport gives that client a default session.

        stdio: the one client of the process. HTTP: the legacy ``Mcp-Session-Id``
        (a default session too), else the TCP connection (``host:port``; the SDK
        client keeps one connection open while it is). In-process: one client.
        """
        if self.transport == "stdio":
            return "stdio", True
        from starlette.requests import Request

        try:
            request = ctx.request_context.request
        except ValueError:  # no request (called directly)
            return "in-process", False
        if not isinstance(request, Request):  # an in-process client's call carries no HTTP request
            return "in-process", False
        session_id = request.headers.get("mcp-session-id")
        if session_id:
            return f"http:{session_id}", True
        peer = request.client
        if peer is not None:
            return f"tcp:{peer.host}:{peer.port}", False
        return "in-process", False

    def _session(self, ctx: Context[Any, Any], handle: str | None, *, create: bool) -> tuple[str, EvidenceSession]:
        if handle is not None:
            try:
                return handle, self.sessions.get(handle)
            except UnknownSessionError as exc:
                raise ToolError(str(exc)) from exc
        client, has_default = self._client(ctx)
        if has_default:
            return self.sessions.for_connection(client)
        if create:
            return self.sessions.open(client)
        raise ToolError(
            "no evidence session: this transport keeps no connection state, so pass `session` (the handle "
            "returned by open_session or fetch_evidence) to say whose fetches to check against"
        )

    # -- serving --------------------------------------------------------------------------------
    def warm_up(self) -> None:
        """Load the embedder, the keyword indexes and the graph before the first client."""
        started = time.perf_counter()
        try:
            self.reader.discover("warm up", mode="hybrid", limit=1)
            self.reader.find_entities("warm up", limit=1)
        except AgragError as exc:  # an empty index still serves
            log.warning("warm-up search failed: %s", exc)
        log.info("warmed up in %.1f s", time.perf_counter() - started)

    def run_stdio(self) -> None:
        """Serve one client over stdin/stdout until it disconnects (or closes the pipe)."""
        try:
            anyio.run(self.mcp.run_stdio_async)
        except* BrokenPipeError:  # the client went away while an answer was written: nothing to tell it
            log.info("the stdio client closed the connection")

    async def serve_http(
        self, host: str = "127.0.0.1", port: int = 8000, *, ready: Callable[[str], None] | None = None,
        token: str | None = None, allowed_hosts: Sequence[str] = (), allowed_origins: Sequence[str] = (),
        transport_idle_timeout: float = 600.0,
    ) -> None:
        """Serve streamable HTTP at ``http://HOST:PORT/mcp`` (port 0 picks a free one).

        ``ready`` is called with the URL once the socket is bound. Every request
        passes :mod:`agrag_lab.mcp.http_guard`: ``token`` (when set) as a bearer
        token, ``Host`` and ``Origin`` against the bind address plus
        ``allowed_hosts`` / ``allowed_origins``, the JSON-RPC shape, and the
        transport-session bounds (the evidence sessions' ``sessions_per_client``
        and ``max_sessions``; idle ones end after ``transport_idle_timeout`` s).

        Raises
        ------
        ServiceError
            The address cannot be bound (the port is taken, or the host is not an address of this machine).
        """
        import uvicorn

        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            sock.close()
            fix = ("another process listens on that port: pass another --port, or --port 0 for a free one"
                   if exc.errno == errno.EADDRINUSE else
                   "check --host (an address of this machine, e.g. 127.0.0.1 or ::1) and --port")
            raise ServiceError(f"cannot serve MCP on {host}:{port} ({exc.strerror or exc}); {fix}") from exc
        bound = sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        url = f"http://{shown}:{bound}/mcp"
        app = self.mcp.streamable_http_app(
            host=host, transport_security=transport_security(host, allowed_hosts, allowed_origins),
            max_sessions=None, session_idle_timeout=transport_idle_timeout,  # bounded per client by the guard
        )
        bounds = TransportSessions(
            self.mcp.session_manager, per_client=self.sessions.per_client, total=self.sessions.max_sessions
        )
        guarded = HttpGuard(app, token=token, sessions=bounds)
        config = uvicorn.Config(guarded, log_config=None, access_log=False, log_level="warning", lifespan="on")
        server = uvicorn.Server(config)
        if ready is not None:
            ready(url)
        await server.serve(sockets=[sock])

