"""discover: search the current passages in scope by keyword, vector, or both.

Rules
-----
* Each leg asks its store for ``limit + 1`` candidates (hybrid: ``2 * limit``
  per leg, at least ``limit + 1``) with the scope applied inside the query
  (bm25s weight mask, Chroma ``where``). More candidates than ``limit`` means
  the list was cut: ``truncated``.
* Hybrid fuses the two legs with Reciprocal Rank Fusion, ``k`` fixed at
  :data:`RRF_K` (60), ranks from 1, one vote per leg, ties as
  :func:`agrag_lab.retrieval.fusion.rrf` documents.
* A leg that fails (an unreachable vector store, an embedder error) does not
  fail a hybrid search: the result is ``partial`` and its ``legs`` name the
  leg and the error. If every leg asked for fails, the call raises
  :class:`~agrag_lab.errors.AllRetrievalMethodsFailedError`.
* The stores hold only current versions of documents that are not removed,
  so hits are always current.

Examples
--------
>>> candidate_depth(10, "keyword"), candidate_depth(10, "hybrid"), candidate_depth(1, "hybrid")
(11, 20, 2)
>>> status_of(failed=False, truncated=True)
'truncated'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from agrag_lab.errors import AllRetrievalMethodsFailedError
from agrag_lab.evidence.access import no_passages_note, parse_id
from agrag_lab.evidence.errors import EvidenceArgumentError
from agrag_lab.evidence.results import DiscoverResult, Hit, Leg, Location, Mode, SearchStatus
from agrag_lab.evidence.session_api import Scoped
from agrag_lab.evidence.snippets import make_snippet
from agrag_lab.names import display_name
from agrag_lab.retrieval.legs import LegOutcome
from agrag_lab.retrieval.legs import run_legs as run_retrieval_legs
from agrag_lab.storage.keyword import KeywordIndex

__all__ = ["MAX_LIMIT", "MODES", "RRF_K", "candidate_depth", "check_limit", "check_query", "discover", "status_of"]

#: The search modes of :func:`discover`.
MODES: tuple[Mode, ...] = ("keyword", "vector", "hybrid")
#: The RRF constant of hybrid discovery (fixed by the spec).
RRF_K = 60.0
#: The largest ``limit`` accepted.
MAX_LIMIT = 1000


class Discovering(Scoped, Protocol):
    """What discover reads of its session: the scope compiled to the passage filters, and titles."""

    def unfiltered(self) -> bool:
        """Whether queries may skip the scope filter."""

    def chunk_mask(self, index: KeywordIndex) -> np.ndarray | None:
        """The bm25s weight mask of the searchable documents."""

    def vector_query(
        self, collection: str, vector: np.ndarray, limit: int, key: str, allowed: frozenset[str] | None
    ) -> list[tuple[str, float]]:
        """Nearest records whose ``key`` is in ``allowed``."""

    def title(self, document_id: str, version: str) -> str:
        """The title of a version."""


def check_limit(limit: Any, name: str = "limit", maximum: int = MAX_LIMIT) -> int:
    """Return ``limit`` if it is an int in ``1..maximum``, else raise.

    Examples
    --------
    >>> check_limit(5)
    5
    >>> check_limit(0)
    Traceback (most recent call last):
    ...
    agrag_lab.errors.EvidenceArgumentError: limit must be an integer from 1 to 1000, got 0
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= maximum:
        raise EvidenceArgumentError(f"{name} must be an integer from 1 to {maximum}, got {limit!r}")
    return limit


def check_query(query: Any) -> str:
    """Return ``query`` if it is a non-blank string, else raise."""
    if not isinstance(query, str) or not query.strip():
        raise EvidenceArgumentError(f"query must be a non-empty string, got {query!r}; say what to look for")
    return query


def candidate_depth(limit: int, mode: Mode) -> int:
    """How many candidates each leg asks its store for."""
    return max(limit + 1, 2 * limit) if mode == "hybrid" else limit + 1


def status_of(*, failed: bool, truncated: bool) -> SearchStatus:
    """``partial`` if a leg failed, else ``truncated`` if the list was cut, else ``ok``."""
    if failed:
        return "partial"
    return "truncated" if truncated else "ok"


def _keyword_leg(session: Discovering, query: str, depth: int) -> list[tuple[str, float]]:
    if not session.resolved.searchable:
        return []
    index = session.graph.keyword_index("chunks")
    return index.search(query, depth, mask=session.chunk_mask(index), scoped=True)  # no score counts outside


def _vector_leg(session: Discovering, query: str, depth: int) -> list[tuple[str, float]]:
    searchable = session.resolved.searchable
    if not searchable:
        return []
    vector = session.graph.embedder.embed_query(query)
    allowed = None if session.unfiltered() else searchable
    return session.vector_query("chunks", vector, depth, "document_id", allowed)


def run_legs(
    legs: Sequence[tuple[str, Callable[[], list[tuple[str, float]]]]],
) -> tuple[dict[str, list[tuple[str, float]]], list[Leg], dict[str, BaseException]]:
    """Run each leg (:func:`agrag_lab.retrieval.legs.run_legs`), keeping the failures: (results by leg, leg reports, errors).

    Raises
    ------
    AllRetrievalMethodsFailedError
        Every leg failed.
    """
    outcome = run_retrieval_legs(legs, owner="an evidence search")
    if outcome.errors and outcome.all_failed:
        raise AllRetrievalMethodsFailedError(dict(outcome.errors))
    failed = outcome.failed
    reports = [
        Leg(name, "failed", 0, failed[name]) if name in failed else Leg(name, "ok", len(outcome.found[name]))
        for name, _ in legs
    ]
    return dict(outcome.found), reports, dict(outcome.errors)


def fuse(results: dict[str, list[tuple[str, float]]], mode: Mode) -> list[tuple[str, float | None, dict[str, int]]]:
    """``(id, score, ranks by leg)`` best first: RRF for hybrid, the leg order otherwise.

    Examples
    --------
    >>> [(i, r) for i, _, r in fuse({"keyword": [("a", 3.0)], "vector": [("b", .9), ("a", .5)]}, "hybrid")]
    [('a', {'keyword': 1, 'vector': 2}), ('b', {'vector': 1})]
    """
    if mode == "hybrid":
        fused = LegOutcome(results, {}).fused(RRF_K)
        return [(item.key, item.score, {c.source: c.rank for c in item.contributions}) for item in fused.items]
    out: list[tuple[str, float | None, dict[str, int]]] = []
    for name, found in results.items():
        for rank, (key, score) in enumerate(found, 1):
            out.append((key, score if name == "vector" else None, {name: rank}))
    return out


def _message(count: int, limit: int, legs: Sequence[Leg], truncated: bool) -> str:
    parts = [f"{count} hit{'s' if count != 1 else ''}"]
    failed = [leg for leg in legs if leg.status == "failed"]
    if failed:
        ok = [leg.name for leg in legs if leg.status == "ok"]
        names = ", ".join(f"the {leg.name} leg failed ({leg.error})" for leg in failed)
        parts.append(f"{names}; results come from the {' and '.join(ok)} leg only")
    if truncated:
        parts.append(f"more candidates matched than the limit of {limit}; raise the limit to see more")
    return "; ".join(parts)


def discover(session: Discovering, query: str, mode: Mode = "hybrid", limit: int = 10) -> DiscoverResult:
    """Search the current passages in the session's scope.

    Parameters
    ----------
    session : Discovering
        Its scope is applied inside every store query.
    query : str
        What to look for.
    mode : {"keyword", "vector", "hybrid"}
        Which legs run; hybrid fuses both with RRF (k = 60).
    limit : int
        Maximum number of hits, 1..1000.

    Returns
    -------
    DiscoverResult
        Hits (id, snippet, title, location) best first, and the status.

    Raises
    ------
    EvidenceArgumentError
        Blank query, unknown mode or a limit out of range.
    AllRetrievalMethodsFailedError
        Every leg failed.
    """
    check_query(query)
    check_limit(limit)
    if mode not in MODES:
        raise EvidenceArgumentError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    depth = candidate_depth(limit, mode)
    wanted: list[tuple[str, Callable[[], list[tuple[str, float]]]]] = []
    if mode in ("keyword", "hybrid"):
        wanted.append(("keyword", lambda: _keyword_leg(session, query, depth)))
    if mode in ("vector", "hybrid"):
        wanted.append(("vector", lambda: _vector_leg(session, query, depth)))
    results, legs, errors = run_legs(wanted)
    ranked = fuse(results, mode)
    truncated = len(ranked) > limit
    hits: list[Hit] = []
    for key, score, ranks in ranked[:limit]:
        hit = _hit(session, key, len(hits) + 1, query, score, ranks)
        if hit is not None:
            hits.append(hit)
    return DiscoverResult(
        query=query,
        mode=mode,
        limit=limit,
        status=status_of(failed=bool(errors), truncated=truncated),
        hits=tuple(hits),
        legs=tuple(legs),
        truncated=truncated,
        message=_message(len(hits), limit, legs, truncated) + _no_passages(session, hits),
    )


def _no_passages(session: Discovering, hits: Sequence[Hit]) -> str:
    """Say so when the index has no passages at all (a graph imported from GraphML)."""
    note = None if hits else no_passages_note(session)
    return "" if note is None else f"; {note}"


def _hit(
    session: Discovering, key: str, rank: int, query: str, score: float | None, ranks: dict[str, int]
) -> Hit | None:
    eid = parse_id(key)
    if not session.resolved.can_search(eid.document_id):  # the stores were filtered; this only guards drift
        return None
    chunk = session.readable_chunk(eid)
    if chunk is None:
        return None
    title = session.title(chunk.document_id, chunk.version)
    return Hit(
        id=chunk.id,
        rank=rank,
        title=title,
        snippet=make_snippet(chunk.text, query),
        location=Location(chunk.document_id, chunk.version, chunk.heading_path, chunk.start, chunk.end, chunk.index),
        kind=chunk.kind,
        score=score,
        keyword_rank=ranks.get("keyword"),
        vector_rank=ranks.get("vector"),
        name=display_name("chunk", title, key=chunk.id, heading_path=tuple(chunk.heading_path), text=chunk.text),
    )
