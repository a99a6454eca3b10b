"""The spec's entity API of :class:`~agrag_lab.retrieval.engine.SearchEngine`: ``find_entity``,
``list_relationship_types``, ``traverse``.

:class:`EntityAPI` is held by ``SearchEngine`` (composed, not inherited): it reads
the engine's stores, embedder, settings and tracer through the narrow
:class:`EngineParts` protocol, taking the stores once per call
(:meth:`EngineParts.stores`), and holds what the entity API adds to recipe search,
apart from the search orchestration in :mod:`agrag_lab.retrieval.engine`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, Protocol

import numpy as np

from agrag_lab.errors import (
    AllRetrievalMethodsFailedError,
    EmbedderError,
    ModelError,
    ScopeDeniedError,
    SearchArgumentError,
)
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.fusion import rrf
from agrag_lab.retrieval.methods import REGISTRY, MethodRequest, embed_query
from agrag_lab.retrieval.resolve import exact_match, nearest_match
from agrag_lab.retrieval.run import SearchResult
from agrag_lab.retrieval.steps.communities import COMMUNITY_SOURCE, community_list, visible_memberships
from agrag_lab.retrieval.steps.walk import walk_types
from agrag_lab.retrieval.trace import GraphContext, ItemInfo, Reach

if TYPE_CHECKING:
    from agrag_lab.embedding import Embedder
    from agrag_lab.retrieval.engine_store import EngineGraphStore
    from agrag_lab.retrieval.settings import RetrievalSettings
    from agrag_lab.retrieval.tracing import Tracer
    from agrag_lab.storage.vectors import VectorStore

__all__ = ["FIND_ENTITY_CANDIDATES", "TRAVERSE_SOURCE", "EngineParts", "EntityAPI", "TraversalDirection"]

TraversalDirection = Literal["out", "in", "both"]
#: Entity hits ``find_entity`` considers, best first, before it says nothing matched.
FIND_ENTITY_CANDIDATES = 10
#: Source name of the neighbours in ``traverse(community_expand=True)``'s fusion.
TRAVERSE_SOURCE = "traverse"


class EngineParts(Protocol):
    """What the entity API reads of its engine (:class:`~agrag_lab.retrieval.engine.SearchEngine` has it).

    Attributes
    ----------
    embedder : Embedder
        Embeds the names to resolve.
    settings : RetrievalSettings
        ``rrf_k`` and ``entity_match``.
    tracer : Tracer
        Receives the spans.
    """

    embedder: Embedder
    settings: RetrievalSettings
    tracer: Tracer

    def stores(self) -> tuple[EngineGraphStore, VectorStore | None]:
        """The graph and vector stores to read now (taken once per call)."""
        ...


class EntityAPI:
    """``find_entity``, ``list_relationship_types`` and ``traverse`` over an engine's stores (held by ``SearchEngine``).

    Parameters
    ----------
    engine : EngineParts
        The engine whose stores, embedder, settings and tracer it reads (at each call, so a
        change of the engine's settings or tracer applies at once).
    """

    def __init__(self, engine: EngineParts) -> None:
        self._engine = engine

    def find_entity(self, name: str, *, filters: SearchFilters | None = None) -> SearchResult | None:
        """Resolve a named entity to its top search hit, or None.

        Entity search runs with ``filters`` applied inside it (a
        ``filters.labels`` value chooses which labels are searched), so an
        entity that exists only outside the filters is never a candidate and
        resolves to None, the same as one that does not exist. A candidate
        counts as found when one of its names or aliases (as the filters show
        it) *is* ``name`` (case, diacritics and punctuation folded), else when
        the cosine similarity of ``name`` with the nearest of its names is at
        least ``settings.entity_match`` (``RETRIEVAL_ENTITY_MATCH``, default
        0.6); see :mod:`agrag_lab.retrieval.resolve`. The result's ``score``
        is that similarity (1.0 for an equal name).

        Parameters
        ----------
        name : str
            The entity's name (or an alias, a title, a short form).
        filters : SearchFilters, optional
            The scope to resolve within.

        Returns
        -------
        SearchResult or None
            The entity, or None when nothing matched (a blank name matches nothing).

        Raises
        ------
        AllRetrievalMethodsFailedError
            Entity search failed in both its legs.
        EmbedderError
            No name is equal and the names could not be embedded to compare them.
        """
        if not isinstance(name, str) or not name.strip():
            return None
        filters = filters or SearchFilters()
        engine = self._engine
        store, vectors = engine.stores()
        with engine.tracer.span("find_entity", query=name):
            vector = embed_query(engine.embedder, name, engine.tracer)
            try:
                with engine.tracer.span("method.entity"):
                    result = REGISTRY["entity"].search(MethodRequest(
                        name, vector, FIND_ENTITY_CANDIDATES, filters, store, vectors, engine.settings.rrf_k,
                        engine.embedder))
            except Exception as exc:
                raise AllRetrievalMethodsFailedError({"entity": exc}) from exc
            with engine.tracer.span("match"):
                candidates = [(h.key, store.entity_names(h.key, filters)) for h in result.hits]
                candidates = [(key, names) for key, names in candidates if names]
                match = exact_match(name, candidates)
                if match is None and candidates:
                    match = nearest_match(
                        vector.get(), [key for key, _ in candidates], self._name_vectors(candidates),
                        threshold=engine.settings.entity_match,
                    )
            if match is None:
                return None
            item = store.item_info(match.key, filters)
            return SearchResult.from_info(item, match.similarity, 1) if item is not None else None

    def _name_vectors(self, candidates: Sequence[tuple[str, Sequence[str]]]) -> dict[str, np.ndarray]:
        """The embeddings of every candidate's names, one row each, by candidate key."""
        texts = [n for _, names in candidates for n in names]
        try:
            rows = self._engine.embedder.embed(texts)
        except ModelError:
            raise
        except Exception as exc:
            raise EmbedderError(
                f"the entity names could not be embedded to compare them ({type(exc).__name__}: {exc})"
            ) from exc
        out: dict[str, np.ndarray] = {}
        at = 0
        for key, names in candidates:
            out[key] = rows[at : at + len(names)]
            at += len(names)
        return out

    def list_relationship_types(
        self,
        seed: SearchResult,
        *,
        relation_type_filter: str | None = None,
        direction: TraversalDirection = "both",
        filters: SearchFilters | None = None,
    ) -> list[str]:
        """The distinct relationship types directly attached to ``seed`` (depth 1)."""
        store, _ = self._engine.stores()
        with self._engine.tracer.span("list_relationship_types", seed=seed.id):
            types = store.relationship_types(seed.id, direction, store.graph_scope(filters))
            if filters is not None and filters.relation_types is not None:
                types = [t for t in types if t in filters.relation_types]
            if relation_type_filter is not None:
                types = [t for t in types if t == relation_type_filter]
            return types

    def traverse(
        self,
        seed: SearchResult,
        *,
        relation_type: str | None = None,
        direction: TraversalDirection = "both",
        depth: int = 1,
        limit: int = 10,
        community_expand: bool = False,
        community_top_k: int = 3,
        filters: SearchFilters | None = None,
    ) -> list[SearchResult]:
        """Expand one resolved entity into its neighbours, with the reports of its communities if asked.

        Neighbours come in hop order (nearest first), at most ``limit``; the
        filters' ``relation_types`` limit the hops, and their documents,
        properties and ``labels`` constrain the neighbours returned (the
        walk may pass through an entity of another label to reach one of
        the labels asked for). With ``community_expand`` the reports of up to
        ``community_top_k`` communities the seed belongs to are fused with the
        neighbours by RRF (``settings.rrf_k``): each result's ``score`` is its
        fused score.

        Each neighbour carries its ``hop`` (distance from the seed) and its
        ``path`` (the relations followed, as :class:`~agrag_lab.kg.paths.PathStep`),
        so a view draws the walk from the results alone (no hop decoded from
        a score, no second walk); a community report has ``hop=None`` and no path.

        Raises
        ------
        ScopeDeniedError
            ``relation_type`` is outside ``filters.relation_types``.
        SearchArgumentError
            ``seed`` is not a :class:`SearchResult` (``None``: ``find_entity`` found nothing), or
            ``depth`` or ``limit`` below 1.
        """
        if not isinstance(seed, SearchResult):
            raise SearchArgumentError(
                "seed is None: find_entity found no entity of that name (check the name, or search with the "
                "ENTITY recipe)" if seed is None else
                f"seed must be a SearchResult of an entity (from find_entity or a search), not {type(seed).__name__}"
            )
        filters = filters or SearchFilters()
        if relation_type is not None and filters.relation_types is not None and relation_type not in filters.relation_types:
            raise ScopeDeniedError(
                f"relation type {relation_type!r} is outside the scope's allowlist "
                f"{sorted(filters.relation_types)}; a relation_type argument cannot widen it"
            )
        if depth < 1 or limit < 1:
            raise SearchArgumentError(f"depth and limit must be >= 1 (got depth={depth}, limit={limit})")
        engine = self._engine
        store, _ = engine.stores()
        with engine.tracer.span("traverse", seed=seed.id, depth=depth, limit=limit):
            types = (relation_type,) if relation_type else walk_types((), filters)
            labels = filters.labels
            with engine.tracer.span("reach"):
                reached = store.reach(
                    seed.id, depth=depth, limit=None if labels is not None else limit, relation_types=types,
                    direction=direction, filters=filters,
                )
                neighbours: list[tuple[ItemInfo, Reach]] = []
                for r in reached:
                    item = store.item_info(r.entity, filters)
                    if item is not None and (labels is None or item.label in labels):
                        neighbours.append((item, r))
                    if len(neighbours) == limit:
                        break
            if not community_expand:
                return [
                    SearchResult.from_info(item, 1.0 / (1 + r.hop), rank, hop=r.hop, path=r.path)
                    for rank, (item, r) in enumerate(neighbours, 1)
                ]
            with engine.tracer.span("communities", top_k=community_top_k):
                ctx = GraphContext(memberships=visible_memberships(store, [seed.id], filters))
                infos = {item.key: item for item, _ in neighbours}
                reports = []
                for add in community_list([seed.id], ctx, community_top_k):
                    report = store.item_info(add.community, filters)
                    if report is not None:
                        infos[report.key] = report
                        reports.append(report.key)
                fused = rrf(
                    {TRAVERSE_SOURCE: [item.key for item, _ in neighbours], COMMUNITY_SOURCE: reports},
                    k=engine.settings.rrf_k,
                )
                reach_of = {item.key: r for item, r in neighbours}
                return [
                    SearchResult.from_info(
                        infos[entry.key], entry.score, rank,
                        hop=reach_of[entry.key].hop if entry.key in reach_of else None,
                        path=reach_of[entry.key].path if entry.key in reach_of else (),
                    )
                    for rank, entry in enumerate(fused.items, 1)
                ]
