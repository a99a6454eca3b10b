from __future__ import annotations

from collections.abc import Callable, Sequence

from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.kg.algorithms.communities import detect_communities, weighted_projection
from agrag_lab.kg.communities import Community
from agrag_lab.kg.diagnostics import summary
from agrag_lab.kg.extract.build import ChunkExtraction, build_knowledge_graph
from agrag_lab.kg.extract.reports import ExtractiveReporter, build_reports
from agrag_lab.kg.model import KnowledgeGraph
from agrag_lab.kg.reports import BatchReporter, ChunkText, CommunityReport, report_text


def test_projection_weights_count_supporting_chunks(store: NetworkXGraphStore) -> None:
    edges = weighted_projection(store.graph)
    assert edges == sorted(edges) and all(u < v for u, v, _ in edges)
    weights = {(u, v): w for u, v, w in edges}
    assert weights[("ent-ada-lovelace", "ent-charles-babbage")] == 2.0  # babbage#c3 and lovelace#c1


def test_communities_partition_connected_entities_deterministically(
    items: list[ChunkExtraction],
) -> None:
    graph = build_knowledge_graph(items)
    first = detect_communities(graph, seed=42)
    assert first == detect_communities(graph, seed=42)
    level0 = [c for c in first if c.level == 0]
    members = [m for c in level0 for m in c.members]
    connected = {n for u, v, _ in weighted_projection(graph) for n in (u, v)}
    assert sorted(members) == sorted(connected)  # a partition of the connected entities
    assert [c.id for c in level0] == [f"com-0-{i}" for i in range(len(level0))]
    sizes = [c.size for c in level0]
    assert sizes == sorted(sizes, reverse=True)


def test_hierarchy_levels_are_kept_with_parents(items: list[ChunkExtraction]) -> None:
    graph = build_knowledge_graph(items)
    communities = detect_communities(graph, max_cluster_size=3)
    by_id = {c.id: c for c in communities}
    deeper = [c for c in communities if c.level > 0]
    assert deeper, "a max_cluster_size of 3 must split some community"
    for child in deeper:
        parent = by_id[child.parent or ""]
        assert parent.level == child.level - 1 and set(child.members) <= set(parent.members)
        assert child.id in parent.children


def test_isolated_entities_optionally_get_singletons(
    items: list[ChunkExtraction],
) -> None:
    graph = build_knowledge_graph(items[:1])
    lonely = [e for e in graph.entities if not graph.graph.degree(e)]
    with_singletons = detect_communities(graph, include_isolated=True)
    singles = [c for c in with_singletons if c.size == 1]
    assert sorted(m for c in singles for m in c.members) == sorted(lonely)


def test_extractive_report(store: NetworkXGraphStore, chunk_text: Callable[[str], str]) -> None:
    community = next(c for c in store.communities(0) if "ent-charles-babbage" in c.members)
    report = ExtractiveReporter().report(community, store.graph, chunk_text)
    assert report.community_id == community.id and report.level == 0
    assert "Charles Babbage" in report.title
    assert report.key_entities[0] in community.members
    assert len(report.summary) <= 600
    sentences = [s for s in report.summary.split(". ") if s]
    assert len(sentences) == len(set(sentences))
    for source, kind, target in report.key_relations:
        assert source in community.members and target in community.members
        edge = store.graph.edge_index[(source, target, kind)]
        assert set(edge.chunk_ids) <= set(report.chunk_ids)
    text = report_text(report)
    assert text.startswith(report.title) and report.summary in text
    assert build_reports([community], store.graph, chunk_text) == (report,)


def test_a_batch_reporter_gets_every_community_in_one_call(
    store: NetworkXGraphStore, chunk_text: Callable[[str], str]
) -> None:
    calls: list[int] = []

    class Batched(ExtractiveReporter):
        def report_many(
            self, communities: Sequence[Community], graph: KnowledgeGraph, chunk_text: ChunkText
        ) -> list[CommunityReport]:
            calls.append(len(communities))
            return [self.report(c, graph, chunk_text) for c in communities]

    communities = store.communities(0)
    batched = Batched()
    assert isinstance(batched, BatchReporter) and not isinstance(ExtractiveReporter(), BatchReporter)
    assert build_reports(communities, store.graph, chunk_text, batched) == build_reports(
        communities, store.graph, chunk_text)
    assert calls == [len(communities)] and len(communities) > 1


def test_summary_names_counts_communities_and_hubs(store: NetworkXGraphStore) -> None:
    text = summary(store, top=3)
    assert text.startswith(f"Knowledge graph: {len(store.entities())} entities")
    assert "Largest communities:" in text and "Most connected entities:" in text
    assert text.count("\n  ") == 6
