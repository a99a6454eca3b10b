"""The stdio server that answers at once: the index is opened and warmed up behind it.

A client that spawns ``agrag-lab mcp`` waits for ``initialize`` only so long
(the MCP Inspector CLI: 15 s by default), and opening the index (Chroma, the
keyword indexes, the graph) and loading the embedding model take longer than
that on a busy machine. :class:`DeferredServer` is an SDK
:class:`~mcp.server.mcpserver.MCPServer` that imports nothing of the index
stack: it answers ``initialize`` as soon as Python and the SDK are loaded,
while a worker thread builds the :class:`~agrag_lab.mcp.server.EvidenceServer`
(its ``build`` function) and warms it up. ``tools/list`` waits until the
tools exist, ``tools/call`` until the warm-up is done; both are then served by
the evidence server, exactly as when it runs on its own. ``tools/list`` need
not wait for the index: given a ``describe`` function, a second worker makes
the tool list (it depends on no index: :func:`agrag_lab.mcp.server.server_tools`)
and ``tools/list`` answers with it as soon as it is made. If the build fails
(no index at that path, a bad ``--scope-where``), the reason goes to stderr
and every later request is answered with it.

This module is light on purpose: it imports the SDK and nothing of agrag_lab
but the error tree and the server's identity (:mod:`agrag_lab.mcp.identity`).
Measured in ``benchmarks/mcp_startup.py``.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR, CallToolResult
from mcp.types import Tool as MCPTool

from agrag_lab.mcp.identity import INSTRUCTIONS, NAME, TITLE, server_version

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context
    from mcp.server.mcpserver.tools import Tool
    from mcp.types import InputRequiredResult

    from agrag_lab.mcp.server import EvidenceServer

__all__ = ["INSTRUCTIONS", "NAME", "TITLE", "DeferredServer", "server_version"]

log = logging.getLogger("agrag_lab.mcp")


class DeferredServer(MCPServer[Any]):
    """An MCP server over stdio whose evidence server is built on a worker thread after start-up.

    Parameters
    ----------
    build : callable
        Opens the index and returns the :class:`EvidenceServer` (runs on a worker thread).
    on_ready : callable, optional
        Called with the evidence server once it is warmed up (e.g. to log what it serves).
    describe : callable, optional
        Returns the tools the evidence server will serve, without opening the index (runs on a
        worker thread beside ``build``); it raises when the build is bound to fail, and
        ``tools/list`` then waits for the build and answers with its reason. Without it,
        ``tools/list`` waits for the build.
    """

    def __init__(self, build: Callable[[], EvidenceServer],
                 on_ready: Callable[[EvidenceServer], None] | None = None,
                 describe: Callable[[], list[Tool]] | None = None) -> None:
        super().__init__(NAME, title=TITLE, instructions=INSTRUCTIONS, version=server_version(),
                         middleware=[self._gate], log_level="WARNING")
        self._build = build
        self._on_ready = on_ready
        self._describe = describe
        self._server: EvidenceServer | None = None
        self._failure: str | None = None
        self._listed: list[MCPTool] | None = None
        self._built: anyio.Event | None = None
        self._warm: anyio.Event | None = None
        self._described: anyio.Event | None = None

    # -- the start-up --------------------------------------------------------------------
    def serve(self) -> EvidenceServer | None:
        """Serve stdin/stdout until the client disconnects; the evidence server built, if any."""
        try:
            anyio.run(self._serve)
        except* BrokenPipeError:  # the client went away while an answer was written: nothing to tell it
            log.info("the stdio client closed the connection")
        return self._server

    async def _serve(self) -> None:
        self._built, self._warm = anyio.Event(), anyio.Event()
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._load)
            if self._describe is not None:
                self._described = anyio.Event()
                tg.start_soon(self._list, self._describe, self._described)
            try:
                await self.run_stdio_async()
            finally:
                tg.cancel_scope.cancel()

    async def _load(self) -> None:
        assert self._built is not None and self._warm is not None
        try:
            server = await anyio.to_thread.run_sync(self._build, abandon_on_cancel=True)
            self._server = server
            self._built.set()
            await anyio.to_thread.run_sync(server.warm_up, abandon_on_cancel=True)
            if self._on_ready is not None:
                self._on_ready(server)
        except Exception as exc:  # reported on stderr and to every request; the process keeps serving
            self._failure = f"{NAME} mcp could not open the index: {exc}"
            print(self._failure, file=sys.stderr, flush=True)
        finally:
            self._built.set()
            self._warm.set()

    async def _list(self, describe: Callable[[], list[Tool]], done: anyio.Event) -> None:
        """Make the tool list on a worker thread; a failure leaves ``tools/list`` to the build."""
        try:
            tools = await anyio.to_thread.run_sync(describe, abandon_on_cancel=True)
            # the SDK's own listing of these tools: what the evidence server's answers
            self._listed = await MCPServer(NAME, tools=tools).list_tools()
        except Exception as exc:  # the build meets the same problem and reports it
            log.info("the tool list waits for the index: %s", exc)
        finally:
            done.set()

    async def _ready(self, event: anyio.Event | None) -> EvidenceServer:
        """The evidence server once ``event`` is set; a failed build raises its reason."""
        if event is not None:
            await event.wait()
        if self._server is None:
            raise MCPError(code=INTERNAL_ERROR, message=self._failure or "the index is not open")
        return self._server

    # -- what waits for the index ------------------------------------------------------------
    async def _gate(self, ctx: Any, call_next: Callable[[Any], Any]) -> Any:
        """Middleware: a tool call goes through the evidence server's own checks (an unknown tool...)."""
        if ctx.method == "tools/call":
            if self._built is not None:
                await self._built.wait()
            if self._server is not None:
                return await self._server.check_tool_name(ctx, call_next)
        return await call_next(ctx)  # a failed build: call_tool answers with the reason

    async def list_tools(self) -> list[MCPTool]:
        """The evidence server's tools: described without the index when they can be, else once it is open."""
        if self._described is not None:
            await self._described.wait()
        if self._listed is not None and self._failure is None:
            return self._listed
        server = await self._ready(self._built)
        return await server.mcp.list_tools()

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """Run the evidence server's tool (waits until the warm-up is done)."""
        try:
            server = await self._ready(self._warm)
        except MCPError as exc:
            raise ToolError(exc.message) from exc
        return await server.mcp.call_tool(name, arguments, context)
