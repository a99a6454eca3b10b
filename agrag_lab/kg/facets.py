"""Entity facets: extra searchable records of an entity, one per typed relation."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["FACET_MARK", "best_per_owner", "facet_owner", "found_through"]

#: Separates an entity id from the number of one of its relation facets.
FACET_MARK = "#r"


def facet_owner(record_id: str) -> str:
    """The entity a record of the ``entities`` collection belongs to.

    Examples
    --------
    >>> facet_owner("ent-ada-lovelace#r2"), facet_owner("ent-ada-lovelace")
    ('ent-ada-lovelace', 'ent-ada-lovelace')
    """
    return record_id.split(FACET_MARK, 1)[0]


def best_per_owner(pairs: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """Collapse entity records (main and facets) to their entity, at its best rank and score.

    ``pairs`` are ``(record id, score)`` best first; each entity keeps its first.

    Examples
    --------
    >>> best_per_owner([("ent-a#r1", 0.9), ("ent-b", 0.8), ("ent-a", 0.7)])
    [('ent-a', 0.9), ('ent-b', 0.8)]
    """
    out: dict[str, float] = {}
    for key, score in pairs:
        out.setdefault(facet_owner(key), score)
    return list(out.items())


def found_through(pairs: Sequence[tuple[str, float]]) -> dict[str, str]:
    """The record each entity of :func:`best_per_owner` was found through, when it is a facet.

    ``pairs`` are ``(record id, score)`` best first; an entity whose best record is its own
    record is left out.

    Examples
    --------
    >>> found_through([("ent-a#r1", 0.9), ("ent-b", 0.8), ("ent-a", 0.7), ("ent-b#r0", 0.6)])
    {'ent-a': 'ent-a#r1'}
    """
    best: dict[str, str] = {}
    for key, _ in pairs:
        best.setdefault(facet_owner(key), key)
    return {owner: key for owner, key in best.items() if key != owner}
