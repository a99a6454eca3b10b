"""find_entities and explore: the knowledge graph, seen through the session's scope.

Rules
-----
* The graph is read with a :class:`~agrag_lab.kg.scope.GraphScope` on the
  searchable documents: an entity is visible only if a current passage of a
  document in scope mentions it, and what is shown of it (aliases,
  description, supporting passages) comes from those documents only. Its
  shown ``name`` is one it was found under in scope.
* find_entities runs a keyword search over entity names, aliases and relation
  sentences, and a similarity search over entity embeddings, fused with RRF
  (k = 60). The
  records of one entity (its main record and its relation facets,
  ``<entity>#r<n>``) count once, at their best rank. Each entity comes with
  up to :data:`MAX_PASSAGES` supporting passages in scope.
* The shared entity keyword index holds names, aliases and relation
  sentences found in *every* document, so a mask cannot hide a word that
  only an out-of-scope document contributed. A restricted session therefore
  searches its own keyword index (:func:`build_entity_view`), built once
  from what the scope shows: names, aliases and typed relations in scope.
  An unrestricted session uses the shared index.
* The stored entity vectors average passages of every document (or embed a
  description written from all of them), so a restricted session ranks in
  its similarity leg by vectors made of each visible entity's in-scope
  passages only (:func:`~agrag_lab.kg.scoped_entities.scoped_entity_dense`,
  passage vectors read by id from the vector store); an unrestricted session
  searches the stored records. A word found only outside the scope moves no
  scoped ranking, in either leg.
* explore walks relations breadth-first from an entity (given by id or by
  name), within the scope and the relation types asked for. Each walked
  relation is an ``assertion`` when a current passage in scope supports it
  (its ids and sentences are given), else a ``path``: a connection with no
  visible supporting passage.
* An entity outside the scope is reported exactly like one that does not
  exist; so is a visible entity asked for by a name that only documents
  outside the scope use.

Examples
--------
>>> from agrag_lab.kg.extract.build import Edge
>>> e = Edge("ent-ada", "ent-babbage", "WORKED_WITH", ("a@0123456789ab#c0",), (), (("a@0123456789ab#c0", "Ada worked with Babbage."),))
>>> classify_edge(e, frozenset({"a"}))
('assertion', (('a@0123456789ab#c0', 'Ada worked with Babbage.'),))
>>> classify_edge(e, frozenset({"b"}))
('path', ())
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Protocol, get_args

import numpy as np

from agrag_lab.errors import EvidenceIdError, NotFoundError
from agrag_lab.evidence.access import document_of, parse_id
from agrag_lab.evidence.builder_ids import entity_alias
from agrag_lab.evidence.errors import EvidenceArgumentError
from agrag_lab.evidence.results import (
    EdgeKind,
    EntitiesResult,
    EntityHit,
    EntityRef,
    ExploreEdge,
    ExploreResult,
    Passage,
    Reached,
    Step,
    Support,
)
from agrag_lab.evidence.search import check_limit, check_query, fuse, run_legs, status_of
from agrag_lab.evidence.session_api import Scoped
from agrag_lab.evidence.snippets import make_snippet
from agrag_lab.kg.extract.build import Edge, Entity
from agrag_lab.kg.facets import best_per_owner
from agrag_lab.kg.graph_store import Direction, GraphStore
from agrag_lab.kg.scope import GraphScope
from agrag_lab.kg.scoped_entities import (
    EntityView,
    build_entity_view,
    display_name,
    scoped_entity_dense,
    scoped_relation_sentences,
)
from agrag_lab.kg.text import match_key

if TYPE_CHECKING:
    from collections.abc import Callable


__all__ = [
    "FACETS_PER_ENTITY",
    "MAX_DEPTH",
    "MAX_PASSAGES",
    "EntityView",
    "best_per_owner",
    "build_entity_view",
    "classify_edge",
    "display_name",
    "explore",
    "find_entities",
    "resolve_entity",
    "scoped_relation_sentences",
]

#: Supporting passages given per entity.
MAX_PASSAGES = 3
#: The deepest walk ``explore`` takes.
MAX_DEPTH = 4
#: Records asked for per wanted entity (an entity has a main record and relation facets).
FACETS_PER_ENTITY = 4


class EntityFinding(Scoped, Protocol):
    """What the entity functions read of their session: the scope and the entities it shows."""

    def entity_view(self) -> EntityView | None:
        """Visible entities and their scoped keyword index (None on the fast path)."""

    def visible_entity_ids(self) -> frozenset[str] | None:
        """Ids of the entities the graph scope shows (None on the fast path)."""

    def vector_query(
        self, collection: str, vector: np.ndarray, limit: int, key: str, allowed: frozenset[str] | None
    ) -> list[tuple[str, float]]:
        """Nearest records whose ``key`` is in ``allowed``."""


def _ref(entity: Entity) -> EntityRef:
    return EntityRef(entity.id, display_name(entity), entity.label)


def classify_edge(edge: Edge, searchable: frozenset[str]) -> tuple[EdgeKind, tuple[tuple[str, str], ...]]:
    """``("assertion", supports)`` if a passage in ``searchable`` documents supports ``edge``, else ``("path", ())``.

    Supports are ``(chunk id, sentence)`` from current supporting chunks only.
    """
    sentences = dict(edge.sentences)
    supports = tuple((c, sentences.get(c, "")) for c in edge.chunk_ids if document_of(c) in searchable)
    return ("assertion", supports) if supports else ("path", ())


def _passages(session: EntityFinding, entity: Entity) -> tuple[Passage, ...]:
    out: list[Passage] = []
    searchable = session.resolved.searchable
    for chunk_id in entity.chunk_ids:
        if len(out) == MAX_PASSAGES:
            break
        if document_of(chunk_id) not in searchable:
            continue
        try:
            chunk = session.readable_chunk(parse_id(chunk_id))
        except EvidenceIdError:
            continue
        if chunk is not None:
            out.append(Passage(chunk.id, make_snippet(chunk.text, display_name(entity))))
    return tuple(out)


def find_entities(session: EntityFinding, query: str, limit: int = 10) -> EntitiesResult:
    """Entities whose names match ``query`` or whose embeddings are close to it.

    Parameters
    ----------
    session : EntityFinding
        Only entities visible in its scope are searched.
    query : str
        A name, or a description of what is wanted.
    limit : int
        Maximum number of entities, 1..1000.

    Returns
    -------
    EntitiesResult
        Entities best first (RRF of the name and embedding legs; an entity whose name, in scope, or
        whose builder id is the query comes first), each with
        up to three supporting passages in scope, and the status.
    """
    check_query(query)
    check_limit(limit)
    depth = max(limit + 1, 2 * limit)
    store = session.graph.graph_store
    visible = session.visible_entity_ids()

    records = depth * FACETS_PER_ENTITY

    def keyword() -> list[tuple[str, float]]:
        view = session.entity_view()
        index = session.graph.keyword_index("entities") if view is None else view.keyword
        return best_per_owner(index.search(query, records))[:depth]

    def vector() -> list[tuple[str, float]]:
        if visible is not None and not visible:
            return []
        embedding = session.graph.embedder.embed_query(query)
        if visible is not None:  # the stored vectors average every document's passages: the scope's own
            return scoped_entity_dense(store, session.graph_scope(), session.graph.vector_store, embedding, depth)
        found = session.vector_query("entities", embedding, records, "item_id", visible)
        return best_per_owner(found)[:depth]

    legs_wanted: list[tuple[str, Callable[[], list[tuple[str, float]]]]] = [("keyword", keyword), ("vector", vector)]
    results, legs, errors = run_legs(legs_wanted)
    ranked = fuse(results, "hybrid")
    # an entity named exactly (in any script), or by its builder's id, comes first
    named = resolve_entity(store, query.strip(), session.graph_scope())
    ours = named.id if named is not None else entity_alias(session, query)
    if ours is not None and (visible is None or ours in visible):
        top = ranked[0][1] if ranked else 1.0
        before = next((r[2] for r in ranked if r[0] == ours), {})
        ranked = [(ours, top, before), *(r for r in ranked if r[0] != ours)]
    truncated = len(ranked) > limit
    scope = session.graph_scope()
    hits: list[EntityHit] = []
    for key, score, ranks in ranked[:limit]:
        entity = store.entity(key, scope)
        if entity is None:  # the queries were filtered; this only guards a graph rebuilt meanwhile
            continue
        hits.append(
            EntityHit(
                id=entity.id,
                name=display_name(entity),
                label=entity.label,
                description=entity.description,
                aliases=tuple(a for a in entity.aliases if a != display_name(entity)),
                rank=len(hits) + 1,
                score=float(score or 0.0),
                passages=_passages(session, entity),
                keyword_rank=ranks.get("keyword"),
                vector_rank=ranks.get("vector"),
                claims=entity.claims,
            )
        )
    failed = [leg for leg in legs if leg.status == "failed"]
    message = f"{len(hits)} entit{'y' if len(hits) == 1 else 'ies'}"
    if failed:
        message += "; " + ", ".join(f"the {leg.name} leg failed ({leg.error})" for leg in failed)
    if truncated:
        message += f"; more candidates matched than the limit of {limit}"
    return EntitiesResult(
        query, limit, status_of(failed=bool(errors), truncated=truncated), tuple(hits), tuple(legs), truncated, message
    )


def resolve_entity(store: GraphStore, entity: str, scope: GraphScope) -> Entity | None:
    """The visible entity named by an id, or by a name or alias found *in scope*.

    The graph's name tables hold names from every document; a name that only
    an out-of-scope document uses must not find the entity (that would confirm
    it), so a match by name is kept only if the name is one the scope shows.
    """
    found = store.entity(entity, scope)
    if found is not None:
        return found
    found = store.entity_by_name(entity, scope)
    if found is None:
        return None
    shown = {f for _, f in found.forms} or {found.name}
    return found if match_key(entity) in {match_key(n) for n in shown} else None


def _unknown_entity(entity: str) -> str:
    return (
        f"unknown entity {entity!r}: no entity with this id or name can be seen in this session; "
        "use an id or name from find_entities results"
    )


def explore(
    session: EntityFinding,
    entity: str,
    depth: int = 1,
    relation_types: Collection[str] | None = None,
    limit: int = 20,
    direction: Direction = "both",
) -> ExploreResult:
    """Follow relations outward from ``entity``, marking each edge assertion or path.

    Parameters
    ----------
    session : EntityFinding
        The walk sees only entities and relations visible in its scope.
    entity : str
        An entity id (``ent-...``) or a name or alias.
    depth : int
        Hops to walk, 1..4.
    relation_types : collection of str, optional
        Only these relation types (``None``: all).
    limit : int
        Maximum number of entities reached, 1..1000.
    direction : {"both", "out", "in"}
        Which way relations are followed from each entity.

    Returns
    -------
    ExploreResult
        The start entity, one edge per reached entity (the relation it was
        reached by), the reached entities with their paths, and whether the
        walk was cut at ``limit``.

    Raises
    ------
    NotFoundError
        The entity is unknown or not visible in the scope (same message).
    EvidenceArgumentError
        ``depth``, ``limit`` or ``direction`` is out of range.
    """
    check_limit(depth, "depth", MAX_DEPTH)
    check_limit(limit)
    if direction not in get_args(Direction):
        raise EvidenceArgumentError(f"direction must be one of both, out, in; got {direction!r}")
    if not isinstance(entity, str) or not entity.strip():
        raise EvidenceArgumentError(f"entity must be an entity id or name, got {entity!r}")
    types = {relation_types} if isinstance(relation_types, str) else relation_types
    store = session.graph.graph_store
    scope = session.graph_scope()
    start = resolve_entity(store, entity, scope)
    if start is None and (ours := entity_alias(session, entity)) is not None:  # a builder's id
        start = store.entity(ours, scope)
    if start is None:
        raise NotFoundError(_unknown_entity(entity))
    steps = store.bfs([start.id], depth, limit + 1, types, direction, scope)
    truncated = len(steps) > limit
    searchable = session.resolved.searchable
    refs: dict[str, EntityRef] = {start.id: _ref(start)}

    def ref(entity_id: str) -> EntityRef:
        if entity_id not in refs:
            found = store.entity(entity_id, scope)
            refs[entity_id] = _ref(found) if found is not None else EntityRef(entity_id, entity_id, "")
        return refs[entity_id]

    edges: list[ExploreEdge] = []
    reached: list[Reached] = []
    for step in steps[:limit]:
        path = tuple(Step(a, t, b) for a, t, b in step.path)
        reached.append(Reached(ref(step.entity_id), step.hop, path))
        if not step.edges:
            continue
        edge = step.edges[-1]
        kind, supports = classify_edge(edge, searchable)
        edges.append(
            ExploreEdge(
                ref(edge.source),
                edge.type,
                ref(edge.target),
                step.hop,
                kind,
                tuple(Support(c, s) for c, s in supports[:MAX_PASSAGES]),
            )
        )
    return ExploreResult(_ref(start), depth, tuple(edges), tuple(reached), truncated, start.claims)
