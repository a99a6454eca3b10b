"""The MCP server: every evidence tool of the registry, over stdio or streamable HTTP.

``agrag-lab mcp --index DIR [--scope-documents ID ...] [--transport stdio|http]``
(or ``python -m agrag_lab.mcp``) serves, with the official ``mcp`` SDK 2.x
(:class:`mcp.server.mcpserver.MCPServer`), one tool per entry of
:data:`agrag_lab.evidence.tools.TOOLS` (search_evidence, fetch_evidence,
navigate, find_entities, explore, check_citations, render_citations, search,
list_documents, ...) plus ``open_session``, which hands out evidence session
handles.

Modules
    :mod:`~agrag_lab.mcp.server` (:class:`EvidenceServer`: the loop over the
    registry, the transports), :mod:`~agrag_lab.mcp.sessions` (the evidence
    sessions of the clients) and :mod:`~agrag_lab.mcp.cli` (the sub-command).

Scope
    Fixed when the server starts (``--scope-documents``, ``--scope-where``) and
    resolved into document ids at the index's generation (again after another
    process's ingest); no tool argument can change it (a tool
    refuses arguments it does not declare). Scope is enforced by the evidence
    functions themselves (:mod:`agrag_lab.evidence`): the server only chooses
    which session runs a call. An id outside the scope is reported exactly like
    an id that does not exist.

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
    connections (their ``Mcp-Session-Id``). Which tools take ``session``
    follows from the registry: those whose ``memory`` is ``writes``
    (fetch_evidence) or ``reads`` (check_citations, render_citations).

Session bounds (:mod:`~agrag_lab.mcp.sessions`)
    No client can evict another's sessions. Each session is owned by the client
    that opened it: the stdio process, a legacy ``Mcp-Session-Id``, else the
    HTTP connection (``host:port``). One client keeps at most
    ``--sessions-per-client`` (32); opening more forgets its *own* least
    recently used. Past ``--max-sessions`` (256) in all, the client holding the
    most loses its least recently used. A session unused for
    ``--session-idle-timeout`` seconds (3600) is forgotten. A forgotten handle
    says which bound forgot it. Without authentication a client that opens
    many HTTP connections counts as many clients; serve HTTP on loopback (the
    default) or behind a proxy that authenticates.

Errors
    An unknown tool is a JSON-RPC error (``-32602``, the spec's code for it) that
    lists the tools. Invalid arguments (wrong types, blank queries, limits
    beyond the maximum, undeclared arguments) and failed calls (a malformed id,
    an unknown entity) are tool errors (``isError``) whose text says what was
    wrong, so a model can correct itself; the server keeps serving. In a batch
    fetch a bad id gives an error *entry* and the other ids are still read.

Adding a tool
    Write its evidence function (``function(session, ...)`` returning a frozen
    result dataclass with ``to_dict()``) and add one
    :class:`~agrag_lab.evidence.tools.ToolSpec` entry to
    :data:`agrag_lab.evidence.tools.TOOLS` (name, argument model, description,
    hints, memory, agent use, function, result type). The server, its input
    and output schemas, the agent's OpenAI ``tools`` entries and ``call_tool``
    follow from the entry; nothing here changes. Measured on ``list_documents``:
    its commit touched ``evidence/tools.py`` (19 lines: the argument model and
    the entry) and ``evidence/session.py`` (a one-line method binding) besides
    the function (``evidence/listing.py``), its result types, one storage query
    and the tests; 0 lines in ``agrag_lab/mcp`` and ``agrag_lab/agent``. In the
    layout before the registry, ``explore`` was wired in 12 places across 4
    files (about 65 lines besides the function: the session method, the module
    wrapper, the argument model, ``ARGUMENT_MODELS``, ``AGENT_TOOLS``,
    ``DESCRIPTIONS``, a ``result_ids`` branch, an ``execute`` branch, the
    server method, its ``_tools`` row, imports and this docstring's table),
    with its signature written five times.

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

from typing import TYPE_CHECKING, Any

from agrag_lab.mcp.cli import main, register
from agrag_lab.mcp.sessions import SessionRegistry, UnknownSessionError

if TYPE_CHECKING:
    from agrag_lab.evidence.scope import scope_from_args
    from agrag_lab.mcp.server import EvidenceServer

__all__ = ["EvidenceServer", "SessionRegistry", "UnknownSessionError", "main", "register", "scope_from_args"]


def __getattr__(name: str) -> Any:
    """``EvidenceServer`` and ``scope_from_args`` are imported on first use (the stdio server starts without them)."""
    if name == "EvidenceServer":
        from agrag_lab.mcp.server import EvidenceServer

        return EvidenceServer
    if name == "scope_from_args":
        from agrag_lab.evidence.scope import scope_from_args

        return scope_from_args
    raise AttributeError(f"module 'agrag_lab.mcp' has no attribute {name!r}")
