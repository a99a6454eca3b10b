"""The MCP server: the evidence functions as tools, over stdio or streamable HTTP.

``agrag-lab mcp --index DIR [--scope-documents ID ...] [--transport stdio|http]``
serves these tools (official ``mcp`` SDK 2.x, :class:`mcp.server.mcpserver.MCPServer`):

==================  =====================================================================
search_evidence     discover: keyword, vector or hybrid (RRF, k=60) search of passages
fetch_evidence      the exact text behind evidence ids; remembered for citation checks
navigate            parent, children, siblings, prev, next, table cells around
find_entities       entities by name and embedding, with supporting passages
explore             relations outward; each edge an ``assertion`` or a ``path``
check_citations     valid only if fetched in this evidence session
render_citations    numbered references and a Sources list
search              a named recipe over the knowledge graph, each result explained
open_session        a new evidence session handle (for clients without a connection)
==================  =====================================================================

Scope
    Fixed when the server starts (``--scope-documents``, ``--scope-where``) and
    resolved once into document ids; no tool argument can change it (a tool
    refuses arguments it does not declare). An id outside the scope is reported
    exactly like an id that does not exist.

Evidence sessions
    ``check_citations`` must know what *this* client fetched, so fetches are
    remembered per evidence session. Protocol revision 2026-07-28, which the SDK's
    client speaks by default, has no connection state (no ``initialize``, no
    ``Mcp-Session-Id``: every request stands alone), so sessions follow the
    explicit-handle pattern of SEP-2567: ``open_session`` (or a first
    ``fetch_evidence`` without one) mints an unguessable handle that the client
    passes as ``session``. Where the transport does identify a client, that
    identity picks a default session and the handle may be omitted: over stdio
    (one client per server process) and on legacy (2025-11-25) streamable HTTP
    connections (their ``Mcp-Session-Id``). Sessions idle for an hour are
    forgotten, and at most ``max_sessions`` are kept (least recently used go
    first).

Errors
    An unknown tool is a JSON-RPC error (``-32602``, the spec's code for it) that
    lists the tools. Invalid arguments (wrong types, blank queries, limits
    beyond the maximum, undeclared arguments) and failed calls (a malformed id,
    an unknown entity) are tool errors (``isError``) whose text says what was
    wrong, so a model can correct itself; the server keeps serving. In a batch
    fetch a bad id gives an error *entry* and the other ids are still read.

Logs go to stderr only: on stdio, stdout is the protocol channel. HTTP binds
127.0.0.1 unless ``--host`` says otherwise.

Examples
--------
In-process, as the tests and notebooks use it::

    from mcp import Client
    server = EvidenceServer(Graph.open("index", read_only=True))
    async with Client(server.mcp) as client:
        hits = await client.call_tool("search_evidence", {"query": "Note G"})
"""

from __future__ import annotations

import argparse
import json
import logging
import secrets
import socket
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from contextlib import redirect_stdout
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field, ValidationError

from agrag_lab.agent.tools import (
    DESCRIPTIONS,
    Answer,
    Depth,
    EntityRefArg,
    EvidenceIdArg,
    EvidenceIds,
    ExploreDirection,
    ExploreLimit,
    Limit,
    NavigateTo,
    Query,
    RelationTypes,
    SearchMode,
    SessionHandle,
    describe_validation_error,
)
from agrag_lab.errors import AgragError
from agrag_lab.evidence.results import (
    CitationCheck,
    DiscoverResult,
    EntitiesResult,
    ExploreResult,
    FetchedText,
    FetchError,
    Navigation,
    Reference,
)
from agrag_lab.evidence.scope import Scalar, Scope
from agrag_lab.evidence.session import EvidenceSession

if TYPE_CHECKING:
    from agrag_lab.graph import Graph
    from agrag_lab.retrieval.engine import SearchEngine
    from agrag_lab.retrieval.run import SearchResult

__all__ = ["EvidenceServer", "SessionRegistry", "UnknownSessionError", "main", "register"]

log = logging.getLogger(__name__)

Transport = Literal["stdio", "http"]
_T = TypeVar("_T")

RecipeName = Annotated[
    Literal["ENTITY", "CHUNK", "HYBRID", "HYBRID_RERANKED", "GRAPH_EXPAND", "THEMATIC"],
    Field(description="A built-in recipe: ENTITY, CHUNK, HYBRID, HYBRID_RERANKED, GRAPH_EXPAND or THEMATIC."),
]
RecipeLimit = Annotated[
    int | None, Field(ge=1, le=50, description="Most results (1-50); default: the recipe's own limit.")
]

_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
_REMEMBERS = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

INSTRUCTIONS = (
    "Evidence retrieval over one document index, within a scope fixed when the server started. "
    "Find passages with search_evidence (or find_entities / explore / search), read them exactly with "
    "fetch_evidence, cite evidence ids inline (DOC@VERSION#cN), and verify with check_citations: a "
    "citation is valid only if it was fetched in your evidence session. Without a connection (HTTP, "
    "protocol 2026-07-28) pass the session handle from open_session or fetch_evidence as `session`."
)


# -- structured outputs ------------------------------------------------------------------


class SessionInfo(BaseModel):
    """A new evidence session."""

    session: str = Field(description="The handle to pass as `session` to fetch, check and render.")
    idle_timeout_seconds: float = Field(description="The session is forgotten after this long unused.")
    scope_restricted: bool = Field(description="Whether the server's scope names documents or a predicate.")


class FetchOutput(BaseModel):
    """The texts (or errors) of a fetch, and the session that remembers them."""

    session: str = Field(description="The evidence session that now remembers these ids.")
    items: list[FetchedText | FetchError]


class CheckOutput(BaseModel):
    """Every citation checked, in order of appearance."""

    session: str
    all_valid: bool = Field(description="Whether every citation is valid (true when there are none).")
    checks: list[CitationCheck]


class RenderOutput(BaseModel):
    """An answer with numbered references and a Sources list."""

    session: str
    text: str = Field(description="body followed by the Sources list.")
    body: str = Field(description="The answer with valid ids replaced by [n] and invalid ones by [?].")
    references: list[Reference]
    checks: list[CitationCheck]


class RecipeResult(BaseModel):
    """One ranked result of a recipe search, with why it ranks there."""

    rank: int
    id: str
    kind: str = Field(description="entity, chunk or community.")
    score: float
    title: str
    text: str = Field(description="The result's text, cut at 600 characters.")
    document_id: str | None
    heading_path: list[str]
    label: str | None
    passages: list[str] = Field(description="Evidence ids of the passages behind the result (fetch to cite).")
    explanation: str = Field(description="Which methods found it at which rank, and the fusion terms.")


class MethodStatus(BaseModel):
    """How one search method of the recipe ran."""

    name: str
    status: str
    seconds: float
    error: str | None


class RecipeSearchOutput(BaseModel):
    """The results of one recipe run, explained."""

    query: str
    recipe: str
    seconds: float
    results: list[RecipeResult]
    methods: list[MethodStatus]


def _json_result(data: dict[str, Any]) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(data, ensure_ascii=False))],
        structured_content=data,
    )


# -- evidence sessions ---------------------------------------------------------------------


class UnknownSessionError(AgragError, KeyError):
    """A session handle names no live evidence session (never minted, or forgotten)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


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
    agrag_lab.mcp_server.UnknownSessionError: unknown or expired evidence session handle; call open_session (or fetch_evidence without `session`) for a new one, and fetch again what you will cite
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


# -- tools ------------------------------------------------------------------------------------

_SCOPE_WORDS = ("scope", "document", "where", "filter")


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


class EvidenceServer:
    """An MCP server over one index, its scope fixed at construction.

    Parameters
    ----------
    graph : Graph
        The index (opened read-only by the CLI).
    scope : Scope, optional
        What every client may read; default everything. Resolved once, now.
    transport : {"stdio", "http"}
        How clients connect; over stdio the one client has a default session.
    max_sessions : int
        Most evidence sessions kept at once.
    idle_timeout : float
        Seconds after which an unused evidence session is forgotten.
    workers : int
        Threads that run evidence calls at once (the index is shared).

    Attributes
    ----------
    mcp : MCPServer
        The SDK server, with the tools registered.
    sessions : SessionRegistry
        The evidence sessions of the clients.
    """

    def __init__(
        self,
        graph: Graph,
        scope: Scope | None = None,
        *,
        transport: Transport = "stdio",
        max_sessions: int = 256,
        idle_timeout: float = 3600.0,
        workers: int = 2,
    ) -> None:
        self.graph = graph
        self.transport = transport
        template = graph.evidence(scope)
        self.scope: Scope = (
            Scope() if template.resolved.unrestricted else Scope(document_ids=template.resolved.readable)
        )
        self.reader = template if template.resolved.unrestricted else graph.evidence(self.scope)
        self.sessions = SessionRegistry(
            lambda: self.graph.evidence(self.scope), max_sessions=max_sessions, idle_timeout=idle_timeout
        )
        self._limiter = anyio.CapacityLimiter(max(1, workers))
        self._tool_list = self._tools()
        self._engine_lock = threading.Lock()
        self._search_engine: SearchEngine | None = None
        self.mcp: MCPServer[Any] = MCPServer(
            "agrag-lab",
            title="agrag_lab evidence server",
            instructions=INSTRUCTIONS,
            version=_version(),
            tools=list(self._tool_list),
            middleware=[self._unknown_tool],
            log_level="WARNING",
        )

    # -- plumbing ----------------------------------------------------------------------------
    def _tools(self) -> list[Tool]:
        specs: list[tuple[Callable[..., Any], str, str, ToolAnnotations]] = [
            (self.search_evidence, "search_evidence", DESCRIPTIONS["search_evidence"], _READ_ONLY),
            (self.fetch_evidence, "fetch_evidence", DESCRIPTIONS["fetch_evidence"] + _SESSION_NOTE, _REMEMBERS),
            (self.navigate, "navigate", DESCRIPTIONS["navigate"], _READ_ONLY),
            (self.find_entities, "find_entities", DESCRIPTIONS["find_entities"], _READ_ONLY),
            (self.explore, "explore", DESCRIPTIONS["explore"], _READ_ONLY),
            (self.check_citations, "check_citations", DESCRIPTIONS["check_citations"] + _SESSION_NOTE, _READ_ONLY),
            (self.render_citations, "render_citations", DESCRIPTIONS["render_citations"] + _SESSION_NOTE, _READ_ONLY),
            (self.search, "search", _SEARCH_DESCRIPTION, _READ_ONLY),
            (self.open_session, "open_session", _OPEN_DESCRIPTION, _REMEMBERS),
        ]
        tools = []
        for fn, name, description, hints in specs:
            tool = _StrictTool.from_function(fn, name=name, description=description, annotations=hints)
            tool.parameters["additionalProperties"] = False  # advertise what _StrictTool enforces
            tools.append(tool)
        return tools

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The names of the tools served."""
        return tuple(t.name for t in self._tool_list)

    async def _unknown_tool(self, ctx: Any, call_next: Callable[[Any], Any]) -> Any:
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

    def _connection_key(self, ctx: Context[Any, Any]) -> str | None:
        if self.transport == "stdio":
            return "stdio"
        try:
            headers = ctx.headers
        except ValueError:  # no request (called directly)
            return None
        session_id = headers.get("mcp-session-id") if headers else None
        return f"http:{session_id}" if session_id else None

    def _session(self, ctx: Context[Any, Any], handle: str | None, *, create: bool) -> tuple[str, EvidenceSession]:
        if handle is not None:
            try:
                return handle, self.sessions.get(handle)
            except UnknownSessionError as exc:
                raise ToolError(str(exc)) from exc
        key = self._connection_key(ctx)
        if key is not None:
            return self.sessions.for_connection(key)
        if create:
            return self.sessions.open()
        raise ToolError(
            "no evidence session: this transport keeps no connection state, so pass `session` (the handle "
            "returned by open_session or fetch_evidence) to say whose fetches to check against"
        )

    # -- the tools -----------------------------------------------------------------------------
    async def search_evidence(
        self, query: Query, mode: SearchMode = "hybrid", limit: Limit = 10
    ) -> Annotated[CallToolResult, DiscoverResult]:
        result = await self._call(self.reader.discover, query, mode=mode, limit=limit)
        return _json_result(result.to_dict())

    async def fetch_evidence(
        self, ids: EvidenceIds, ctx: Context[Any, Any], session: SessionHandle = None
    ) -> Annotated[CallToolResult, FetchOutput]:
        handle, evidence = self._session(ctx, session, create=True)
        result = await self._call(evidence.fetch, ids)
        return _json_result({"session": handle, **result.to_dict()})

    async def navigate(self, id: EvidenceIdArg, to: NavigateTo) -> Annotated[CallToolResult, Navigation]:
        result = await self._call(self.reader.navigate, id, to)
        return _json_result(result.to_dict())

    async def find_entities(self, query: Query, limit: Limit = 10) -> Annotated[CallToolResult, EntitiesResult]:
        result = await self._call(self.reader.find_entities, query, limit=limit)
        return _json_result(result.to_dict())

    async def explore(
        self,
        entity: EntityRefArg,
        depth: Depth = 1,
        relation_types: RelationTypes = None,
        limit: ExploreLimit = 20,
        direction: ExploreDirection = "both",
    ) -> Annotated[CallToolResult, ExploreResult]:
        result = await self._call(
            self.reader.explore, entity, depth=depth, relation_types=relation_types, limit=limit, direction=direction
        )
        return _json_result(result.to_dict())

    async def check_citations(
        self,
        ctx: Context[Any, Any],
        answer: Annotated[Answer | None, Field(description="An answer text citing evidence ids inline.")] = None,
        ids: Annotated[EvidenceIds | None, Field(description="Or: the evidence ids to check.")] = None,
        session: SessionHandle = None,
    ) -> Annotated[CallToolResult, CheckOutput]:
        if (answer is None) == (ids is None):
            raise ToolError(
                "invalid arguments for check_citations: give exactly one of answer (a text citing ids) "
                "or ids (a list of evidence ids)"
            )
        handle, evidence = self._session(ctx, session, create=False)
        target: str | list[str] = answer if answer is not None else list(ids or ())
        report = await self._call(evidence.check_citations, target)
        return _json_result({"session": handle, "all_valid": report.all_valid, **report.to_dict()})

    async def render_citations(
        self, answer: Answer, ctx: Context[Any, Any], session: SessionHandle = None
    ) -> Annotated[CallToolResult, RenderOutput]:
        handle, evidence = self._session(ctx, session, create=False)
        rendered = await self._call(evidence.render_citations, answer)
        return _json_result({"session": handle, **rendered.to_dict()})

    async def search(
        self, query: Query, recipe: RecipeName = "HYBRID", limit: RecipeLimit = None
    ) -> Annotated[CallToolResult, RecipeSearchOutput]:
        data = await self._call(self._recipe_search, query, recipe, limit)
        return _json_result(data)

    async def open_session(self) -> Annotated[CallToolResult, SessionInfo]:
        handle, _ = self.sessions.open()
        info = SessionInfo(
            session=handle,
            idle_timeout_seconds=self.sessions.idle_timeout,
            scope_restricted=not self.reader.resolved.unrestricted,
        )
        return _json_result(info.model_dump(mode="json"))

    # -- recipe search ---------------------------------------------------------------------
    def _engine(self) -> SearchEngine:
        with self._engine_lock:
            if self._search_engine is None:
                self._search_engine = self.graph.engine()
            return self._search_engine

    def _recipe_search(self, query: str, name: str, limit: int | None) -> dict[str, Any]:
        from agrag_lab import recipes
        from agrag_lab.retrieval.filters import SearchFilters

        recipe = recipes.get(name)
        if limit is not None:
            recipe = recipe.replace(limit=limit)
        resolved = self.reader.resolved
        started = time.perf_counter()
        if not resolved.unrestricted and not resolved.searchable:
            return {"query": query, "recipe": recipe.name, "seconds": 0.0, "results": [], "methods": []}
        filters = None if resolved.unrestricted else SearchFilters(document_ids=resolved.searchable)
        run = self._engine().run(query, recipe, filters=filters)
        results = []
        for i, r in enumerate(run.results):
            shown = self._scoped_view(r)
            if shown is None:
                continue
            title, text, passages = shown
            explanation = run.explain(i)
            if title != r.title:
                explanation = explanation.replace(repr(r.title), repr(title), 1)
            results.append(
                RecipeResult(
                    rank=r.rank, id=r.id, kind=r.kind, score=r.score, title=title, text=text[:600],
                    document_id=r.document_id, heading_path=list(r.heading_path), label=r.label,
                    passages=passages, explanation=explanation,
                ).model_dump(mode="json")
            )
        methods = [
            MethodStatus(name=m.name, status=m.status, seconds=m.seconds, error=m.error).model_dump(mode="json")
            for m in run.trace.methods
        ]
        seconds = time.perf_counter() - started
        return {"query": query, "recipe": recipe.name, "seconds": seconds, "results": results, "methods": methods}

    def _scoped_view(self, result: SearchResult) -> tuple[str, str, list[str]] | None:
        """Title, text and passages of a result as the scope shows them (``None``: not visible).

        The engine describes entities and community reports from the whole graph;
        under a restricted scope they are shown as the scoped graph sees them
        (aliases, description and passages from documents in scope only).
        """
        resolved = self.reader.resolved
        if resolved.unrestricted:
            return result.title, result.text, list(result.passages())
        from agrag_lab.kg.records import entity_text
        from agrag_lab.kg.store import GraphScope

        scope = GraphScope(document_ids=resolved.searchable)
        store = self.graph.graph_store
        if result.kind == "entity":
            entity = store.entity(result.id, scope)
            if entity is None:
                return None
            text = entity_text(entity.name, entity.aliases, entity.description)
            return entity.name, text, list(entity.chunk_ids)
        if result.kind == "community":
            report = store.report(result.id, scope)
            if report is None:
                return None
            return report.title, report.summary, list(report.chunk_ids)
        if result.document_id is None or result.document_id not in resolved.searchable:
            return None
        return result.title, result.text, list(result.passages())

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
        """Serve one client over stdin/stdout until it disconnects."""
        anyio.run(self.mcp.run_stdio_async)

    async def serve_http(self, host: str = "127.0.0.1", port: int = 8000, *, ready: Callable[[str], None] | None = None) -> None:
        """Serve streamable HTTP at ``http://HOST:PORT/mcp`` (port 0 picks a free one).

        ``ready`` is called with the URL once the socket is bound.
        """
        import uvicorn

        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        bound = sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        url = f"http://{shown}:{bound}/mcp"
        app = self.mcp.streamable_http_app(host=host)
        config = uvicorn.Config(app, log_config=None, access_log=False, log_level="warning", lifespan="on")
        server = uvicorn.Server(config)
        if ready is not None:
            ready(url)
        await server.serve(sockets=[sock])


_SESSION_NOTE = (
    " Evidence session: omit `session` over stdio or a legacy HTTP session (the connection has one); "
    "otherwise pass the handle that open_session or fetch_evidence returned."
)
_SEARCH_DESCRIPTION = (
    "Run a named retrieval recipe over the knowledge graph, within the scope: ENTITY, CHUNK, HYBRID, "
    "HYBRID_RERANKED (community reports, cross-encoder re-rank), GRAPH_EXPAND (graph walk, community "
    "reports) or THEMATIC (community reports). Returns ranked entities, chunks and community reports, "
    "each with its explanation: which methods found it at which rank, its Reciprocal Rank Fusion terms, "
    "graph-walk path or re-rank move, and the cut. passages lists the evidence ids behind a result; "
    "fetch them before citing."
)
_OPEN_DESCRIPTION = (
    "Start a new, empty evidence session and return its handle. The session remembers the ids you fetch "
    "(pass the handle as `session` to fetch_evidence, check_citations and render_citations); a citation "
    "is valid only if fetched in the same session. Use one per task, or share one between agents that "
    "should share what they read. Sessions are forgotten after an hour unused."
)


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("agrag_lab")
    except Exception:
        return "0"


# -- the command line ----------------------------------------------------------------------------


def _scalar(text: str) -> Scalar:
    """A ``--scope-where`` value: a JSON number or boolean, else the text itself.

    Examples
    --------
    >>> _scalar("1843"), _scalar("true"), _scalar("victorian")
    (1843, True, 'victorian')
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return text
    return value if isinstance(value, (int, float, bool)) else text


def scope_from_args(documents: Sequence[str] | None, where: Sequence[str] | None) -> Scope | None:
    """The server scope from ``--scope-documents`` and ``--scope-where KEY=VALUE`` values."""
    predicate: dict[str, Scalar] = {}
    for item in where or ():
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise argparse.ArgumentTypeError(f"--scope-where {item!r}: write KEY=VALUE, e.g. era=victorian")
        predicate[key] = _scalar(value)
    if documents is None and not predicate:
        return None
    return Scope(document_ids=frozenset(documents) if documents is not None else None, where=predicate or None)


def cmd_mcp(args: argparse.Namespace) -> int:
    """Run ``agrag-lab mcp``."""
    from agrag_lab.graph import Graph

    if args.verbose:
        logging.getLogger("agrag_lab").setLevel(logging.INFO)
    scope = scope_from_args(args.scope_documents, args.scope_where)
    if args.transport == "http" and args.host not in ("127.0.0.1", "localhost", "::1"):
        log.warning("serving on %s: the MCP server has no authentication; anyone who can reach it can read the scope", args.host)
    with redirect_stdout(sys.stderr):  # nothing may reach stdout before the protocol does
        graph = Graph.open(Path(args.index), read_only=True)
        server = EvidenceServer(
            graph, scope, transport=args.transport, max_sessions=args.max_sessions, workers=args.workers
        )
        server.warm_up()
    readable = len(server.reader.resolved.readable)
    print(f"agrag-lab mcp: {args.index}, {readable} readable document(s), transport {args.transport}", file=sys.stderr)
    try:
        if args.transport == "stdio":
            server.run_stdio()
        else:
            def ready(url: str) -> None:
                print(f"agrag-lab mcp: serving {url}", file=sys.stderr, flush=True)

            anyio.run(partial(server.serve_http, args.host, args.port, ready=ready))
    except KeyboardInterrupt:
        pass
    finally:
        graph.close()
    return 0


def register(subparsers: Any) -> None:
    """Add the ``mcp`` sub-command to the ``agrag-lab`` parser."""
    p = subparsers.add_parser(
        "mcp",
        help="serve the evidence functions as MCP tools (stdio or streamable HTTP)",
        description="Serve search_evidence, fetch_evidence, navigate, find_entities, explore, check_citations, "
        "render_citations, search and open_session over MCP, within a scope fixed now.",
    )
    p.add_argument("--index", required=True, help="index folder (opened read-only)")
    p.add_argument("--scope-documents", nargs="+", metavar="ID", help="only these documents are readable")
    p.add_argument("--scope-where", action="append", metavar="KEY=VALUE",
                   help="only documents whose metadata has KEY=VALUE (repeatable; all must match)")
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    p.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1, loopback only)")
    p.add_argument("--port", type=int, default=8000, help="HTTP port (0 picks a free one; the URL is logged)")
    p.add_argument("--max-sessions", type=int, default=256, help="most evidence sessions kept at once")
    p.add_argument("--workers", type=int, default=2, help="threads running evidence calls at once")
    p.set_defaults(func=cmd_mcp)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m agrag_lab.mcp_server ...`` (same options as ``agrag-lab mcp``)."""
    from agrag_lab.cli import main as cli_main

    return cli_main(["mcp", *(argv if argv is not None else sys.argv[1:])])


if __name__ == "__main__":
    raise SystemExit(main())
