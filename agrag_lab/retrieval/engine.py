"""``SearchEngine``: retrieval's public entry point, independent of ``Graph``.

Follows ``spec/search-engine-api.txt``: the engine fans a query out to every
method a recipe names (concurrently, each with a timeout), fuses the lists by
RRF, optionally walks the graph from the fused entity hits and fuses the walk
in a second time, optionally adds community reports, optionally re-ranks, and
cuts to the recipe's limit. :meth:`SearchEngine.run` returns a
:class:`~agrag_lab.retrieval.run.SearchRun` whose trace records every step.

Failure isolation: the query is embedded once; when that fails, or a vector
store is unreachable, only the legs that need it fail. Each hybrid method
answers from its keyword leg, the run's trace says ``partial`` and names
the failed method legs and why (:meth:`SearchTrace.failures
<agrag_lab.retrieval.trace.SearchTrace.failures>`). Every method failing
raises :class:`~agrag_lab.errors.AllRetrievalMethodsFailedError`.

Every step opens a span on the engine's tracer (see
:mod:`agrag_lab.retrieval.tracing`); the methods run in a thread pool in a
copy of the caller's :mod:`contextvars` context, so their spans nest under
``search``.
"""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Protocol

from agrag_lab.embedding import Embedder, warm
from agrag_lab.errors import (
    AllRetrievalMethodsFailedError,
    SearchArgumentError,
    SearchTimeoutError,
    UnknownRecipeMethodError,
)
from agrag_lab.kg.pagerank import PRIOR_PASSAGES, WalkMethod, WalkScores
from agrag_lab.kg.schema import GENERIC, GraphSchema
from agrag_lab.kg.store import GraphScope
from agrag_lab.recipes import Recipe
from agrag_lab.retrieval.entity_api import FIND_ENTITY_CANDIDATES as FIND_ENTITY_CANDIDATES
from agrag_lab.retrieval.entity_api import TRAVERSE_SOURCE as TRAVERSE_SOURCE
from agrag_lab.retrieval.entity_api import EntityAPI, TraversalDirection
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.methods import (
    REGISTRY,
    MethodResult,
    QueryVector,
    SearchableGraphStore,
    compile_filters,
    dense_search,
)
from agrag_lab.retrieval.passage_order import rank_supporting
from agrag_lab.retrieval.pipeline import assemble
from agrag_lab.retrieval.rerank import CrossEncoderReranker, fallback_reason
from agrag_lab.retrieval.run import SearchResult, SearchRun
from agrag_lab.retrieval.settings import RetrievalSettings
from agrag_lab.retrieval.trace import GraphContext, ItemInfo, MethodTrace, Outcome, Reach, SearchTrace, WalkAddition
from agrag_lab.retrieval.tracing import NullTracer, RecordingTracer, Tee, Tracer
from agrag_lab.storage.vectors import VectorStore

log = logging.getLogger(__name__)

#: Cutoff of the hop distances the graph-distance re-rank reads.
DISTANCE_CUTOFF = 3
#: Entity hits a PageRank walk starts from when the query names none of them.
FALLBACK_SEEDS = 3


class EngineGraphStore(SearchableGraphStore, Protocol):
    """What the engine needs of a graph store beyond search."""

    def reach(
        self, seed: str, *, depth: int, limit: int | None, relation_types: Sequence[str] | None,
        direction: TraversalDirection, filters: SearchFilters | None,
    ) -> tuple[Reach, ...]: ...

    def distances(self, seed: str, cutoff: int, filters: SearchFilters | None) -> dict[str, int]: ...

    def names_entity(self, text: str, entity_id: str, filters: SearchFilters | None = None) -> bool: ...

    def entity_names(self, entity_id: str, filters: SearchFilters | None = None) -> tuple[str, ...]: ...

    def passage_walk(
        self, seeds: Sequence[str], prior: Sequence[str], *, restart: float, prior_weight: float,
        relation_types: Sequence[str] | None, direction: TraversalDirection, filters: SearchFilters | None,
        method: WalkMethod = "push",
    ) -> WalkScores: ...

    def memberships(self, entity_ids: Sequence[str]) -> dict[str, tuple[str, ...]]: ...

    def mentioned_entities(self, chunk_id: str) -> tuple[str, ...]: ...

    def community_members(self, community_id: str) -> tuple[str, ...]: ...

    def item_info(self, key: str, filters: SearchFilters | None = None) -> ItemInfo | None: ...

    def graph_scope(self, filters: SearchFilters | None) -> GraphScope: ...

    def relationship_types(
        self, entity_id: str, direction: TraversalDirection = "both", scope: GraphScope | None = None
    ) -> list[str]: ...


_POOL = ThreadPoolExecutor(max_workers=8, thread_name_prefix="agrag-method")
#: The steps after the methods (walk, communities, re-rank, fusion) run here, so that the caller
#: waits for them no longer than the whole-run deadline.
_STEPS = ThreadPoolExecutor(max_workers=8, thread_name_prefix="agrag-steps")


class _Progress:
    """Which step of a run is running, and whether its caller stopped waiting (the deadline passed)."""

    def __init__(self, step: str) -> None:
        self.step = step
        self.cancelled = False

    def enter(self, step: str) -> None:
        """Record that ``step`` starts; a run whose caller gave up stops here."""
        if self.cancelled:
            raise SearchTimeoutError(self.step, 0.0)
        self.step = step


class SearchEngine(EntityAPI):
    """Run recipes over a graph store (and optionally a vector store).

    Parameters
    ----------
    graph_store : EngineGraphStore
        Always required: native search when ``vector_store`` is None, and BFS.
    embedder : Embedder
        Produces query vectors. It is warmed (its model loaded) here, when the
        engine opens: :attr:`model_load_seconds` says how long that took, and
        no search's time includes it. A model that cannot be loaded or run
        fails the dense legs of each search (logged, ``partial`` on the
        trace); the keyword legs still answer.
    vector_store : VectorStore, optional
        When set, entity, chunk and community search run there.
    settings : RetrievalSettings, optional
        Defaults from the environment (``RETRIEVAL_RRF_K`` ...).
    entity_labels : sequence of str, optional
        Checked input only: must name exactly the labels ``graph_schema``
        declares. Ignored when a ``vector_store`` is configured (the spec).
    graph_schema : GraphSchema, optional
        ``GENERIC`` when None.
    tracer : Tracer, optional
        Receives the spans; None records none (the trace keeps timings anyway).
    refresh : callable, optional
        Called at the start of every run; returns the graph store and vector
        store to search now (a long-lived reader reopens them when another
        process completed an ingest: :meth:`Graph.refresh <agrag_lab.graph.Graph.refresh>`).

    Raises
    ------
    ValueError
        ``entity_labels`` does not name exactly the labels ``graph_schema``
        declares (checked only without a ``vector_store``).
    """

    def __init__(
        self,
        *,
        graph_store: EngineGraphStore,
        embedder: Embedder,
        vector_store: VectorStore | None = None,
        settings: RetrievalSettings | None = None,
        entity_labels: Sequence[str] | None = None,
        graph_schema: GraphSchema | None = None,
        tracer: Tracer | None = None,
        refresh: Callable[[], tuple[EngineGraphStore, VectorStore | None]] | None = None,
    ) -> None:
        self._refresh = refresh
        self._schema = graph_schema if graph_schema is not None else GENERIC
        if vector_store is None and entity_labels is not None and set(entity_labels) != set(self._schema.entity_labels):
            raise SearchArgumentError(
                f"entity_labels {sorted(entity_labels)} must name exactly the labels the graph "
                f"schema declares {sorted(self._schema.entity_labels)}; omit entity_labels and "
                "let the schema drive both"
            )
        self.graph_store = graph_store
        self.embedder = embedder
        self.vector_store = vector_store
        self.settings = settings if settings is not None else RetrievalSettings.from_env()
        self.tracer: Tracer = tracer if tracer is not None else NullTracer()
        self._rerankers: dict[str, CrossEncoderReranker] = {}
        self._lock = threading.Lock()
        #: Seconds spent loading the embedding model when this engine opened (0.0 if it was loaded, or
        #: failed to load): a step of its own, so that no search's time includes it.
        self.model_load_seconds = 0.0
        try:
            self.model_load_seconds = warm(embedder)
        except Exception as exc:  # a broken model fails the dense legs of each search, not the engine
            log.warning(
                "the embedding model could not be loaded (%s); searches answer from their keyword legs only, "
                "marked partial", exc,
            )

    @property
    def graph_schema(self) -> GraphSchema:
        """The schema retrieval is grounded in, GENERIC when none was given."""
        return self._schema

    # -- search -------------------------------------------------------------------
    def search(self, query: str, recipe: Recipe, *, filters: SearchFilters | None = None) -> list[SearchResult]:
        """Run ``recipe``'s methods, fuse, expand, and optionally rerank.

        Returns up to ``recipe.limit`` results, best first. See :meth:`run`.
        """
        return list(self.run(query, recipe, filters=filters).results)

    def run(self, query: str, recipe: Recipe, *, filters: SearchFilters | None = None) -> SearchRun:
        """Like :meth:`search`, but returns the results with their full trace.

        A method that fails, or one of its legs (the query could not be
        embedded, the vector store is unreachable), leaves its results out;
        the trace's ``status`` is then ``partial`` and ``failures()`` says
        which and why.

        Raises
        ------
        SearchArgumentError
            The query is empty, or ``recipe`` is not a :class:`~agrag_lab.recipes.Recipe` (a name: ``recipes.get``).
        UnknownRecipeMethodError
            The recipe names a method that is not in the registry.
        AllRetrievalMethodsFailedError
            Every method failed; ``causes`` holds each exception.
        """
        if not isinstance(recipe, Recipe):
            how = f"recipes.get({recipe!r})" if isinstance(recipe, str) else "recipes.get(NAME_OR_TOML_PATH)"
            raise SearchArgumentError(
                f"recipe must be a Recipe, not {type(recipe).__name__}: pass recipes.HYBRID (or another of "
                f"agrag_lab.recipes) or {how}"
            )
        unknown = [m for m in recipe.methods if m not in REGISTRY]
        if unknown:
            raise UnknownRecipeMethodError(
                f"recipe {recipe.name!r} names unknown method(s) {unknown}; the registry has "
                f"{sorted(REGISTRY)}"
            )
        if not isinstance(query, str) or not query.strip():
            raise SearchArgumentError("the query is empty; give the question or keywords to search for")
        filters = filters or SearchFilters()
        candidates = self.settings.candidates_for(recipe.candidates)
        recorder = RecordingTracer()
        tracer = Tee(self.tracer, recorder)
        started = time.perf_counter()
        if self._refresh is not None:  # the stores of the committed state (another process may have ingested)
            store, vectors = self._refresh()
            self.graph_store = store
            if self.vector_store is not None:
                self.vector_store = vectors
        stamp = getattr(self.graph_store, "index_stamp", None)
        before = stamp() if callable(stamp) else None
        warnings = self._index_warnings()
        deadline = started + self.settings.run_timeout
        fusion_k = recipe.fusion.k if recipe.fusion.k is not None else self.settings.rrf_k
        with tracer.span("search", query=query, recipe=recipe.name):
            vector = self._embed(query, tracer)
            phase = time.perf_counter()  # the concurrent phase: its wall time against the slowest method
            methods = self._run_methods(query, vector, recipe, candidates, filters, tracer, deadline)
            methods_seconds = time.perf_counter() - phase
            progress = _Progress("context")

            def later_steps() -> tuple[GraphContext, dict[str, ItemInfo], Outcome]:
                with tracer.span("context"):
                    context, items = self._context(query, vector, methods, recipe, filters, tracer, progress)
                progress.step = "fusion"
                kinds = {key: info.kind for key, info in items.items()}
                outcome = assemble(
                    methods, context, kinds, recipe, k=fusion_k,
                    weights=dict(recipe.fusion.weights), convention=recipe.fusion.convention, tracer=tracer,
                )
                return context, items, outcome

            future = _STEPS.submit(contextvars.copy_context().run, later_steps)
            try:
                context, items, outcome = future.result(timeout=max(0.0, deadline - time.perf_counter()))
            except FutureTimeout:
                progress.cancelled = True  # the steps stop at their next check; the caller is answered now
                raise SearchTimeoutError(progress.step, self.settings.run_timeout) from None
        recipe_data = recipe.to_dict()
        recipe_data["candidates"] = candidates
        recipe_data["fusion"] = {**recipe_data["fusion"], "k": fusion_k}
        spans = [(span.name, span.seconds) for span in recorder.spans]
        spans.insert(len(spans) - 1, ("methods", methods_seconds))
        trace = SearchTrace(
            query, recipe_data, filters.to_dict(), tuple(methods), context, items, outcome,
            time.perf_counter() - started, tuple(spans),
            # before and after, and whether the index moved in between: every run that overlaps a sync says so;
            # and a re-rank that fell back to graph distance says so
            tuple(dict.fromkeys(warnings + self._index_warnings() + self._index_changes(before)
                                + ((context.rerank_fallback,) * bool(context.rerank_fallback)))),
        )
        return SearchRun.from_trace(trace)

    def _index_warnings(self) -> tuple[str, ...]:
        """What the graph store says a reader must know about its index now (e.g. it is mid-sync)."""
        tell = getattr(self.graph_store, "index_warnings", None)
        return tuple(tell()) if callable(tell) else ()

    def _index_changes(self, before: object) -> tuple[str, ...]:
        """A warning when the index changed (or was mid-sync) since ``before`` was stamped."""
        tell = getattr(self.graph_store, "index_changes", None)
        return tuple(tell(before)) if callable(tell) and before is not None else ()

    def _embed(self, text: str, tracer: Tracer) -> QueryVector:
        """The query vector, or why it could not be made (the legs that need it fail, not the search)."""
        try:
            with tracer.span("embed"):
                return QueryVector(self.embedder.embed_query(text))
        except Exception as exc:  # a model failure must not fail the keyword legs
            log.warning("the query could not be embedded, the dense legs will fail: %s", exc)
            return QueryVector.failed(exc)

    def _run_methods(
        self, query: str, vector: QueryVector, recipe: Recipe, candidates: int, filters: SearchFilters,
        tracer: Tracer, run_deadline: float | None = None,
    ) -> list[MethodTrace]:
        futures: dict[str, tuple[Future[MethodResult], float]] = {}
        for name in recipe.methods:
            method = REGISTRY[name]

            def call(method: Any = method) -> MethodResult:
                with tracer.span(f"method.{method.name}"):
                    result: MethodResult = method.search(
                        query, vector, candidates, filters,
                        graph_store=self.graph_store, vector_store=self.vector_store, k=self.settings.rrf_k,
                    )
                    return result

            # each method runs in a copy of this context: the open span travels with it
            futures[name] = (_POOL.submit(contextvars.copy_context().run, call), time.perf_counter())
        deadline = time.perf_counter() + self.settings.method_timeout
        whole_run = run_deadline is not None and run_deadline < deadline  # the run's deadline comes first
        if run_deadline is not None and run_deadline < deadline:
            deadline = run_deadline
        traces: list[MethodTrace] = []
        causes: dict[str, BaseException] = {}
        for name, (future, start) in futures.items():
            try:
                result = future.result(timeout=max(0.0, deadline - time.perf_counter()))
            except FutureTimeout:
                future.cancel()
                if whole_run:
                    raise SearchTimeoutError(f"methods ({name})", self.settings.run_timeout) from None
                err = TimeoutError(f"method {name!r} took longer than {self.settings.method_timeout:g} s")
                log.warning("retrieval method %s timed out", name)
                causes[name] = err
                traces.append(MethodTrace(name, "timeout", time.perf_counter() - start, error=str(err)))
                continue
            except Exception as exc:  # one method failing must not fail the search
                log.warning("retrieval method %s failed: %s", name, exc)
                causes[name] = exc
                traces.append(
                    MethodTrace(name, "failed", time.perf_counter() - start, error=f"{type(exc).__name__}: {exc}")
                )
                continue
            seconds = time.perf_counter() - start
            if result.failed_legs:
                error = "; ".join(f"the {leg} leg failed ({why})" for leg, why in result.failed_legs.items())
                answered = " and ".join(result.legs)
                traces.append(MethodTrace(
                    name, "partial", seconds, result.hits, result.legs,
                    f"{error}; its results come from the {answered} leg only", result.failed_legs,
                ))
                continue
            traces.append(
                MethodTrace(name, "ok" if result.hits else "empty", seconds, result.hits, result.legs)
            )
        if len(causes) == len(traces):
            raise AllRetrievalMethodsFailedError(causes)
        return traces

    def _context(
        self, query: str, vector: QueryVector, methods: Sequence[MethodTrace], recipe: Recipe,
        filters: SearchFilters, tracer: Tracer, progress: _Progress | None = None,
    ) -> tuple[GraphContext, dict[str, ItemInfo]]:
        """Capture the graph facts the later steps read, and every item's display info.

        ``progress`` is told which step runs (the whole-run deadline names it) and
        whether the caller gave up waiting, so a step past the deadline stops early.
        """
        progress = progress if progress is not None else _Progress("context")
        store = self.graph_store
        keys: list[str] = list(dict.fromkeys(h.key for m in methods for h in m.hits))
        infos: dict[str, ItemInfo] = {}

        def info(key: str) -> ItemInfo | None:
            if key not in infos:
                found = store.item_info(key, filters)
                if found is not None:
                    infos[key] = found
            return infos.get(key)

        for key in keys:
            info(key)
        entities = [k for k in keys if k in infos and infos[k].kind == "entity"]
        reach: dict[str, tuple[Reach, ...]] = {}
        walk_seeds: tuple[str, ...] = ()
        walk_prior: tuple[str, ...] = ()
        walk: tuple[WalkAddition, ...] = ()
        progress.enter("walk" if recipe.walk.enabled else "context")
        if recipe.walk.enabled and recipe.walk.strategy == "ppr":
            with tracer.span("context.walk", strategy="ppr"):
                walk_seeds, walk_prior, walk = self._passage_walk(query, vector, entities, recipe, filters)
                for key in walk_prior:
                    info(key)
                for addition in walk:  # the trace shows every node on a path, as the filters let it be seen
                    info(addition.entity)
                    for step in addition.path:
                        info(step.source)
        elif recipe.walk.enabled:
            with tracer.span("context.walk", strategy="bfs"):
                relation_types = self._walk_types(recipe.walk.relation_types, filters)
                for seed in entities:
                    progress.enter("walk")
                    reach[seed] = store.reach(
                        seed, depth=recipe.walk.depth, limit=recipe.walk.limit, relation_types=relation_types,
                        direction=recipe.walk.direction, filters=filters,
                    )
                    for r in reach[seed]:
                        info(r.entity)
        distances: dict[str, dict[str, int]] = {}
        mentions: dict[str, tuple[str, ...]] = {}
        fallback = fallback_reason(recipe.rerank.model) if recipe.rerank.kind == "cross_encoder" else None
        if recipe.rerank.kind == "graph_distance" or fallback is not None:
            with tracer.span("context.distances"):
                for seed in entities:
                    progress.enter("re-rank (graph distances)")
                    distances[seed] = store.distances(seed, DISTANCE_CUTOFF, filters)
                # every chunk candidate, the walk's passages included
                mentions = {k: store.mentioned_entities(k) for k, item in infos.items() if item.kind == "chunk"}
        memberships: dict[str, tuple[str, ...]] = {}
        members: dict[str, tuple[str, ...]] = {}
        progress.enter("communities")
        if recipe.communities.enabled:
            with tracer.span("context.communities"):
                memberships = self._memberships([k for k in infos if infos[k].kind == "entity"], filters)
                for cs in memberships.values():
                    for c in cs:
                        info(c)
        for key, item in list(infos.items()):
            if item.kind == "community":
                members[key] = store.community_members(key)
        rerank_scores: dict[str, float] = {}
        progress.enter("re-rank")
        if recipe.rerank.kind == "cross_encoder" and fallback is None:
            with tracer.span("context.rerank", model=recipe.rerank.model or ""):
                reranker = self._reranker(recipe.rerank.model)
                pool = list(infos.values())
                scores = reranker.score(query, [f"{i.title}\n{i.text}" for i in pool])
                rerank_scores = {i.key: float(s) for i, s in zip(pool, scores, strict=True)}
        progress.enter("passage order")
        with tracer.span("context.passages"):  # each entity's and report's passages ranked for the query
            infos = rank_supporting(
                query, vector, infos, graph_store=store, vector_store=self.vector_store, k=self.settings.rrf_k
            )
        context = GraphContext(
            reach, distances, memberships, mentions, members, rerank_scores, walk_seeds, walk_prior, walk,
            fallback or "",
        )
        return context, infos

    def _memberships(self, entities: Sequence[str], filters: SearchFilters) -> dict[str, tuple[str, ...]]:
        """Each entity's communities, as far as ``filters`` let the communities be seen."""
        store = self.graph_store
        memberships = store.memberships(entities)
        if filters.restricts_documents:
            visible = store.visible_items("communities", filters) or frozenset()
            memberships = {e: tuple(c for c in cs if c in visible) for e, cs in memberships.items()}
        return memberships

    def _passage_walk(
        self, query: str, vector: QueryVector, entities: Sequence[str], recipe: Recipe, filters: SearchFilters
    ) -> tuple[tuple[str, ...], tuple[str, ...], tuple[WalkAddition, ...]]:
        """The personalised-PageRank walk: seeds, prior, and the ranked passages it proposes.

        Seeds are the entity hits the query names; when it names none,
        ``walk.unnamed`` decides: the top :data:`FALLBACK_SEEDS` entity hits
        (``"fallback"``), no seeds (``"prior"``), or no walk (``"skip"``). The prior is
        the top :data:`~agrag_lab.kg.pagerank.PRIOR_PASSAGES` dense passage hits
        (``walk.prior = "dense"``) or chunk-method hits, dense + keyword (``"hybrid"``).
        Neither depends on fusion settings, so ``refuse`` reuses the walk as is.
        """
        store = self.graph_store
        seeds = tuple(e for e in entities if store.names_entity(query, e, filters))
        if not seeds and recipe.walk.unnamed == "skip":
            return (), (), ()
        if not seeds and recipe.walk.unnamed == "fallback":
            seeds = tuple(entities[:FALLBACK_SEEDS])
        prior: list[str] = []  # the passages that take part end up in the walk's own prior
        if recipe.walk.prior_weight > 0:
            where, _ = compile_filters("chunks", filters, store)
            try:
                if recipe.walk.prior == "hybrid":
                    found = REGISTRY["chunk"].search(
                        query, vector, PRIOR_PASSAGES, filters, graph_store=store, vector_store=self.vector_store,
                        k=self.settings.rrf_k,
                    )
                    prior = [h.key for h in found.hits]
                else:
                    prior = [k for k, _ in dense_search("chunks", vector, PRIOR_PASSAGES, where, store, self.vector_store)]
            except Exception as exc:  # the walk goes on from the seeds alone, as a failed method would
                log.warning("the PageRank walk's passage prior failed, walking from the seeds alone: %s", exc)
        scores = store.passage_walk(
            seeds, prior, restart=recipe.walk.restart, prior_weight=recipe.walk.prior_weight,
            relation_types=self._walk_types(recipe.walk.relation_types, filters),
            direction=recipe.walk.direction, filters=filters, method=recipe.walk.pagerank,
        )
        additions = []
        longest = 2 * recipe.walk.depth + 1  # depth entity hops, plus the steps into and out of passages
        ranked = scores.passages(recipe.walk.limit)
        routes = scores.routes([key for key, _ in ranked], longest)  # one search for all of them, no farther
        for rank, (key, score) in enumerate(ranked, 1):
            origin, path = routes[key] or ("", ())
            origins = scores.seeds if origin in scores.seeds else scores.prior
            origin_rank = origins.index(origin) + 1 if origin else 0
            prior_rank = scores.prior.index(key) + 1 if key in scores.prior else 0
            additions.append(WalkAddition(key, rank, len(path), origin, origin_rank, path, score, prior_rank))
        return scores.seeds, scores.prior, tuple(additions)

    def _walk_types(self, requested: Sequence[str], filters: SearchFilters) -> tuple[str, ...] | None:
        allowed = filters.relation_types
        if not requested:
            return tuple(sorted(allowed)) if allowed is not None else None
        if allowed is None:
            return tuple(requested)
        return tuple(t for t in requested if t in allowed)

    def _reranker(self, model: str | None) -> CrossEncoderReranker:
        key = model or ""
        with self._lock:
            if key not in self._rerankers:
                self._rerankers[key] = CrossEncoderReranker(model)
            return self._rerankers[key]
