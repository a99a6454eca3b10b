"""How to fix an index folder: the commands that error messages and ``agrag-lab doctor`` name.

The lowest floor of :mod:`agrag_lab.index` (it imports nothing of it), so
that the build, the folder checks and the doctor all word a fix the same way.

Examples
--------
>>> from pathlib import Path
>>> repair_hint(Path("ix"))
'`agrag-lab repair --index ix`'
>>> name_folder("rebuild it with `agrag-lab repair --index DIR` (DIR: the index folder holding it)", Path("ix"))
'rebuild it with `agrag-lab repair --index ix`'
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["chroma_option", "name_folder", "repair_hint", "server_hint"]


def chroma_option(server: tuple[str, int] | None) -> str:
    """The ``--chroma HOST:PORT`` option naming a server (``""``: none), with a leading space.

    Examples
    --------
    >>> chroma_option(("127.0.0.1", 8000)), chroma_option(("::1", 8000)), chroma_option(None)
    (' --chroma 127.0.0.1:8000', ' --chroma [::1]:8000', '')
    """
    if server is None:
        return ""
    host, port = server
    return f" --chroma {f'[{host}]' if ':' in host else host}:{port}"


def repair_hint(folder: Path, server: tuple[str, int] | None = None) -> str:
    """The command that rebuilds every derived store of ``folder`` (its vectors on ``server``, if given)."""
    return f"`agrag-lab repair --index {folder}{chroma_option(server)}`"


def server_hint(folder: Path, server: tuple[str, int]) -> str:
    """What to do when ``folder``, whose vectors live in a Chroma server, is opened without it.

    Examples
    --------
    >>> print(server_hint(Path("ix"), ("127.0.0.1", 8000)))  # doctest: +NORMALIZE_WHITESPACE
    the index ix keeps its vectors in the Chroma server at 127.0.0.1:8000: pass `--chroma 127.0.0.1:8000`
    (from Python: `Graph.open('ix', vector_store=ChromaVectorStore.http('127.0.0.1', 8000))`), and start the
    server if it is not running: `chroma run --host 127.0.0.1 --port 8000 --path SERVER_DATA_DIR` (the folder it
    was started with before)
    """
    host, port = server
    return (
        f"the index {folder} keeps its vectors in the Chroma server at {chroma_option(server)[10:]}: pass "
        f"`{chroma_option(server)[1:]}` (from Python: `Graph.open({str(folder)!r}, vector_store="
        f"ChromaVectorStore.http({host!r}, {port}))`), and start the server if it is not running: `chroma run "
        f"--host {host} --port {port} --path SERVER_DATA_DIR` (the folder it was started with before)"
    )


def name_folder(message: str, folder: Path) -> str:
    """A lower layer's message naming ``agrag-lab repair --index DIR``, with the real folder in it."""
    return message.replace(" (DIR: the index folder holding it)", "").replace("--index DIR", f"--index {folder}")
