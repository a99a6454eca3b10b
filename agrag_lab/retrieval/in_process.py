"""What the peer methods that read the whole graph need of a graph store, and the refusal when a store lacks it.

``fact_ppr`` (HippoRAG 2) builds its PageRank matrix from every entity, relation and passage, and
the ``keyword_*`` methods (LightRAG) read every relation record; both read the in-process graph of an
index (:class:`~agrag_lab.retrieval.store.IndexSearchStore`). A store whose graph is served by
FalkorDB (:class:`~agrag_lab.retrieval.served_store.ServedGraphStore`) has not those reads: the
method refuses with :func:`require_in_process`'s error, which names the fix. The index folder keeps
its own copy of the graph (the server receives a copy of it), so opening the index without the
server runs the same method on the same graph.

Examples
--------
>>> require_in_process("fact_ppr", object(), ("graph",))
Traceback (most recent call last):
...
agrag_lab.errors.RetrievalMethodError: every leg of the 'fact_ppr' method failed (the graph leg: TypeError: the fact_ppr method reads the whole graph in-process (graph); object has not those reads (a graph served by FalkorDB has not): open the index without the graph server (Graph.open(path) without graph_store=, or agrag-lab without --falkordb); the index folder holds the same graph)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agrag_lab.errors import RetrievalMethodError

__all__ = ["IN_PROCESS_FIX", "require_in_process"]

#: How to run a whole-graph method on an index whose graph is served.
IN_PROCESS_FIX = ("open the index without the graph server (Graph.open(path) without graph_store=, or agrag-lab "
                  "without --falkordb); the index folder holds the same graph")


def require_in_process(method: str, store: Any, needed: Sequence[str]) -> Any:
    """``store`` if it has every read of ``needed``, else the method's refusal naming the fix.

    Raises
    ------
    RetrievalMethodError
        ``store`` lacks one of ``needed`` (a graph served by FalkorDB).
    """
    missing = [n for n in needed if not hasattr(store, n)]
    if missing:
        raise RetrievalMethodError(method, {"graph": TypeError(
            f"the {method} method reads the whole graph in-process ({', '.join(missing)}); "
            f"{type(store).__name__} has not those reads (a graph served by FalkorDB has not): {IN_PROCESS_FIX}")})
    return store
