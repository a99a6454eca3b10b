"""The systems an evaluation compares: recipes and three baselines, on one index.

Baselines search the same chunks with the same embedding model as the
recipes, without the graph:

``bm25``
    bm25s alone over the chunks (the index's keyword index).
``dense``
    the query embedding against the chunk vectors in the index's vector
    store (Chroma), alone.
``bm25+dense``
    ``ranx.fuse(method="rrf")`` of those two chunk runs (k = 60): the usual
    peer fusion, computed by ranx rather than by agrag_lab's own fusion.

Every system produces, per query, a ranked tuple of **document ids**
(see :mod:`agrag_lab.eval.projection`).

Examples
--------
>>> fuse_rrf({"q1": ["a", "b"]}, {"q1": ["b", "c"]})["q1"]
('b', 'a', 'c')
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from agrag_lab.errors import AgragError
from agrag_lab.eval.projection import DEFAULT_DEPTH, project_chunks, project_run
from agrag_lab.progress import StatusLog
from agrag_lab.recipes import Recipe

if TYPE_CHECKING:
    from agrag_lab.embedding import Embedder
    from agrag_lab.graph import Graph
    from agrag_lab.retrieval.engine import SearchEngine

#: The baselines, in the order they are reported.
BASELINES = ("bm25", "dense", "bm25+dense")
#: Chunks each baseline leg retrieves before projection (enough for depth 10).
BASELINE_CANDIDATES = 100
#: The RRF constant of the ``bm25+dense`` baseline.
BASELINE_RRF_K = 60



class QueryCache:
    """An embedder wrapper that embeds each distinct query once.

    Every recipe and the dense baseline embed the same queries; caching them
    keeps an evaluation's cost to one embedding per query.
    """

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._cache: dict[str, np.ndarray] = {}
        self.name = embedder.name
        self.dimension = embedder.dimension

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._embedder.embed(texts)

    def warm(self) -> float:
        """Warm the wrapped embedder (see :func:`agrag_lab.embedding.warm`); the seconds it took."""
        from agrag_lab.embedding import warm

        return warm(self._embedder)

    def embed_query(self, text: str) -> np.ndarray:
        if text not in self._cache:
            self._cache[text] = self._embedder.embed_query(text)
        return self._cache[text]


@dataclass
class SystemRun:
    """What one system returned: ranked documents per query, time, failures."""

    name: str
    kind: str  # "recipe" or "baseline"
    rankings: dict[str, tuple[str, ...]] = field(default_factory=dict)
    seconds: float = 0.0
    failures: dict[str, str] = field(default_factory=dict)
    description: str = ""

    @property
    def ms_per_query(self) -> float:
        return 1000.0 * self.seconds / max(1, len(self.rankings))


def run_recipe(
    engine: SearchEngine,
    recipe: Recipe,
    queries: Mapping[str, str],
    *,
    depth: int = DEFAULT_DEPTH,
    per_hit: int | None = None,
    progress: StatusLog | None = None,
) -> SystemRun:
    """Run ``recipe`` on every query and project each run to documents.

    A query whose search raises an :class:`~agrag_lab.errors.AgragError` gets
    an empty ranking and is listed in ``failures``.
    """
    out = SystemRun(recipe.name, "recipe", description=recipe.description)
    started = time.perf_counter()
    for qid, text in queries.items():
        try:
            run = engine.run(text, recipe)
        except AgragError as exc:
            out.failures[qid] = f"{type(exc).__name__}: {exc}"
            out.rankings[qid] = ()
            continue
        out.rankings[qid] = project_run(run, depth=depth, per_hit=per_hit)
    out.seconds = time.perf_counter() - started
    if progress is not None:
        progress(f"{recipe.name}: {len(queries)} queries in {out.seconds:.1f} s")
    return out


def bm25_chunks(graph: Graph, queries: Mapping[str, str], n: int = BASELINE_CANDIDATES) -> dict[str, list[str]]:
    """bm25s over the index's chunks: the top ``n`` chunk ids per query."""
    index = graph.keyword_index("chunks")
    return {qid: [key for key, _ in index.search(text, n)] for qid, text in queries.items()}


def dense_chunks(
    graph: Graph, queries: Mapping[str, str], n: int = BASELINE_CANDIDATES, embedder: Embedder | None = None
) -> dict[str, list[str]]:
    """The query embedding against the chunk vectors: the top ``n`` chunk ids per query."""
    model = embedder if embedder is not None else graph.embedder
    return {
        qid: [key for key, _ in graph.vector_store.query("chunks", model.embed_query(text), n)]
        for qid, text in queries.items()
    }


def fuse_rrf(
    a: Mapping[str, Sequence[str]], b: Mapping[str, Sequence[str]], *, k: int = BASELINE_RRF_K
) -> dict[str, tuple[str, ...]]:
    """RRF of two ranked-list runs with ``ranx.fuse`` (ranks from 1, ``1/(k+rank)``)."""
    from ranx import Run, fuse

    def to_run(lists: Mapping[str, Sequence[str]], name: str) -> Run:
        return Run(
            {q: {key: float(len(keys) - i) for i, key in enumerate(keys)} for q, keys in lists.items()}, name=name
        )

    queries = [q for q in a if a[q] or b.get(q)]
    left = to_run({q: a[q] or b[q] for q in queries}, "a")
    right = to_run({q: b.get(q) or a[q] for q in queries}, "b")
    # a query one leg found nothing for is fused with itself: the order is that of the other leg
    fused = fuse([left, right], norm=None, method="rrf", params={"k": k}).to_dict() if queries else {}
    out: dict[str, tuple[str, ...]] = {}
    for qid in a:
        scores = fused.get(qid, {})
        out[qid] = tuple(sorted(scores, key=lambda key: (-scores[key], key)))
    return out


def run_baselines(
    graph: Graph,
    queries: Mapping[str, str],
    *,
    embedder: Embedder | None = None,
    depth: int = DEFAULT_DEPTH,
    candidates: int = BASELINE_CANDIDATES,
    progress: StatusLog | None = None,
) -> list[SystemRun]:
    """The three baselines (``bm25``, ``dense``, ``bm25+dense``) on every query."""
    started = time.perf_counter()
    keyword = bm25_chunks(graph, queries, candidates)
    t_keyword = time.perf_counter() - started
    dense = dense_chunks(graph, queries, candidates, embedder)
    t_dense = time.perf_counter() - started - t_keyword
    # ranx compiles its numba kernels on first use (tens of seconds in a fresh venv):
    # a first, untimed fusion keeps that out of bm25+dense's time per query
    fuse_rrf(keyword, dense)
    started_fusion = time.perf_counter()
    fused = fuse_rrf(keyword, dense)
    t_fused = t_keyword + t_dense + time.perf_counter() - started_fusion
    runs = [
        SystemRun(name, "baseline", {q: project_chunks(lists[q], depth=depth) for q in queries}, seconds,
                  description=description)
        for name, lists, seconds, description in (
            ("bm25", keyword, t_keyword, "bm25s alone over the chunks"),
            ("dense", dense, t_dense, "dense alone: the same model, Chroma, over the chunks"),
            ("bm25+dense", fused, t_fused, "ranx.fuse RRF (k=60) of the bm25 and dense chunk runs"),
        )
    ]
    if progress is not None:
        progress(f"baselines: {len(queries)} queries in {t_fused:.1f} s")
    return runs
