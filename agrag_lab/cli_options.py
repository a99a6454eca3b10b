"""The command-line options the commands of several packages share (``--falkordb``, ``--chroma``,
``--token-file``), and their runner.

``agrag-lab`` (:mod:`agrag_lab.cli`) and the commands it dispatches to
(``eval``, ``agent``, ``mcp``) add and read these options through this
module, so none of them imports :mod:`agrag_lab.cli`, which imports them.
Each entry point (``agrag-lab``, ``python -m agrag_lab.mcp``) makes its
parser with :func:`command_parser` and runs it with :func:`run_command`.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, TypeAlias

from agrag_lab.errors import AgragError, OptionError

if TYPE_CHECKING:
    from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore
    from agrag_lab.storage.vectors import ChromaVectorStore

#: The sub-parsers each command registers its own parser on (``register(subparsers)`` of a command's module).
Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

#: The store and embedder options that only some commands take, with what a command without them reads:
#: set on the root parser, so every command's arguments carry each of them (a command's own option wins).
SHARED_OPTIONS: Mapping[str, object] = MappingProxyType({
    "chroma": None, "falkordb": None, "falkordb_vectors": False, "embedding_model": None, "embedding_url": None,
})

__all__ = [
    "add_chroma_option", "add_falkordb_option", "chroma_address", "command_parser", "falkordb_address",
    "graph_store_of", "offline_defaults", "run_command", "vector_store_of",
]


def offline_defaults() -> None:
    """No model download and no telemetry unless the environment asks for them (before any model import)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")


def command_parser() -> tuple[argparse.ArgumentParser, Subcommands]:
    """The ``agrag-lab`` parser with its global options, and the sub-parsers its commands register on."""
    parser = argparse.ArgumentParser(prog="agrag-lab", description="A workbench for GraphRAG retrieval.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    parser.set_defaults(**SHARED_OPTIONS)
    return parser, parser.add_subparsers(dest="command", required=True)


def run_command(parser: argparse.ArgumentParser, given: Sequence[str]) -> int:
    """Parse ``given`` and run its command; an :class:`AgragError` or a full disk is one line on stderr, exit 2."""
    args = parser.parse_args(list(given))
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        code: int = args.func(args)
    except KeyboardInterrupt:  # Ctrl-C: one line, not a traceback (every write is atomic: nothing is half-made)
        print(f"agrag-lab {args.command}: interrupted (Ctrl-C); what was stored before is unchanged, run the "
              "command again to finish", file=sys.stderr)
        return 130
    except AgragError as exc:
        from agrag_lab.errors import DiskWriteError
        from agrag_lab.storage.disk import disk_write_error

        full = None if isinstance(exc, DiskWriteError) else disk_write_error(exc, "the index")
        print(f"agrag-lab {args.command}: {full or exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a full disk or an I/O error in any store's write: one line, not a traceback
        from agrag_lab.storage.disk import disk_write_error

        full = disk_write_error(exc, "the index")
        if full is None:
            raise
        print(f"agrag-lab {args.command}: {full}", file=sys.stderr)
        return 2
    return code


def falkordb_address(text: str) -> tuple[str, int, str | None]:
    """The argparse type of ``--falkordb``: ``HOST:PORT[/GRAPH]``.

    >>> falkordb_address("127.0.0.1:6379/docs")
    ('127.0.0.1', 6379, 'docs')
    """
    from agrag_lab.graph_stores.falkordb.store import parse_address

    try:
        return parse_address(text)
    except ValueError as exc:
        raise OptionError(str(exc)) from None


def add_falkordb_option(p: argparse.ArgumentParser, *, required: bool = False) -> None:
    """``--falkordb HOST:PORT[/GRAPH]``: the index's knowledge graph is read from that FalkorDB server."""
    p.add_argument("--falkordb", type=falkordb_address, metavar="HOST:PORT[/GRAPH]", default=None, required=required,
                   help="the index's knowledge graph is in this FalkorDB server (GRAPH default: agrag); "
                   "`agrag-lab sync --falkordb` puts it there. Needs pip install 'agrag_lab[falkordb]'")
    p.add_argument("--falkordb-vectors", action="store_true",
                   help="with --falkordb: recipe search's vector legs query the FalkorDB server's own vector indexes "
                   "(one per entity label, one for chunks, one for reports) instead of Chroma")


def graph_store_of(args: argparse.Namespace) -> FalkorDBGraphStore | None:
    """The graph server ``--falkordb`` names (``None``: the in-process graph); a dead server is refused now."""
    if args.falkordb is None:
        return None
    from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore

    host, port, name = args.falkordb
    return FalkorDBGraphStore.connect(host, port, graph=name or "agrag",
                                      vectors=bool(args.falkordb_vectors))


def vector_store_of(args: argparse.Namespace) -> ChromaVectorStore | None:
    """The vector store ``--chroma`` names (``None``: the index folder's own); a dead server is refused now."""
    if args.chroma is None:
        return None
    from agrag_lab.storage.vectors import ChromaVectorStore

    host, port = args.chroma
    return ChromaVectorStore.http(host, port)


def chroma_address(text: str) -> tuple[str, int]:
    """The argparse type of ``--chroma``: ``HOST:PORT`` of a Chroma server (``[::1]:8000`` for IPv6).

    Examples
    --------
    >>> chroma_address("127.0.0.1:8000")
    ('127.0.0.1', 8000)
    >>> chroma_address("localhost")
    Traceback (most recent call last):
    ...
    agrag_lab.errors.OptionError: must be HOST:PORT of a Chroma server, e.g. 127.0.0.1:8000 (got 'localhost')
    """
    host, sep, port = text.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise OptionError(f"must be HOST:PORT of a Chroma server, e.g. 127.0.0.1:8000 (got {text!r})")
    return host, int(port)


def add_chroma_option(p: argparse.ArgumentParser) -> None:
    """``--chroma HOST:PORT``: the index's vectors are on that Chroma server (see ``agrag-lab sync``);
    ``--falkordb HOST:PORT[/GRAPH]``: its graph is in that FalkorDB server."""
    p.add_argument("--chroma", type=chroma_address, metavar="HOST:PORT", default=None,
                   help="the index's vectors are in this Chroma server (`chroma run --host 127.0.0.1 --port N`), not "
                   "in the index folder; `agrag-lab sync --chroma` puts them there")
    add_falkordb_option(p)


def read_token_file(path: str | os.PathLike[str]) -> str:
    """The token in ``path``, a file only its owner may read (mode 600 or stricter).

    Raises
    ------
    ServiceError
        The file cannot be read, is empty, or other users may read or write it.
    """
    from agrag_lab.owner_files import read_owner_file

    return read_owner_file(path, "token")
