"""A long-lived reader of an index whose graph is served follows the writer's pushes.

The served store walks only the relation types the server's graph records
(one ``[r:T1|T2]`` pattern per query); a reader opened before a push that
brings a new type must walk it too. The writer's pushes are counted in the
folder's ``documents.sqlite`` (as its ingests are, by generation), which the
reader checks at each run.
"""

from __future__ import annotations

from pathlib import Path

from agrag_lab import Graph
from agrag_lab.documents import Document
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore


def _walk(graph: Graph, seeds: list[str]) -> list[tuple[str, int, tuple[tuple[str, str, str], ...]]]:
    return [(s.entity_id, s.hop, s.path) for s in graph.graph_store.bfs(seeds, depth=2)]


def test_a_reader_walks_relation_types_pushed_after_it_read_the_server(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, small_docs: list[Document],
    falkordb_server: tuple[str, int],
) -> None:
    host, port = falkordb_server
    path = tmp_path / "index"

    def server() -> FalkorDBGraphStore:
        return FalkorDBGraphStore.connect(host, port, graph="readers")

    server().clear()
    with Graph.open(path, embedder=embedder, graph_store=server()) as writer:  # pushes with each write
        writer.ingest(small_docs[:1])
    reader = Graph.open(path, embedder=embedder, read_only=True, graph_store=server())
    try:
        before = set(reader.graph_store.relation_types)
        # a second writer ingests without the server: the reader reopens on the new generation and reads the
        # server's graph, which the push (below, as `agrag-lab sync --falkordb` does) has not reached yet
        with Graph.open(path, embedder=embedder) as writer:
            writer.ingest(small_docs[1:])
            types = {e.type for e in writer.graph_store.graph.edges}
        assert set(reader.graph_store.relation_types) == before
        assert types - before, "the second ingest must bring a relation type the first had not"
        with Graph.open(path, embedder=embedder, graph_store=server()):  # a writable open pushes what differs
            pass
        assert set(reader.graph_store.relation_types) == types | before
        with Graph.open(path, embedder=embedder, read_only=True) as in_process:
            seeds = sorted({e.source for e in in_process.graph_store.graph.edges if e.type in types - before})
            assert seeds
            assert _walk(reader, seeds) == _walk(in_process, seeds)
    finally:
        reader.close()
