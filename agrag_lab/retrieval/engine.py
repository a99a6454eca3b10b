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
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from agrag_lab.embedding import Embedder, warm
from agrag_lab.errors import (
    AllRetrievalMethodsFailedError,
    SearchArgumentError,
    SearchTimeoutError,
    UnknownRecipeMethodError,
)
from agrag_lab.kg.schema import GENERIC, GraphSchema
from agrag_lab.recipes import Recipe
from agrag_lab.retrieval import steps
from agrag_lab.retrieval.capabilities import check_capabilities, requirements
from agrag_lab.retrieval.engine_store import EngineGraphStore as EngineGraphStore  # its home: engine_store
from agrag_lab.retrieval.entity_api import FIND_ENTITY_CANDIDATES as FIND_ENTITY_CANDIDATES
from agrag_lab.retrieval.entity_api import TRAVERSE_SOURCE as TRAVERSE_SOURCE
from agrag_lab.retrieval.entity_api import EntityAPI, TraversalDirection
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.methods import REGISTRY, MethodRequest, MethodResult, QueryVector, RetrievalMethod, embed_query
from agrag_lab.retrieval.pipeline import assemble
from agrag_lab.retrieval.preparation import Preparing
from agrag_lab.retrieval.report_reading import nothing_read, reads_only_reports
from agrag_lab.retrieval.rerank import CrossEncoderReranker, fallback_reason
from agrag_lab.retrieval.run import SearchResult, SearchRun
from agrag_lab.retrieval.settings import RetrievalSettings
from agrag_lab.retrieval.steps import Capture, Progress
from agrag_lab.retrieval.trace import GraphContext, ItemInfo, MethodTrace, Outcome, SearchTrace
from agrag_lab.retrieval.tracing import NullTracer, RecordingTracer, Tee, Tracer
from agrag_lab.storage.vectors import VectorStore

log = logging.getLogger(__name__)

_POOL = ThreadPoolExecutor(max_workers=8, thread_name_prefix="agrag-method")
#: The steps after the methods (walk, communities, re-rank, fusion) run here, so that the caller
#: waits for them no longer than the whole-run deadline.
_STEPS = ThreadPoolExecutor(max_workers=8, thread_name_prefix="agrag-steps")


class SearchEngine:
    """Run recipes over a graph store (and optionally a vector store).

    The entity API (:meth:`find_entity`, :meth:`list_relationship_types`,
    :meth:`traverse`) is an :class:`~agrag_lab.retrieval.entity_api.EntityAPI`
    the engine holds. A run reads the stores once at its start (:meth:`stores`)
    and passes them down: the engine keeps no per-run state, so runs may overlap.

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
        self._graph_store = graph_store
        self._vector_store = vector_store
        self.embedder = embedder
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

        self._entities = EntityAPI(self)

    @property
    def graph_store(self) -> EngineGraphStore:
        """The graph store a run would search now (with ``refresh``: the committed state)."""
        return self.stores()[0]

    @property
    def vector_store(self) -> VectorStore | None:
        """The vector store a run would search now (None: the graph store's native search)."""
        return self.stores()[1]

    def stores(self) -> tuple[EngineGraphStore, VectorStore | None]:
        """The graph and vector stores to search now: read once at the start of each run and each entity call.

        With ``refresh`` they are what it returns (another process may have ingested); the vector store
        stays None when the engine was made without one (native search).
        """
        if self._refresh is None:
            return self._graph_store, self._vector_store
        store, vectors = self._refresh()
        return store, vectors if self._vector_store is not None else None

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
        self._load_reranker(recipe)  # before the whole-run deadline starts: a first load exports the model to ONNX
        started = time.perf_counter()
        # the stores of the committed state (another process may have ingested), for this run only
        store, vectors = self.stores()
        check_capabilities({m: requirements(REGISTRY[m]) for m in recipe.methods}, store.capabilities,
                           type(store).__name__)
        before = store.index_stamp()
        warnings = store.index_warnings()
        deadline = started + self.settings.run_timeout
        fusion_k = recipe.fusion.k if recipe.fusion.k is not None else self.settings.rrf_k
        with tracer.span("search", query=query, recipe=recipe.name):
            vector = embed_query(self.embedder, query, tracer)
            phase = time.perf_counter()  # the concurrent phase: its wall time against the slowest method
            methods = self._run_methods(query, vector, recipe, candidates, filters, tracer, store, vectors, deadline)
            methods_seconds = time.perf_counter() - phase
            progress = Progress("context")

            def later_steps() -> tuple[GraphContext, dict[str, ItemInfo], Outcome]:
                with tracer.span("context"):
                    context, items = self._context(
                        query, vector, methods, recipe, filters, tracer, store, vectors, progress)
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
            tuple(dict.fromkeys(warnings + store.index_warnings() + store.index_changes(before)
                                + ((context.rerank_fallback,) * bool(context.rerank_fallback))
                                + _nothing_read(recipe, items, filters, store))),
        )
        return SearchRun.from_trace(trace)

    # -- the entity API (spec: find_entity, list_relationship_types, traverse) ---------------------
    def find_entity(self, name: str, *, filters: SearchFilters | None = None) -> SearchResult | None:
        """See :meth:`EntityAPI.find_entity <agrag_lab.retrieval.entity_api.EntityAPI.find_entity>`."""
        return self._entities.find_entity(name, filters=filters)

    def list_relationship_types(
        self, seed: SearchResult, *, relation_type_filter: str | None = None, direction: TraversalDirection = "both",
        filters: SearchFilters | None = None,
    ) -> list[str]:
        """See :meth:`EntityAPI.list_relationship_types <agrag_lab.retrieval.entity_api.EntityAPI.list_relationship_types>`."""
        return self._entities.list_relationship_types(
            seed, relation_type_filter=relation_type_filter, direction=direction, filters=filters)

    def traverse(
        self, seed: SearchResult, *, relation_type: str | None = None, direction: TraversalDirection = "both",
        depth: int = 1, limit: int = 10, community_expand: bool = False, community_top_k: int = 3,
        filters: SearchFilters | None = None,
    ) -> list[SearchResult]:
        """See :meth:`EntityAPI.traverse <agrag_lab.retrieval.entity_api.EntityAPI.traverse>`."""
        return self._entities.traverse(
            seed, relation_type=relation_type, direction=direction, depth=depth, limit=limit,
            community_expand=community_expand, community_top_k=community_top_k, filters=filters)

    def _run_methods(
        self, query: str, vector: QueryVector, recipe: Recipe, candidates: int, filters: SearchFilters,
        tracer: Tracer, store: EngineGraphStore, vectors: VectorStore | None, run_deadline: float | None = None,
    ) -> list[MethodTrace]:
        futures: dict[str, tuple[Future[MethodResult], float]] = {}
        # one request for every method (a method that embeds text of its own, e.g. keywords, reads the embedder)
        request = MethodRequest(query, vector, candidates, filters, store, vectors, self.settings.rrf_k, self.embedder)
        for name in recipe.methods:  # one-time loads (a model) before the methods' clock starts
            method = REGISTRY[name]
            if isinstance(method, Preparing):
                with tracer.span(f"method.{name}.prepare"):
                    method.prepare(query)
        for name in recipe.methods:
            method = REGISTRY[name]

            def call(method: RetrievalMethod = method) -> MethodResult:
                with tracer.span(f"method.{method.name}"):
                    return method.search(request)

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
                if whole_run and time.perf_counter() > deadline:  # done, but only after the run's deadline:
                    raise FutureTimeout  # the methods took the time, whether or not this thread saw them finish
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
        filters: SearchFilters, tracer: Tracer, store: EngineGraphStore, vectors: VectorStore | None,
        progress: Progress | None = None,
    ) -> tuple[GraphContext, dict[str, ItemInfo]]:
        """Let the steps the recipe asks for read the stores; the graph facts they read, and every item's display info.

        ``progress`` is told which step runs (the whole-run deadline names it) and
        whether the caller gave up waiting, so a step past the deadline stops early.
        """
        cap = Capture(query, vector, recipe, filters, progress or Progress("context"), tracer)
        steps.capture(cap, methods, store, vectors, self.settings.rrf_k, self._reranker)
        return cap.context(), cap.items

    def _load_reranker(self, recipe: Recipe) -> None:
        """Load ``recipe``'s cross-encoder now, if it re-ranks with one that is on this machine.

        The first load of a local CrossEncoder folder exports it to ONNX
        (:func:`agrag_lab.onnx_models.export_onnx`, cached per machine; and its
        int8 copy, for ``rerank.precision = "int8"``): under
        load that alone took longer than a run's whole deadline, so it happens
        before the deadline starts. A model that cannot be loaded raises
        :class:`~agrag_lab.errors.RerankerError` here, as it would in the run.
        """
        if recipe.rerank.kind != "cross_encoder" or fallback_reason(recipe.rerank.model) is not None:
            return
        self._reranker(recipe.rerank.model).load(recipe.rerank.precision)

    def _reranker(self, model: str | None) -> CrossEncoderReranker:
        key = model or ""
        with self._lock:
            if key not in self._rerankers:
                self._rerankers[key] = CrossEncoderReranker(model)
            return self._rerankers[key]


def _nothing_read(recipe: Recipe, items: Mapping[str, ItemInfo], filters: SearchFilters,
                  store: EngineGraphStore) -> tuple[str, ...]:
    """A warning when a recipe that reads only community reports found none (:mod:`.report_reading`)."""
    if not reads_only_reports(recipe):
        return ()
    scoped = filters.restricts_documents
    found = any(info.kind == "community" for info in items.values())
    held = 0 if scoped or found else len(store.keyword_index("communities"))
    return nothing_read(recipe, found_reports=found, index_reports=held, scoped=scoped)
