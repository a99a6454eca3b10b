"""Entity resolution: when a search hit counts as the entity a name asks for.

``SearchEngine.find_entity(name)`` searches entities (with the filters
applied inside the search) and then asks of each hit, best first, whether it
*is* what the name asks for. The nearest vector alone is not enough: every
name has a nearest entity, so "zzqqxx nonsense" would resolve to one. A hit
counts as found when

1. one of its names (its name or an alias, as the filters show it) is the
   name asked for, compared by :func:`~agrag_lab.kg.text.match_key` (case,
   diacritics, possessives and punctuation folded): the first such hit in
   search order wins; else
2. the cosine similarity of the asked name with the nearest of the hit's
   names is at least the threshold (``RETRIEVAL_ENTITY_MATCH``, default 0.6):
   the most similar such hit wins, ties in search order.

Otherwise nothing matched and the answer is None. The threshold was set on
the workshop corpus (all-MiniLM-L6-v2): a title or a short form that is not
an alias finds the entity meant ("Lady Lovelace" scores 0.80 against Ada
Lovelace), while a person the corpus does not hold ("Napoleon Bonaparte":
0.47 at best, against "French Empire"), nonsense ("zzqqxx nonsense": 0.27)
and "Per Georg Scheutz" seen only through documents that do not mention him
(0.54, against "Difference Engine") stay below it. A misspelling can fall
below too ("Babage": 0.59 against Charles Babbage). Descriptions ("the loom
that used punched cards") do not resolve: search them with the ENTITY recipe.

Examples
--------
>>> import numpy as np
>>> candidates = [("ent-henry", ("Henry Prevost Babbage", "Henry")), ("ent-charles", ("Charles Babbage", "Babbage"))]
>>> exact_match("babbage", candidates)
Match(key='ent-charles', similarity=1.0, exact=True)
>>> q = np.array([1.0, 0.0])
>>> names = {"ent-henry": np.array([[0.6, 0.8]]), "ent-charles": np.array([[0.8, 0.6], [0.0, 1.0]])}
>>> nearest_match(q, [k for k, _ in candidates], names, threshold=0.7)
Match(key='ent-charles', similarity=0.8, exact=False)
>>> nearest_match(q, [k for k, _ in candidates], names, threshold=0.9) is None
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from agrag_lab.kg.text import match_key

__all__ = ["Match", "exact_match", "nearest_match"]


@dataclass(frozen=True)
class Match:
    """The hit a name resolved to: its key, the similarity of the name with it, whether a name was equal."""

    key: str
    similarity: float
    exact: bool


def exact_match(name: str, candidates: Sequence[tuple[str, Sequence[str]]]) -> Match | None:
    """The first candidate (in search order) one of whose names is ``name``, by :func:`match_key`."""
    wanted = match_key(name)
    if not wanted:
        return None
    for key, names in candidates:
        if any(match_key(n) == wanted for n in names):
            return Match(key, 1.0, True)
    return None


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    out: np.ndarray = rows / np.where(norms == 0, 1.0, norms)
    return out


def nearest_match(
    query: np.ndarray, order: Sequence[str], name_vectors: Mapping[str, np.ndarray], *, threshold: float
) -> Match | None:
    """The candidate whose nearest name is most similar to ``query``, if that similarity reaches ``threshold``.

    Parameters
    ----------
    query : ndarray
        The asked name's embedding.
    order : sequence of str
        Candidate keys in search order (ties go to the earlier).
    name_vectors : mapping
        Key -> the embeddings of its names, one row each.
    threshold : float
        The least cosine similarity that counts.
    """
    q = _unit(np.asarray(query, dtype=np.float64))
    best: Match | None = None
    for key in order:
        rows = name_vectors.get(key)
        if rows is None or len(rows) == 0:
            continue
        similarity = float(np.max(_unit(np.asarray(rows, dtype=np.float64)) @ q))
        if similarity >= threshold and (best is None or similarity > best.similarity):
            best = Match(key, round(similarity, 6), False)
    return best
