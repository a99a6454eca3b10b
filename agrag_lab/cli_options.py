"""The command-line options the commands of several packages share (``--falkordb``, ``--chroma``).

``agrag-lab`` (:mod:`agrag_lab.cli`) and the commands it dispatches to
(``eval``, ``agent``, ``mcp``) add and read these options through this
module, so none of them imports :mod:`agrag_lab.cli`, which imports them.
"""

from __future__ import annotations

import argparse
from typing import Any

from agrag_lab.errors import OptionError

__all__ = [
    "add_chroma_option", "add_falkordb_option", "chroma_address", "falkordb_address", "graph_store_of", "vector_store_of",
]


def falkordb_address(text: str) -> tuple[str, int, str | None]:
    """The argparse type of ``--falkordb``: ``HOST:PORT[/GRAPH]``.

    >>> falkordb_address("127.0.0.1:6379/docs")
    ('127.0.0.1', 6379, 'docs')
    """
    from agrag_lab.kg.falkordb_store import parse_address

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


def graph_store_of(args: argparse.Namespace) -> Any:
    """The graph server ``--falkordb`` names (``None``: the in-process graph); a dead server is refused now."""
    if getattr(args, "falkordb", None) is None:
        return None
    from agrag_lab.kg.falkordb_store import FalkorDBGraphStore

    host, port, name = args.falkordb
    return FalkorDBGraphStore.connect(host, port, graph=name or "agrag",
                                      vectors=bool(getattr(args, "falkordb_vectors", False)))


def vector_store_of(args: argparse.Namespace) -> Any:
    """The vector store ``--chroma`` names (``None``: the index folder's own); a dead server is refused now."""
    if getattr(args, "chroma", None) is None:
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
