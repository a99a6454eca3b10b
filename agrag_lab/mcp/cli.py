"""``agrag-lab mcp``: serve the evidence tools over stdio or streamable HTTP.

Nothing reaches stdout but the protocol, and every log line goes to stderr.
Over stdio the server answers ``initialize`` at once and opens the index
behind it (:class:`~agrag_lab.mcp.front.DeferredServer`): this module imports
nothing of the index stack until then. Over HTTP the index is opened and
warmed up before the socket is bound.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from contextlib import redirect_stdout
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from agrag_lab.limits import MAX_IDLE_SECONDS, MAX_SESSIONS, MAX_WORKERS, int_in, seconds_in

if TYPE_CHECKING:
    from mcp.server.mcpserver.tools import Tool

    from agrag_lab.cli_options import Subcommands
    from agrag_lab.mcp.server import EvidenceServer

__all__ = ["cmd_mcp", "main", "register"]

log = logging.getLogger("agrag_lab.mcp")


def _evidence_server(args: argparse.Namespace) -> EvidenceServer:
    """Open the index read-only and serve it within the scope of ``args``."""
    if args.chroma is not None:  # a local index is read from its cached embeddings
        from agrag_lab.storage.vectors import prefetch_chromadb

        prefetch_chromadb()  # the server client's import overlaps the rest of the start-up (issue 30)
    from agrag_lab.cli_options import graph_store_of, vector_store_of
    from agrag_lab.evidence.scope import scope_from_args
    from agrag_lab.graph import Graph
    from agrag_lab.mcp.server import EvidenceServer

    scope = scope_from_args(args.scope_documents, args.scope_where)
    graph = Graph.open(Path(args.index), read_only=True, vector_store=vector_store_of(args),
                       graph_store=graph_store_of(args))
    try:
        return EvidenceServer(
            graph, scope, transport=args.transport, max_sessions=args.max_sessions,
            sessions_per_client=args.sessions_per_client, idle_timeout=args.session_idle_timeout,
            workers=args.workers, session_store=_session_store(args.sessions),
        )
    except BaseException:
        graph.close()
        raise


def _tools(args: argparse.Namespace) -> list[Tool]:
    """The tools ``agrag-lab mcp`` will serve, made without opening the index (``tools/list`` while it opens).

    Raises what opening would (no index at ``--index``, a bad ``--scope-where``), from the checks
    that run first and cheaply; ``tools/list`` then waits for the open and answers with its reason.
    """
    from agrag_lab.evidence.scope import scope_from_args
    from agrag_lab.index.folder import check_source
    from agrag_lab.mcp.server import server_tools

    scope_from_args(args.scope_documents, args.scope_where)
    check_source(Path(args.index), read_only=True)
    return server_tools()


def _session_store(chosen: str | None) -> str | None:
    """Where evidence sessions are kept: ``--sessions PATH``, none for ``memory``, else the user's state dir."""
    if chosen == "memory":
        return None
    if chosen:
        return chosen
    from agrag_lab.mcp.session_store import default_path

    return str(default_path())


def _token(args: argparse.Namespace) -> str | None:
    """The bearer token: from ``--token-file``; generated (and printed to stderr) on a host that is not loopback."""
    from agrag_lab.cli_options import read_token_file
    from agrag_lab.mcp.http_guard import is_loopback

    if args.token_file is not None:
        return read_token_file(args.token_file)
    if is_loopback(args.host):
        return None
    import secrets

    token = secrets.token_urlsafe(32)
    print(f"agrag-lab mcp: {args.host} is not loopback, so every request needs the header "
          f"'Authorization: Bearer {token}' (pass --token-file PATH, mode 600, to choose it)",
          file=sys.stderr, flush=True)
    return token


def _serving(args: argparse.Namespace, server: EvidenceServer) -> None:
    readable = len(server.reader.resolved.readable)
    print(f"agrag-lab mcp: {args.index}, {readable} readable document(s), transport {args.transport}",
          file=sys.stderr, flush=True)


def cmd_mcp(args: argparse.Namespace) -> int:
    """Run ``agrag-lab mcp``."""
    if args.verbose:
        logging.getLogger("agrag_lab").setLevel(logging.INFO)
    if args.transport == "stdio":
        from agrag_lab.mcp.front import DeferredServer

        built = DeferredServer(partial(_evidence_server, args), on_ready=partial(_serving, args),
                               describe=partial(_tools, args)).serve()
        if built is not None:
            built.graph.close()
        return 0
    import anyio

    token = _token(args)
    with redirect_stdout(sys.stderr):  # nothing may reach stdout but the protocol
        server = _evidence_server(args)
        server.warm_up()
    _serving(args, server)

    def ready(url: str) -> None:
        print(f"agrag-lab mcp: serving {url}", file=sys.stderr, flush=True)

    try:
        anyio.run(partial(
            server.serve_http, args.host, args.port, ready=ready, token=token,
            allowed_hosts=args.allowed_host or (), allowed_origins=args.allowed_origin or (),
            transport_idle_timeout=args.transport_idle_timeout,
        ))
    except KeyboardInterrupt:
        pass
    finally:
        server.graph.close()
    return 0


def register(subparsers: Subcommands) -> None:
    """Add the ``mcp`` sub-command to the ``agrag-lab`` parser."""
    p = subparsers.add_parser(
        "mcp",
        help="serve the evidence functions as MCP tools (stdio or streamable HTTP)",
        description="Serve every evidence tool (search_evidence, fetch_evidence, check_citations, ...; "
        "tools/list names them all) and open_session over MCP, within a scope fixed now.",
    )
    p.add_argument("--index", required=True, help="index folder (opened read-only)")
    p.add_argument("--scope-documents", nargs="+", metavar="ID", help="only these documents are readable")
    p.add_argument("--scope-where", action="append", metavar="KEY=VALUE",
                   help="only documents whose metadata has KEY=VALUE (repeatable; all must match)")
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    p.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1, loopback only)")
    p.add_argument("--token-file", default=None, metavar="PATH",
                   help="HTTP: require 'Authorization: Bearer TOKEN' with the token in this file (mode 600); "
                   "on a host that is not loopback a token is always required (generated and printed to stderr "
                   "when this is not given)")
    p.add_argument("--allowed-host", action="append", metavar="HOST[:PORT]",
                   help="HTTP: another Host header value to accept besides the bind address (repeatable; e.g. "
                   "the name a reverse proxy forwards)")
    p.add_argument("--allowed-origin", action="append", metavar="ORIGIN",
                   help="HTTP: another Origin to accept, e.g. https://app.example (repeatable; the bind address's "
                   "own origins are always accepted)")
    p.add_argument("--transport-idle-timeout", type=seconds_in(MAX_IDLE_SECONDS, "how long an unused HTTP session "
                   "is kept"), default=600.0, metavar="SECONDS",
                   help="HTTP: end a transport session (Mcp-Session-Id) unused this long (default 600); each client "
                   "keeps at most --sessions-per-client of them")
    p.add_argument("--port", type=int_in(0, 65535, "the HTTP port"), default=8000,
                   help="HTTP port (0 picks a free one; the URL is logged)")
    p.add_argument("--max-sessions", type=int_in(1, MAX_SESSIONS, "the most evidence sessions kept"), default=256,
                   help="most evidence sessions kept in all; past it the client holding the most loses its oldest")
    p.add_argument("--sessions-per-client", type=int_in(1, MAX_SESSIONS, "the most evidence sessions of one client"),
                   default=32, help="most evidence sessions one client (stdio process, HTTP session or connection) "
                   "keeps; opening more forgets its own least recently used (default 32)")
    p.add_argument("--session-idle-timeout", type=seconds_in(MAX_IDLE_SECONDS, "how long an unused session is kept"),
                   default=3600.0, metavar="SECONDS", help="forget an evidence session unused this long (default 3600)")
    p.add_argument("--sessions", metavar="PATH|memory",
                   help="the SQLite file where evidence sessions outlive this process, so a handle from one "
                   "stdio server works in the next (default: sessions.sqlite in $AGRAG_LAB_STATE_DIR, else the "
                   "user's state directory; never inside the index); 'memory' keeps them only while it runs")
    p.add_argument("--workers", type=int_in(1, MAX_WORKERS, "how many evidence calls run at once"), default=2,
                   help="threads running evidence calls at once")
    from agrag_lab.cli_options import add_chroma_option

    add_chroma_option(p)
    p.set_defaults(func=cmd_mcp)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m agrag_lab.mcp ...`` (same options as ``agrag-lab mcp``; not through :mod:`agrag_lab.cli`)."""
    from agrag_lab.cli_options import command_parser, offline_defaults, run_command

    offline_defaults()
    parser, sub = command_parser()
    register(sub)
    return run_command(parser, ["mcp", *(argv if argv is not None else sys.argv[1:])])
