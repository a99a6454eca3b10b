"""The ledger of a search: a frozen, JSON-serialisable record of every step.

A :class:`SearchTrace` holds the raw material (each method's ranked list with
its legs, the graph context the walk and re-rank read) and the outcome of each
step (fusion ledger, walk, community additions, re-rank moves, cut). Widgets,
charts, notebooks and the MCP server read it; nothing downstream recomputes a
ranking. :func:`agrag_lab.retrieval.pipeline.assemble` turns the raw material
into the outcome, which is how ``SearchRun.refuse`` re-fuses without queries.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from agrag_lab.errors import NotFoundError
from agrag_lab.kg.paths import PathStep as PathStep  # re-exported: the trace names them
from agrag_lab.kg.paths import Reach as Reach
from agrag_lab.names import name_of
from agrag_lab.retrieval.fusion import Fusion
from agrag_lab.serialize import from_data, to_data

ItemKind = Literal["entity", "chunk", "community"]
MethodStatus = Literal["ok", "empty", "partial", "failed", "timeout"]
RunStatus = Literal["ok", "partial"]


def _ro(m: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(m))


@dataclass(frozen=True)
class Hit:
    """One entry of a ranked list: key, raw score, 1-based rank.

    ``via`` is the record the item was found through when it is not the item's own
    (an entity found through one of its relation records: that record's id, ``<entity>#r<n>``);
    the item then stands for that record's passages first (:mod:`agrag_lab.retrieval.steps.passages`).
    """

    key: str
    score: float
    rank: int
    via: str = ""


def tied(hits: Sequence[Hit], key: str) -> int:
    """How many other hits of a ranked list share ``key``'s score (0: none, or ``key`` is not in it).

    A tie means the list's order among them says nothing (the fusion breaks
    it by rank, and the rank by key); ``--explain`` and the ledger show it.

    Examples
    --------
    >>> hits = (Hit("a", 0.5, 1), Hit("b", 0.5, 2), Hit("c", 0.4, 3))
    >>> tied(hits, "b"), tied(hits, "c"), tied(hits, "z")
    (1, 0, 0)
    """
    score = next((h.score for h in hits if h.key == key), None)
    if score is None:
        return 0
    return sum(1 for h in hits if h.key != key and math.isclose(h.score, score, rel_tol=1e-9, abs_tol=1e-12))


@dataclass(frozen=True)
class ItemInfo:
    """What is shown for an item: kind, title, text, where it comes from."""

    key: str
    kind: ItemKind
    title: str
    text: str
    document_id: str | None = None
    heading_path: tuple[str, ...] = ()
    label: str | None = None
    #: supporting chunks of entities and reports; in a run, ranked for its query (retrieval/steps/passages.py)
    chunk_ids: tuple[str, ...] = ()
    builder_id: str = ""  # the id its builder gave (an imported GraphRAG or LightRAG index), shown beside ours

    @property
    def name(self) -> str:
        """What a person sees for it: a chunk as ``title > heading #c3`` (see :mod:`agrag_lab.names`)."""
        return name_of(self, self.key)


@dataclass(frozen=True)
class MethodTrace:
    """One method's run: its fused list, its legs, status and time.

    ``status`` is ``ok`` (hits), ``empty`` (it ran and found nothing),
    ``partial`` (a leg failed and the others answered: ``failed_legs`` maps
    each failed leg to why, ``error`` says it in words), ``failed`` or
    ``timeout`` (no votes; ``error`` says why).

    ``tied`` names the lists whose raw scores all tie (two hits or more, one
    score): each such leg, and the method's own name when its list has no legs
    and ties. Their order among themselves carries no signal (it is the
    store's order), which the ledger and ``explain`` say. Derived from the
    hits, never given.
    """

    name: str
    status: MethodStatus
    seconds: float
    hits: tuple[Hit, ...] = ()
    legs: Mapping[str, tuple[Hit, ...]] = field(default_factory=dict)
    error: str | None = None
    failed_legs: Mapping[str, str] = field(default_factory=dict)
    tied: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "legs", _ro(self.legs))
        object.__setattr__(self, "failed_legs", _ro(self.failed_legs))
        lists = dict(self.legs) if self.legs else {self.name: self.hits}
        object.__setattr__(self, "tied", tuple(name for name, hits in lists.items() if all_tie(hits)))

    @property
    def ok(self) -> bool:
        """Whether the method answered (its hits vote in the fusion), maybe from some legs only."""
        return self.status in ("ok", "empty", "partial")


def tie_note(method: MethodTrace) -> str:
    """What the ledger says of a method whose lists all tie (empty when none does).

    Examples
    --------
    >>> m = MethodTrace("keyword", "ok", 0.0, (Hit("a", 1.0, 1), Hit("b", 1.0, 2)))
    >>> print(tie_note(m))
    keyword: all 2 hits scored 1 (a tie: their order among themselves is the store's, not a ranking)
    """
    lists = dict(method.legs) if method.legs else {method.name: method.hits}
    return "; ".join(
        f"{name}: all {len(lists[name])} hits scored {lists[name][0].score:.4g} "
        "(a tie: their order among themselves is the store's, not a ranking)"
        for name in method.tied
    )


def all_tie(hits: tuple[Hit, ...]) -> bool:
    """Whether a ranked list has two hits or more and every raw score is the same.

    Examples
    --------
    >>> all_tie((Hit("a", 0.5, 1), Hit("b", 0.5, 2))), all_tie((Hit("a", 0.5, 1),))
    (True, False)
    """
    return len(hits) > 1 and max(h.score for h in hits) - min(h.score for h in hits) <= 1e-12


@dataclass(frozen=True)
class WalkAddition:
    """An item the walk proposed: its walk rank, hop, seed, seed rank and path.

    ``entity`` is the proposed item's key: a neighbour entity for a BFS walk,
    a passage (chunk) for a personalised-PageRank walk, whose ``score`` is the
    walk's probability there (with ``walk.pagerank = "push"``, the default,
    from below: at most 1e-6 per step of the passage short of it; see
    :func:`~agrag_lab.kg.algorithms.pagerank.push_pagerank`). For the PageRank walk,
    ``seed`` is the restart point the path starts from: the nearest seed
    entity when its path has at most ``2 * depth + 1`` steps (``seed_rank``
    counts in the walk's seeds), else the nearest dense prior passage within
    as many steps (``seed_rank`` counts in the prior; a prior passage is its
    own restart point, with no path), else none (``seed`` empty, no path).
    ``prior_rank`` is the passage's own rank in the prior (0: not in it).
    """

    entity: str
    rank: int
    hop: int
    seed: str
    seed_rank: int
    path: tuple[PathStep, ...]
    score: float = 0.0
    prior_rank: int = 0


@dataclass(frozen=True)
class GraphContext:
    """Graph facts captured at query time so later steps are pure functions.

    ``reach`` maps each entity candidate (a possible seed) to what BFS reaches
    from it (within the recipe's depth, relation types and direction);
    ``distances`` maps it to hop distances (for the graph-distance re-rank);
    ``memberships`` maps entities to community ids ranked by level;
    ``mentions`` maps chunks to the entities they mention; ``community_members``
    maps reports to their member entities; ``rerank_scores`` holds cross-encoder
    scores for every candidate. A personalised-PageRank walk (``strategy="ppr"``)
    does not depend on fusion settings, so it is captured whole: ``walk_seeds``
    are the entities it restarted at, ``walk_prior`` the dense passage hits it
    restarted at too (best first), and ``walk`` its ranked passages.
    ``rerank_fallback`` says why a ``cross_encoder`` re-rank ran by graph
    distance instead (no cross-encoder configured), else it is empty.
    """

    reach: Mapping[str, tuple[Reach, ...]] = field(default_factory=dict)
    distances: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    memberships: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    mentions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    community_members: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    rerank_scores: Mapping[str, float] = field(default_factory=dict)
    walk_seeds: tuple[str, ...] = ()
    walk_prior: tuple[str, ...] = ()
    walk: tuple[WalkAddition, ...] = ()
    rerank_fallback: str = ""

    def __post_init__(self) -> None:
        for name in ("reach", "distances", "memberships", "mentions", "community_members", "rerank_scores"):
            object.__setattr__(self, name, _ro(getattr(self, name)))


@dataclass(frozen=True)
class WalkTrace:
    """The walk step: its seeds and what it proposed, ranked.

    BFS: the seeds are the fused entity hits and the additions their
    neighbour entities. PageRank (``strategy == "ppr"``): the seeds are the
    entity hits the query names, ``prior`` the dense passage hits the walk
    also restarted at, and the additions passages.
    """

    seeds: tuple[str, ...]
    additions: tuple[WalkAddition, ...]
    depth: int
    limit: int
    relation_types: tuple[str, ...]
    direction: str
    strategy: str
    prior: tuple[str, ...] = ()


@dataclass(frozen=True)
class CommunityAddition:
    """A report added because its community overlaps the entities found."""

    community: str
    rank: int
    overlap: int
    entities: tuple[str, ...]


@dataclass(frozen=True)
class RerankMove:
    """One item's rank before and after the re-rank, and the score that moved it.

    ``scored`` is false for an item outside the cross-encoder's neighbourhood of
    the cut (:func:`~agrag_lab.retrieval.steps.rerank.scoring_pool`): it keeps its
    fused order below the scored items, shown with the lowest score given.
    """

    key: str
    before: int
    after: int
    score: float
    kept_slot: bool = False
    scored: bool = True


@dataclass(frozen=True)
class RerankTrace:
    """The re-rank step.

    ``kind`` is the re-rank that ran: ``graph_distance`` for a recipe that
    asked for a ``cross_encoder`` when none is configured, and then
    ``fallback`` says so (empty otherwise). For a cross-encoder, ``pool`` is
    what it scored (the recipe's ``rerank.pool``; each move says whether its
    item was scored) and ``precision`` what it ran in (``fp32`` or ``int8``);
    both are empty for the other kinds.
    """

    kind: str
    model: str | None
    moves: tuple[RerankMove, ...]
    community_slots: int
    fallback: str = ""
    pool: str = ""
    precision: str = ""


@dataclass(frozen=True)
class CutTrace:
    """Where the list was cut: the limit, how many candidates, the first dropped keys.

    ``zero_score`` lists the candidates that were not returned because their
    fused score is 0 (every vote they had weighs 0, e.g. a source with weight
    0 in ``fusion.weights``): a result is never listed without a reason. No
    built-in recipe pads its list up to the limit.
    """

    limit: int
    candidates: int
    dropped: tuple[str, ...]
    zero_score: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """What the steps made of the raw material (recomputed by ``refuse``)."""

    first_fusion: Fusion
    fusion: Fusion
    walk: WalkTrace | None
    communities: tuple[CommunityAddition, ...] | None
    rerank: RerankTrace | None
    cut: CutTrace
    order: tuple[str, ...]
    scores: Mapping[str, float]

    def __post_init__(self) -> None:
        object.__setattr__(self, "scores", _ro(self.scores))


@dataclass(frozen=True)
class SearchTrace:
    """Everything about one search: inputs, raw method lists, graph context, outcome."""

    query: str
    recipe: Mapping[str, Any]
    filters: Mapping[str, Any]
    methods: tuple[MethodTrace, ...]
    context: GraphContext
    items: Mapping[str, ItemInfo]
    outcome: Outcome
    seconds: float
    spans: tuple[tuple[str, float], ...] = ()
    #: What the reader must know about the index this run read (e.g. it was mid-sync), in plain words.
    warnings: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "recipe", _ro(self.recipe))
        object.__setattr__(self, "filters", _ro(self.filters))
        object.__setattr__(self, "items", _ro(self.items))

    @property
    def status(self) -> RunStatus:
        """``partial`` when a method or one of its legs failed or timed out, else ``ok``."""
        return "ok" if all(m.status in ("ok", "empty") for m in self.methods) else "partial"

    def failures(self) -> dict[str, str]:
        """What failed and why: ``method`` or ``method.leg`` -> the error, in the recipe's order.

        Examples
        --------
        >>> from agrag_lab.retrieval.fusion import rrf
        >>> fused = rrf({}, k=60)
        >>> outcome = Outcome(fused, fused, None, None, None, CutTrace(10, 0, ()), (), {})
        >>> methods = (MethodTrace("entity", "partial", 0.1, failed_legs={"dense": "EmbedderError: down"}),
        ...            MethodTrace("community", "failed", 0.1, error="RetrievalMethodError: down"))
        >>> trace = SearchTrace("q", {}, {}, methods, GraphContext(), {}, outcome, 0.2)
        >>> trace.status, trace.failures()
        ('partial', {'entity.dense': 'EmbedderError: down', 'community': 'RetrievalMethodError: down'})
        """
        out: dict[str, str] = {}
        for m in self.methods:
            if m.status in ("failed", "timeout"):
                out[m.name] = m.error or m.status
            for leg, why in m.failed_legs.items():
                out[f"{m.name}.{leg}"] = why
        return out

    def method(self, name: str) -> MethodTrace:
        """The trace of one method by name."""
        for m in self.methods:
            if m.name == name:
                return m
        raise NotFoundError(f"no method {name!r} in this trace; it ran {[m.name for m in self.methods]}")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict; :meth:`from_dict` rebuilds an equal trace."""
        data: dict[str, Any] = to_data(self)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SearchTrace:
        """Inverse of :meth:`to_dict`."""
        trace: SearchTrace = from_data(cls, data)
        return trace
