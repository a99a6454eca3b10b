"""Importing the real GraphRAG output of "A Christmas Carol" (3.x and 1.x): counts, content, fetch, scope, recipes."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from carol_support import CAROL, table

from agrag_lab import Graph
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.errors import NotFoundError
from agrag_lab.evidence.session import Scope
from agrag_lab.importing import ImportConflictError, ImportReport
from agrag_lab.importing.graphrag import read_graphrag
from agrag_lab.recipes import BUILTINS, Recipe
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.settings import RetrievalSettings

PREFIX = "title: a-christmas-carol.txt.\n"


def _unit_text(version: str, text: str) -> str:
    """A text unit's text as our chunk holds it: 3.x units lose GraphRAG's metadata line."""
    return text.removeprefix(PREFIX) if version == "v3" else text


def test_counts_equal_the_parquet_rows_or_say_what_was_skipped(carol: tuple[str, Graph, ImportReport]) -> None:
    version, graph, report = carol
    store = graph.graph_store
    written = {
        "documents": graph.stats()["documents"], "text_units": graph.stats()["chunks"],
        "entities": len(store.entities()), "relationships": len(store.graph.edges),
        "communities": len(store.communities()), "community_reports": len(store.reports()),
    }
    for name, count in written.items():
        rows = table(version, name).height
        assert report.rows[name] == rows
        assert count + report.skipped_count(name) == rows, (name, report.skipped)
    assert (report.documents, report.chunks, report.entities) == (1, 42, written["entities"])
    if version == "v3":
        assert report.format == "graphrag-3"
        # 84 relationships name an end that entities.parquet does not hold: skipped, with the reason
        missing = table("v3", "relationships").filter(
            ~pl.col("source").is_in(table("v3", "entities")["title"].implode())
            | ~pl.col("target").is_in(table("v3", "entities")["title"].implode())
        )
        assert report.skipped_count("relationships") == missing.height == 84
        assert report.claims + report.skipped_count("covariates") == table("v3", "covariates").height
        assert any("metadata line" in n for n in report.notes)
    else:
        assert report.format == "graphrag-1" and report.skipped == ()


def test_a_known_entity_keeps_description_type_and_text_units(carol: tuple[str, Graph, ImportReport]) -> None:
    version, graph, _ = carol
    row = table(version, "entities").filter(pl.col("title") == "EBENEZER SCROOGE").row(0, named=True)
    entity = graph.graph_store.entity_by_name("EBENEZER SCROOGE")
    assert entity is not None
    assert (entity.label, entity.description) == ("PERSON", row["description"])
    units = table(version, "text_units").filter(pl.col("id").is_in(row["text_unit_ids"]))
    texts = sorted(_unit_text(version, t) for t in units["text"])
    fetched = sorted(graph.evidence().fetch(c).items[0].text for c in entity.chunk_ids)
    assert fetched == texts and len(entity.chunk_ids) == len(row["text_unit_ids"])
    attrs = dict(entity.attributes)
    if version == "v3":
        assert (attrs["frequency"], attrs["degree"]) == (row["frequency"], row["degree"])
        assert entity.claims and all(c.subject == entity.id for c in entity.claims)
    else:  # 1.x keeps degree in create_final_nodes
        nodes = table("v1", "nodes").filter(pl.col("title") == "EBENEZER SCROOGE")
        assert attrs["degree"] == nodes["degree"][0]


def test_a_known_relationship_keeps_description_weight_and_support(carol: tuple[str, Graph, ImportReport]) -> None:
    version, graph, _ = carol
    rel = table(version, "relationships").filter(
        (pl.col("source") == "EBENEZER SCROOGE") & (pl.col("target") == "JACOB MARLEY")
    ).row(0, named=True)
    store = graph.graph_store
    scrooge, marley = store.entity_by_name("EBENEZER SCROOGE"), store.entity_by_name("JACOB MARLEY")
    assert scrooge is not None and marley is not None
    edge = store.graph.edge_index[(scrooge.id, marley.id, "RELATED_TO")]
    assert edge.description == rel["description"]
    assert dict(edge.attributes)["weight"] == rel["weight"]
    assert len(edge.chunk_ids) == len(rel["text_unit_ids"])
    explored = graph.evidence().explore("EBENEZER SCROOGE", limit=1000)
    walked = [e for e in explored.edges if e.target.id == marley.id or e.source.id == marley.id]
    assert walked and walked[0].kind == "assertion" and walked[0].support[0].sentence == rel["description"]


def test_the_report_of_a_known_community(carol: tuple[str, Graph, ImportReport]) -> None:
    version, graph, _ = carol
    row = table(version, "community_reports").filter(pl.col("community") == 0).row(0, named=True)
    community = table(version, "communities").filter(pl.col("community") == 0).row(0, named=True)
    report = graph.graph_store.report(f"com-{row['level']}-0")
    assert report is not None
    assert (report.title, report.summary, report.full_content) == (row["title"], row["summary"], row["full_content"])
    assert report.rating == row["rank"]
    assert report.findings[0] == (row["findings"][0]["summary"], row["findings"][0]["explanation"])
    c = graph.graph_store.community(report.community_id)
    assert c is not None and len(c.members) == len(community["entity_ids"])
    children = sorted(graph.graph_store.communities(), key=lambda x: x.id)
    below = [x for x in children if x.parent == c.id]
    assert {x.id for x in below} == set(c.children) and below


def test_fetch_returns_the_text_unit_byte_exact(carol: tuple[str, Graph, ImportReport]) -> None:
    version, graph, _ = carol
    units = table(version, "text_units")
    document = table(version, "documents")["text"][0]
    session = graph.evidence()
    for unit in units.iter_rows(named=True):
        text = _unit_text(version, unit["text"])
        hits = graph.db.current_chunks()
        chunk = next(c for c, _ in hits if c.text == text)
        fetched = session.fetch(chunk.id).items[0]
        assert fetched.text == text == document[fetched.location.start : fetched.location.end]
        assert chunk.id.startswith(f"{chunk.document_id}@") and "#c" in chunk.id


def test_a_scoped_session_sees_only_its_documents(carol: tuple[str, Graph, ImportReport]) -> None:
    _, graph, _ = carol
    doc = graph.db.documents()[0].id
    inside, outside = graph.evidence(Scope(document_ids={doc})), graph.evidence(Scope(document_ids={"another-book"}))
    assert inside.find_entities("Scrooge").entities
    assert inside.discover("Marley was dead").hits
    assert not outside.find_entities("Scrooge").entities
    assert not outside.discover("Marley was dead").hits
    with pytest.raises(NotFoundError):
        outside.explore("EBENEZER SCROOGE")
    chunk = inside.discover("Marley was dead").hits[0].id
    assert not outside.fetch(chunk).items[0].ok
    run = graph.engine().run("Scrooge and Marley", BUILTINS["THEMATIC"], filters=SearchFilters(document_ids=frozenset({"another-book"})))
    assert run.results == ()


def _recipe(name: str, cross_encoder: Path) -> Recipe:
    recipe = BUILTINS[name]
    return recipe.replace(**{"rerank.model": str(cross_encoder)}) if name == "HYBRID_RERANKED" else recipe


@pytest.mark.parametrize("name", list(BUILTINS))
def test_every_builtin_recipe_runs_on_the_import(name: str, carol: tuple[str, Graph, ImportReport], cross_encoder_path: Path) -> None:
    version, graph, _ = carol
    # that each recipe runs is the point; the run deadline has tests of its own, and a cold cross-encoder on a
    # loaded 2-core machine outlasted the default 60 s (HYBRID_RERANKED)
    engine = graph.engine(settings=RetrievalSettings(method_timeout=600.0, run_timeout=1200.0))
    run = engine.run("Who was Jacob Marley and why does he visit Scrooge?", _recipe(name, cross_encoder_path))
    assert run.results and all(m.ok for m in run.trace.methods)
    assert run.to_polars().height > 0 and run.explain(0)
    assert run.refuse(k=10).results
    kinds = {r.kind for r in run.results}
    if name == "THEMATIC":
        titles = set(table(version, "community_reports")["title"])
        assert kinds == {"community"} and all(r.title in titles for r in run.results)
    if name == "ENTITY":
        names = set(table(version, "entities")["title"])
        assert kinds == {"entity"} and all(r.title in names for r in run.results)


def test_graph_expand_walks_graphrag_relationships(carol: tuple[str, Graph, ImportReport]) -> None:
    _, graph, _ = carol
    recipe = BUILTINS["GRAPH_EXPAND"].replace(**{"walk.strategy": "bfs"})
    run = graph.engine().run("Jacob Marley", recipe)
    walk = run.trace.outcome.walk
    assert walk is not None and walk.additions
    steps = [s for a in walk.additions for s in a.path]
    assert steps and all(s.relation == "RELATED_TO" for s in steps)
    edges = graph.graph_store.graph.edge_index
    for s in steps:  # every step is one of GraphRAG's relationships, walked either way
        assert (s.source, s.target, s.relation) in edges or (s.target, s.source, s.relation) in edges
    ppr = graph.engine().run("Jacob Marley", BUILTINS["GRAPH_EXPAND"]).trace.outcome.walk
    assert ppr is not None and ppr.strategy == "ppr" and ppr.additions


def test_reimport_changes_nothing_and_other_indexes_are_refused(
    carol_v3: tuple[Path, ImportReport], carol_v1: tuple[Path, ImportReport], embedder: SentenceTransformerEmbedder
) -> None:
    path, first = carol_v3
    before = (path / "graph.json.gz").read_bytes()
    with Graph.open(path, embedder=embedder) as graph:
        again = graph.import_graphrag(CAROL / "v3")
        assert again.unchanged and again.embedded == 0 and again.entities == first.entities
        with pytest.raises(ImportConflictError, match="index folder of its own"):
            graph.import_graphrag(CAROL / "v1")
        from agrag_lab import Document

        with pytest.raises(ImportConflictError, match="another index folder"):
            graph.ingest([Document("extra", "Extra", "Some other text.")])
    assert (path / "graph.json.gz").read_bytes() == before


def test_importing_into_an_index_with_documents_is_refused(index: Graph) -> None:
    from agrag_lab import Document

    index.ingest([Document("ada", "Ada", "Ada Lovelace wrote Note G.")])
    with pytest.raises(ImportConflictError, match=r"already holds 1 documents \(ada\).*--index"):
        index.import_graphrag(CAROL / "v1")
    assert index.stats()["documents"] == 1


class _FailingEmbedder:
    """The real embedder, failing on its second batch (a crash in the middle of an import)."""

    def __init__(self, inner: SentenceTransformerEmbedder) -> None:
        self.inner, self.calls = inner, 0
        self.name, self.dimension = inner.name, inner.dimension

    def embed(self, texts: list[str]) -> object:
        self.calls += 1
        if self.calls == 1:  # the chunks' first batch (the graph's records take their chunks' vectors)
            raise RuntimeError("killed in the middle of the import")
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> object:
        return self.inner.embed_query(text)


def test_a_crash_during_the_import_leaves_the_folder_as_it_was(tmp_path: Path, embedder: SentenceTransformerEmbedder) -> None:
    failing = _FailingEmbedder(embedder)
    fresh = tmp_path / "fresh"
    with Graph.open(fresh, embedder=failing) as graph:  # type: ignore[arg-type]
        empty = (graph.stats(), sorted(p.name for p in fresh.iterdir()))
        with pytest.raises(RuntimeError, match="killed"):
            graph.import_graphrag(CAROL / "v1")
    with Graph.open(fresh, embedder=embedder, read_only=True) as graph:
        assert graph.stats() == empty[0]
        assert graph.graph_store.entities() == [] and graph.db.get_meta("given_graph") is None
        assert graph.engine().run("Scrooge", BUILTINS["ENTITY"]).results == ()
        assert sorted(p.name for p in fresh.iterdir()) == empty[1]
    assert failing.calls == 1  # the chunks' first batch failed: nothing was committed


def test_read_graphrag_is_pure_and_deterministic() -> None:
    a, b = read_graphrag(CAROL / "v1"), read_graphrag(CAROL / "v1")
    assert a.fingerprint() == b.fingerprint()
    assert a.store.dumps() == b.store.dumps()
