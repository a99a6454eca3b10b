"""Reciprocal Rank Fusion (RRF) with a full ledger.

:func:`rrf` merges ranked lists of keys into one list. Each source (method)
gives an item one vote, at the item's best rank in that source's list, worth
``w / (k + rank)``; an item's fused score is the sum of its votes. Every vote
is kept as a :class:`Contribution`, so a caller can see who contributed what,
and the terms always add up to the score.

Libraries disagree on the formula: ranks from 0 or from 1, weights used or
ignored, scores normalised or not. :data:`CONVENTIONS` reproduces the paper
and four libraries, and every :class:`Fusion` says which one it used.

=============  =========================================================  =======
convention     term of one vote (``r`` = 1-based position in the list)     weights
=============  =========================================================  =======
``paper``      ``w / (k + r)``                                             used
``ranx``       ``1 / (k + r)``                                             ignored
``llamaindex`` ``1 / (k + r - 1)``  (so k=60 acts as 59)                   ignored
``pyterrier``  ``1 / (k + r - 1)``  (so k=60 acts as 59)                   ignored
``haystack``   ``(s * n / (k + r)) / (n / (k + 1))``, ``s = w / sum(w)``   shares
=============  =========================================================  =======

Ties in the fused score are broken, in this order, by: best rank in any
source (lower first), number of sources that found the item (more first),
order of first appearance (sources in the order given, then position in the
list), and finally the key itself. The result is therefore fully determined
by the input.

Within one source's list, only the first (best) occurrence of a key votes;
later duplicates are ignored but still take up their positions, so ranks are
positions in the list as given. (The libraries would count such a duplicate
again; the one-vote rule is the spec's and applies to every convention.)

Examples
--------
>>> from agrag_lab.retrieval.fusion import rrf
>>> fused = rrf({"entity": ["ada", "babbage"], "chunk": ["c1", "ada"]})
>>> fused.keys
('ada', 'c1', 'babbage')
>>> [round(c.term, 6) for c in fused.items[0].contributions]
[0.016393, 0.016129]
>>> print(fused.description)
Reciprocal rank fusion of 2 lists by the paper convention (Cormack et al. 2009): score = sum of w / (k + rank) with ranks from 1, k = 60.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from types import MappingProxyType
from typing import Any

import numpy as np

from agrag_lab.errors import FusionError
from agrag_lab.rrf_conventions import CONVENTIONS, Convention, get_convention

__all__ = [
    "CONVENTIONS",
    "Contribution",
    "Convention",
    "FusedItem",
    "Fusion",
    "get_convention",
    "rrf",
]


@dataclass(frozen=True, slots=True)
class Contribution:
    """One source's vote for one item.

    Attributes
    ----------
    source : str
        The list (method) that voted.
    rank : int
        1-based position of the item's best (first) hit in that source's list.
    effective_rank : float
        The rank the convention counts (``rank`` for ``paper``/``ranx``,
        ``rank - 1`` for the 0-based conventions).
    weight : float
        The weight the term used (1.0 when the convention ignores weights;
        the source's share of all weights for ``haystack``).
    term : float
        This vote's share of the fused score.
    """

    source: str
    rank: int
    effective_rank: float
    weight: float
    term: float


@dataclass(frozen=True, slots=True)
class FusedItem:
    """One fused item: its key, its score and every vote behind the score.

    ``score`` is the sum of the contributions' terms, added in source order,
    so ``score == sum(c.term for c in contributions)`` holds exactly.
    """

    key: str
    score: float
    contributions: tuple[Contribution, ...]

    @property
    def best_rank(self) -> int:
        """The item's best 1-based rank in any source."""
        return min(c.rank for c in self.contributions)

    @property
    def sources(self) -> tuple[str, ...]:
        """The sources that found the item, in source order."""
        return tuple(c.source for c in self.contributions)


@dataclass(frozen=True)  # no slots: ``items`` is kept, once built, outside the fields
class Fusion:
    """The result of :func:`rrf`: a ranked list of items plus how it was computed.

    The ledger is held in columns (one row of ranks and one of terms per
    source, in fused order); :attr:`items` builds the :class:`FusedItem` and
    :class:`Contribution` objects from them the first time it is read, so a
    caller that only needs :attr:`keys` or :attr:`scores` never pays for them.

    Attributes
    ----------
    keys : tuple[str, ...]
        The fused keys, best first, ties broken as the module documents.
    k : float
        The ``k`` passed to :func:`rrf` (Haystack's constant is ``k + 1``).
    convention : str
        Name of the :class:`Convention` used.
    weights : Mapping[str, float]
        The weight each source's terms used (read-only), in source order.
    description : str
        One sentence naming the formula used.
    fused_scores : tuple[float, ...]
        The fused score of each key in :attr:`keys`.
    ranks : tuple[tuple[int, ...], ...]
        Per source (in the order of :attr:`weights`), the 1-based rank of
        each key in :attr:`keys` there, 0 where the source did not find it.
    terms : tuple[tuple[float, ...], ...]
        Per source, the term each key got from it (0.0 where no vote).
    rank_base : {0, 1}
        The convention's rank of a list's top item (gives each vote's
        effective rank).
    """

    keys: tuple[str, ...]
    k: float
    convention: str
    weights: Mapping[str, float] = field(hash=False)
    description: str
    fused_scores: tuple[float, ...] = field(repr=False)
    ranks: tuple[tuple[int, ...], ...] = field(repr=False)
    terms: tuple[tuple[float, ...], ...] = field(repr=False)
    rank_base: int = field(default=1, repr=False)

    @property
    def items(self) -> tuple[FusedItem, ...]:
        """Every fused item with its contributions, best first (built once, on first read).

        Examples
        --------
        >>> rrf({"a": ["x", "y"], "b": ["y"]}).items[0].sources
        ('a', 'b')
        """
        items: tuple[FusedItem, ...] | None = self.__dict__.get("_items")
        if items is None:
            items = self._build_items()
            object.__setattr__(self, "_items", items)
        return items

    def _build_items(self) -> tuple[FusedItem, ...]:
        columns = [
            (source, weight, ranks, terms)
            for (source, weight), ranks, terms in zip(
                self.weights.items(), self.ranks, self.terms, strict=True
            )
        ]
        shift = self.rank_base - 1
        items: list[FusedItem] = []
        for j, (key, score) in enumerate(zip(self.keys, self.fused_scores, strict=True)):
            votes = tuple(
                Contribution(source, rank, float(rank + shift), weight, terms[j])
                for source, weight, ranks, terms in columns
                if (rank := ranks[j])
            )
            items.append(FusedItem(key, score, votes))
        return tuple(items)

    @property
    def scores(self) -> dict[str, float]:
        """Fused score by key, best first."""
        return dict(zip(self.keys, self.fused_scores, strict=True))

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-serialisable copy of the whole ledger.

        Examples
        --------
        >>> d = rrf({"a": ["x"]}).to_dict()
        >>> d["items"][0]["contributions"][0]["rank"]
        1
        """
        return {
            "k": self.k,
            "convention": self.convention,
            "weights": dict(self.weights),
            "description": self.description,
            "items": [
                {
                    "key": item.key,
                    "score": item.score,
                    "contributions": [
                        {
                            "source": c.source,
                            "rank": c.rank,
                            "effective_rank": c.effective_rank,
                            "weight": c.weight,
                            "term": c.term,
                        }
                        for c in item.contributions
                    ],
                }
                for item in self.items
            ],
        }


def _check(
    k: object, weights: Mapping[str, float] | None, sources: Sequence[str]
) -> dict[str, str]:
    problems: dict[str, str] = {}
    if (
        isinstance(k, bool)
        or not isinstance(k, int | float)
        or not math.isfinite(k)
        or k <= 0
    ):
        problems["k"] = (
            f"must be a finite number > 0 (got {k!r}); it is the constant in w / (k + rank), "
            "and 60 is the usual choice"
        )
    for source, weight in (weights or {}).items():
        if (
            isinstance(weight, bool)
            or not isinstance(weight, int | float)
            or not math.isfinite(weight)
            or weight < 0
        ):
            problems[f"weights.{source}"] = (
                f"must be a finite number >= 0 (got {weight!r}); 1.0 is neutral, "
                "0 silences the source"
            )
    for source in sources:
        if not isinstance(source, str):
            problems["lists"] = f"source names must be strings (got {source!r})"
    return problems


def rrf(
    lists: Mapping[str, Sequence[str]],
    *,
    k: float = 60.0,
    weights: Mapping[str, float] | None = None,
    convention: str = "paper",
) -> Fusion:
    """Fuse ranked lists by Reciprocal Rank Fusion and record every vote.

    Parameters
    ----------
    lists : Mapping[str, Sequence[str]]
        Source name -> keys, best first. One list is enough (fusion still
        removes duplicates); an empty list simply casts no votes.
    k : float, default 60.0
        The RRF constant, > 0. Conventions with 0-based ranks use it as the
        libraries do, so ``k=60`` there acts like 59 in the paper's terms.
    weights : Mapping[str, float] or None
        Weight per source, finite and >= 0; a missing source weighs 1.0 and
        weights for sources not in ``lists`` are ignored. Conventions that
        have no weights ignore them (the description says so).
    convention : str, default "paper"
        A key of :data:`CONVENTIONS`.

    Returns
    -------
    Fusion
        Items best first, each with its contributions; ties broken by best
        rank, then number of sources, then first appearance, then key.

    Raises
    ------
    FusionError
        ``k``, a weight or ``convention`` is invalid (all problems at once).

    Examples
    --------
    One vote per source, at the best rank: the duplicate ``"a"`` adds nothing.

    >>> f = rrf({"m": ["a", "b", "a"]}, k=1)
    >>> [(i.key, i.score) for i in f.items]
    [('a', 0.5), ('b', 0.3333333333333333)]

    Weights scale a source's terms:

    >>> f = rrf({"x": ["a"], "y": ["b"]}, k=1, weights={"y": 2.0})
    >>> f.keys, f.items[0].contributions[0].term
    (('b', 'a'), 1.0)

    A 0-based convention:

    >>> rrf({"x": ["a"]}, k=60, convention="llamaindex").items[0].score == 1 / 60
    True
    """
    conv = get_convention(convention)
    sources = list(lists)
    problems = _check(k, weights, sources)
    if problems:
        raise FusionError(problems)
    given = weights or {}
    requested = {s: float(given.get(s, 1.0)) for s in sources}
    if conv.weight_normalisation == "sum" and sources and sum(requested.values()) <= 0:
        raise FusionError(
            {
                "weights": f"the {conv.name} convention divides weights by their sum, "
                "which is 0; give at least one source a weight > 0"
            }
        )

    n = len(sources)
    if not conv.uses_weights:
        applied = dict.fromkeys(sources, 1.0)
    elif conv.weight_normalisation == "sum":
        total = sum(requested.values())
        applied = {s: w / total for s, w in requested.items()}
    else:
        applied = requested
    k = float(k)
    keys, scores, ranks, terms = _fuse(lists, sources, conv, k, [applied[s] for s in sources])
    return Fusion(
        keys=keys,
        k=k,
        convention=conv.name,
        weights=MappingProxyType(applied),
        description=_describe(conv, n, k, given, sources),
        fused_scores=scores,
        ranks=ranks,
        terms=terms,
        rank_base=conv.rank_base,
    )


def _as_sequence(keys: Sequence[str]) -> Sequence[str]:
    return keys if isinstance(keys, list | tuple) else list(keys)


#: Stands for "no vote" where the best rank is a minimum over sources.
_NO_RANK = int(np.iinfo(np.int64).max)


def _fuse(
    lists: Mapping[str, Sequence[str]],
    sources: Sequence[str],
    conv: Convention,
    k: float,
    weights: Sequence[float],
) -> tuple[
    tuple[str, ...], tuple[float, ...], tuple[tuple[int, ...], ...], tuple[tuple[float, ...], ...]
]:
    """The whole fusion over all lists at once: keys best first, their scores, ranks and terms.

    Keys get ids in order of first appearance (sources in order, then
    position), so the id is the first-appearance tie-break. Ranks and terms
    are one row per source; a source's score row is added to the running
    total in source order, each missing vote adding an exact 0.0, so every
    score is the same float as adding the terms one by one.
    """
    every = [_as_sequence(lists[source]) for source in sources]
    ids: dict[str, int] = {}
    flat = np.array(
        [ids.setdefault(key, len(ids)) for key in chain.from_iterable(every)], dtype=np.int64
    )
    n_keys, n_lists = len(ids), len(sources)
    rank = np.zeros((n_lists, n_keys), dtype=np.int64)
    start = 0
    for row, keys in enumerate(every):
        size = len(keys)
        where = flat[start : start + size]
        start += size
        if len(set(keys)) == size:  # no key twice: every position is a vote
            rank[row, where] = np.arange(1, size + 1)
        else:  # only a key's first (best) position votes: the reversed list's last write wins
            first = dict(zip(reversed(keys), range(size, 0, -1), strict=True))
            rank[row, [ids[key] for key in first]] = list(first.values())
    voted = rank > 0
    k_lib = k + conv.k_offset
    effective = rank + (conv.rank_base - 1)  # int, as Convention.effective_rank
    weight = np.asarray(weights, dtype=np.float64)[:, None]  # 1.0 where the convention has none
    term = np.zeros((n_lists, n_keys), dtype=np.float64)  # 0.0 where no vote
    if conv.score_normalisation == "max":  # the same operations, in the same order, as Convention.term
        np.divide(weight * n_lists, k_lib + effective, out=term, where=voted)
        term /= n_lists / k_lib
    else:
        np.divide(weight, k_lib + effective, out=term, where=voted)
    score = np.zeros(n_keys, dtype=np.float64)
    for source_terms in term:  # in source order, as the ledger adds them
        score += source_terms
    best = np.where(voted, rank, _NO_RANK).min(axis=0, initial=_NO_RANK)
    count = voted.sum(axis=0)
    order = np.lexsort((np.arange(n_keys), -count, best, -score))
    names = list(ids)
    return (
        tuple([names[i] for i in order.tolist()]),
        tuple(score[order].tolist()),
        tuple(tuple(r) for r in rank[:, order].tolist()),
        tuple(tuple(t) for t in term[:, order].tolist()),
    )


def _describe(
    conv: Convention,
    n: int,
    k: float,
    given: Mapping[str, float],
    sources: Sequence[str],
) -> str:
    lists = "1 list" if n == 1 else f"{n} lists"
    k_text = f"k = {k:g}"
    if conv.k_offset:
        k_text += f" (so the library's constant is {k + conv.k_offset:g})"
    if conv.rank_base == 0:
        k_text += f", which acts like {k + conv.k_offset - 1:g} with ranks from 1"
    ignored = ""
    if not conv.uses_weights and any(given.get(s, 1.0) != 1.0 for s in sources):
        ignored = (
            f"; the weights given were ignored because {conv.library}'s RRF takes none"
        )
    who = "" if conv.library.lower() == conv.name else f" ({conv.library})"
    return (
        f"Reciprocal rank fusion of {lists} by the {conv.name} convention{who}: "
        f"score = sum of {conv.formula}, {k_text}{ignored}."
    )
