"""The one visibility rule of every graph store: what a :class:`~agrag_lab.kg.scope.GraphScope` shows.

An entity is visible iff it has a current supporting chunk in a visible
document and its label passes; a relation iff its type passes, it has current
support in a visible document and both ends are visible. What a scoped read
returns is trimmed to the scope: chunk ids, aliases, descriptions and
sentences from invisible documents are dropped. A report is visible only to a
scope that reads every document it draws on (:func:`report_documents`).
Every store (in-process or a server) decides visibility with these functions
or, in a server, with a query that follows them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from agrag_lab.kg.communities import Community
from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
from agrag_lab.kg.reports import CommunityReport
from agrag_lab.kg.scope import EVERYTHING, GraphScope

__all__ = ["report_documents", "trim_edge", "trim_entity"]


def report_documents(
    report: CommunityReport, community: Community | None, graph: KnowledgeGraph
) -> frozenset[str]:
    """Every document ``report`` draws on: the one rule of which scopes may see a report, in every store.

    Its quoted chunks' documents, and the documents that mention any member of
    its community or any of its key entities ("" for a chunk of no current
    document, which no scope reads). A report's title and key entities name its
    members, and its summary (an LLM's or GraphRAG's above all) says what they
    do; a scope lacking one of these documents would rank the report on words
    it may not read.

    Examples
    --------
    >>> from agrag_lab.kg.model import Entity, KnowledgeGraph
    >>> from agrag_lab.kg.reports import CommunityReport
    >>> kg = KnowledgeGraph.create([Entity("ent-a", "Ada", "Person", chunk_ids=("a#c0", "b#c0"))], [],
    ...                           chunk_documents={"a#c0": "a", "b#c0": "b"})
    >>> sorted(report_documents(CommunityReport("com-0", 0, "Ada", "", ("ent-a",), (), ("a#c0",)), None, kg))
    ['a', 'b']
    """
    docs = graph.chunk_documents
    chunks = list(report.chunk_ids)
    members = (*(community.members if community is not None else ()), *report.key_entities)
    for member in dict.fromkeys(members):
        entity = graph.entities.get(member)
        if entity is not None:
            chunks.extend(entity.chunk_ids)
    return frozenset(docs.get(c, "") for c in chunks)


def trim_entity(
    entity: Entity, scope: GraphScope | None, chunk_documents: Mapping[str, str], passageless: bool
) -> Entity | None:
    """``entity`` trimmed to ``scope``, or ``None`` if it is not visible: the one visibility rule of every store.

    ``chunk_documents`` maps (at least) the entity's chunk ids to their
    documents; ``passageless`` says the graph has no passages at all (then
    entities without chunks are visible, unscoped).

    Examples
    --------
    >>> e = Entity("ent-a", "Ada", "Person", ("Countess",), chunk_ids=("a#c0", "b#c0"), document_ids=("a", "b"),
    ...            forms=(("a", "Ada"), ("b", "Countess")))
    >>> trim_entity(e, GraphScope(document_ids={"a"}), {"a#c0": "a", "b#c0": "b"}, False).aliases
    ()
    >>> trim_entity(e, GraphScope(labels={"Place"}), {}, False) is None
    True
    """
    scope = scope or EVERYTHING
    if not scope.allows_label(entity.label):
        return None
    if not entity.chunk_ids:  # only a graph without passages (GraphML) shows such entities, unscoped
        return entity if passageless and scope.document_ids is None else None
    if scope.document_ids is None:
        return entity
    docs = chunk_documents
    allowed = scope.document_ids
    chunk_ids = tuple(c for c in entity.chunk_ids if docs.get(c) in allowed)
    if not chunk_ids:
        return None
    descriptions = tuple((c, t) for c, t in entity.descriptions if docs.get(c) in allowed)
    forms = tuple((d, f) for d, f in entity.forms if d in allowed)
    return replace(
        entity,
        aliases=tuple(sorted({f for _, f in forms} - {entity.name})),
        description=descriptions[0][1] if descriptions else "",
        chunk_ids=chunk_ids,
        history_chunk_ids=tuple(c for c in entity.history_chunk_ids if docs.get(c) in allowed),
        document_ids=tuple(d for d in entity.document_ids if d in allowed),
        descriptions=descriptions,
        forms=forms,
        claims=tuple(c for c in entity.claims if docs.get(c.chunk_id) in allowed),
    )


def trim_edge(
    edge: Edge, scope: GraphScope | None, chunk_documents: Mapping[str, str], passageless: bool, *, ends_visible: bool
) -> Edge | None:
    """``edge`` trimmed to ``scope``, or ``None`` if it is not visible (``ends_visible``: both ends are).

    Examples
    --------
    >>> edge = Edge("ent-a", "ent-b", "KNEW", ("a#c0", "b#c0"))
    >>> trim_edge(edge, GraphScope(document_ids={"b"}), {"a#c0": "a", "b#c0": "b"}, False, ends_visible=True).chunk_ids
    ('b#c0',)
    >>> trim_edge(edge, GraphScope(relation_types={"WROTE"}), {}, False, ends_visible=True) is None
    True
    """
    scope = scope or EVERYTHING
    if not scope.allows_type(edge.type) or not (edge.chunk_ids or passageless) or not ends_visible:
        return None
    if scope.document_ids is None:
        return edge
    docs, allowed = chunk_documents, scope.document_ids
    chunk_ids = tuple(c for c in edge.chunk_ids if docs.get(c) in allowed)
    if not chunk_ids:
        return None
    return replace(
        edge,
        chunk_ids=chunk_ids,
        history_chunk_ids=tuple(c for c in edge.history_chunk_ids if docs.get(c) in allowed),
        sentences=tuple((c, s) for c, s in edge.sentences if docs.get(c) in allowed),
    )
