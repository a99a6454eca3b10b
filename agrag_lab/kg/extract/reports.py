"""Community reports written from the graph itself: :class:`ExtractiveReporter` and :func:`build_reports`.

A :class:`~agrag_lab.kg.reports.CommunityReporter` writes one
:class:`~agrag_lab.kg.reports.CommunityReport` per community. :class:`ExtractiveReporter` needs no model: it ranks the members by
degree centrality (inside the community) × number of mentioning chunks, names
the report after the top entities, picks the relations with the most support,
and quotes the sentences that state them. An LLM-backed reporter implements the
same protocol and receives ``chunk_text`` to read the supporting passages.

Examples
--------
>>> from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
>>> from agrag_lab.kg.communities import Community
>>> ents = [
...     Entity("ent-ada", "Ada Lovelace", "Person", chunk_ids=("c1", "c2")),
...     Entity("ent-babbage", "Charles Babbage", "Person", chunk_ids=("c1", "c2", "c3")),
...     Entity("ent-engine", "Analytical Engine", "Machine", chunk_ids=("c3",)),
... ]
>>> edges = [
...     Edge("ent-ada", "ent-babbage", "WORKED_WITH", ("c1",), (), (("c1", "Ada worked with Babbage."),)),
...     Edge("ent-babbage", "ent-engine", "DESIGNED", ("c3",), (), (("c3", "Babbage designed the Engine."),)),
... ]
>>> kg = KnowledgeGraph.create(ents, edges)
>>> r = ExtractiveReporter().report(Community("com-0-0", 0, ("ent-ada", "ent-babbage", "ent-engine")), kg, lambda c: "")
>>> r.title
'Charles Babbage, Ada Lovelace and the Analytical Engine'
>>> r.summary
'Ada worked with Babbage. Babbage designed the Engine.'
>>> r.chunk_ids
('c1', 'c3')
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from agrag_lab.kg.communities import Community
from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
from agrag_lab.kg.reports import BatchReporter, ChunkText, CommunityReport, CommunityReporter
from agrag_lab.kg.text import match_key, natural_key, split_sentences, trim_text

__all__ = ["ExtractiveReporter", "build_reports"]

def _title_name(entity: Entity) -> str:
    name = entity.name
    if (
        name[:1].isupper()
        and not name.startswith("The ")
        and (entity.label == "Machine" or (entity.label in ("Organization", "Place") and " of " in name))
    ):
        return f"the {name}"
    return name


def _join_names(names: list[str]) -> str:
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _norm_sentence(sentence: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", sentence.casefold()).split())


@dataclass(frozen=True)
class ExtractiveReporter:
    """Model-free reporter: ranked entities, best-supported relations, quoted sentences.

    Parameters
    ----------
    title_entities : int
        How many top entities name the report (2 or 3 reads well).
    max_entities, max_relations : int
        How many key entities and key relations to keep.
    summary_chars : int
        The summary stops before exceeding this length (the first sentence is
        always kept, cut if needed).
    """

    title_entities: int = 3
    max_entities: int = 10
    max_relations: int = 8
    summary_chars: int = 600

    def rank_entities(self, community: Community, graph: KnowledgeGraph) -> list[Entity]:
        """Members by degree centrality inside the community × mention count, best first."""
        members = [graph.entities[m] for m in community.members if m in graph.entities]
        inside = {e.id for e in members}
        around = graph.neighbour_ids
        neighbours = {e.id: around[e.id] & inside for e in members}
        scale = max(len(members) - 1, 1)

        def score(e: Entity) -> tuple[float, int, str, str]:
            centrality = len(neighbours[e.id]) / scale
            return (-centrality * e.mention_count, -e.mention_count, e.name, e.id)

        return sorted(members, key=score)

    def key_edges(self, community: Community, graph: KnowledgeGraph) -> list[Edge]:
        """Relations inside the community, most supported first, typed before ``RELATED_TO``."""
        inside = {m for m in community.members if m in graph.entities}
        edges = [edge for member in sorted(inside) for edge in graph.edges_of(member, "out") if edge.target in inside]
        default = graph.schema.default_relation_type
        edges.sort(key=lambda e: (-e.weight, e.type == default, e.key))
        return edges[: self.max_relations]

    def _sentences(self, edges: list[Edge], graph: KnowledgeGraph, chunk_text: ChunkText) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        for edge in edges:
            stated = [(c, s) for c, s in edge.sentences if c in edge.chunk_ids and s]
            if not stated:
                stated = self._sentences_from_text(edge, graph, chunk_text)
            found.extend(stated)
        return found

    @staticmethod
    def _sentences_from_text(edge: Edge, graph: KnowledgeGraph, chunk_text: ChunkText) -> list[tuple[str, str]]:
        ends = [graph.entities.get(edge.source), graph.entities.get(edge.target)]
        forms = [{match_key(n) for n in (e.name, *e.aliases)} for e in ends if e is not None]
        for chunk_id in edge.chunk_ids:
            text = chunk_text(chunk_id)
            for a, b in split_sentences(text):
                key = f" {match_key(text[a:b])} "
                if len(forms) == 2 and all(any(f" {f} " in key for f in fs) for fs in forms):
                    return [(chunk_id, text[a:b])]
        return []

    def report(self, community: Community, graph: KnowledgeGraph, chunk_text: ChunkText) -> CommunityReport:
        """Write the report of ``community`` (see the class docstring)."""
        ranked = self.rank_entities(community, graph)[: self.max_entities]
        edges = self.key_edges(community, graph)
        title = _join_names([_title_name(e) for e in ranked[: self.title_entities]]) or community.id
        parts: list[str] = []
        used: set[str] = set()
        length = 0
        for _chunk_id, sentence in self._sentences(edges, graph, chunk_text):
            sentence = " ".join(sentence.split())
            norm = _norm_sentence(sentence)
            if not norm or norm in used:
                continue
            if parts and length + 1 + len(sentence) > self.summary_chars:
                break
            used.add(norm)
            parts.append(sentence if parts else trim_text(sentence, self.summary_chars))
            length += len(parts[-1]) + (1 if len(parts) > 1 else 0)
        if not parts:
            for entity in ranked:
                if entity.description and length + len(entity.description) + 1 <= self.summary_chars:
                    parts.append(entity.description)
                    length += len(entity.description) + 1
        if edges:
            chunks: Iterable[str] = {c for e in edges for c in e.chunk_ids}
        else:
            chunks = {c for e in ranked[: self.title_entities] for c in e.chunk_ids[:3]}
        return CommunityReport(
            community_id=community.id,
            level=community.level,
            title=title,
            summary=" ".join(parts),
            key_entities=tuple(e.id for e in ranked),
            key_relations=tuple((e.source, e.type, e.target) for e in edges),
            chunk_ids=tuple(sorted(chunks, key=natural_key)),
            key_entity_names=tuple(e.name for e in ranked),
        )


def build_reports(
    communities: Iterable[Community],
    graph: KnowledgeGraph,
    chunk_text: ChunkText,
    reporter: CommunityReporter | None = None,
) -> tuple[CommunityReport, ...]:
    """One report per community, in community order (:class:`ExtractiveReporter` by default).

    A :class:`~agrag_lab.kg.reports.BatchReporter` (an LLM reporter that
    writes several at once) is given them all at once.
    """
    writer = reporter if reporter is not None else ExtractiveReporter()
    if isinstance(writer, BatchReporter):
        return tuple(writer.report_many(list(communities), graph, chunk_text))
    return tuple(writer.report(c, graph, chunk_text) for c in communities)
