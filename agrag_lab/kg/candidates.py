"""Candidates to review: likely duplicate entities, orphans and near-empty entities, each with its reason and evidence.

The rule (pure, over a :class:`~agrag_lab.kg.model.KnowledgeGraph`; measured
in ``docs/curation/NOTES.md``). Two current entities of one label are a
duplicate candidate when one of these holds (its ``score``, the strongest wins):

==================  =====  ==============================================================
reason              score  evidence
==================  =====  ==============================================================
``same_key``        1.00   the names are equal once case, accents (é → e), possessive
                           ``'s``, quotes, punctuation and a leading "the" are folded
                           (:func:`~agrag_lab.kg.text.match_key`): ``"SCROOGE"`` and
                           ``Scrooge``
``abbreviation``    0.85   one name is the initials of the other's words (``RAS`` and
                           ``Royal Astronomical Society``)
``name_within``     0.60   one name's words are all words of the other (``Scrooge`` and
                           ``Ebenezer Scrooge``), a word of 3 letters or more shared, and
                           the longer name is not the shorter's possession
                           (``Scrooge's Nephew`` is someone else)
``description``     0.55   the descriptions' word vectors (TF-IDF, stop words out) have a
                           cosine of at least :data:`DESCRIPTION_MIN`
``neighbours``      0.50   at least 2 shared neighbours and a Jaccard of the neighbour sets
                           of at least :data:`NEIGHBOURS_MIN`
==================  =====  ==============================================================

Each further reason that holds adds 0.05 (one reason alone is weaker than
two: a folded name with alike descriptions, 1.05, comes before a folded name
alone). Pairs are ordered by score, then by the mentions they hold together
(a duplicate that splits many passages matters more), then by ids.

An **orphan** has no relation; a **near-empty** entity has no description
and at most one passage, or a name of at most two characters.

Examples
--------
>>> from agrag_lab.kg.model import Entity, KnowledgeGraph
>>> kg = KnowledgeGraph.create([
...     Entity("ent-a", '"SCROOGE"', "PERSON", description="A miser.", chunk_ids=("c1",)),
...     Entity("ent-b", "Scrooge", "PERSON", description="The miser of the story.", chunk_ids=("c2",)),
...     Entity("ent-c", "Royal Astronomical Society", "ORG", chunk_ids=("c1", "c2")),
...     Entity("ent-d", "RAS", "ORG", chunk_ids=("c2",)),
... ], [])
>>> [(c.entities, c.reasons[0].kind, c.score) for c in duplicate_candidates(kg)]
[(('ent-a', 'ent-b'), 'same_key', 1.0), (('ent-c', 'ent-d'), 'abbreviation', 0.85)]
>>> [(o.entity, o.kind) for o in sparse_entities(kg)][:2]
[('ent-a', 'orphan'), ('ent-b', 'orphan')]
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

from agrag_lab.kg.model import Entity, KnowledgeGraph
from agrag_lab.kg.text import fold_diacritics, match_key

__all__ = [
    "DESCRIPTION_MIN", "NEIGHBOURS_MIN", "DuplicateCandidate", "Reason", "SparseEntity", "duplicate_candidates",
    "sparse_entities",
]

ReasonKind = Literal["same_key", "abbreviation", "name_within", "description", "neighbours"]
SCORES: dict[str, float] = {"same_key": 1.0, "abbreviation": 0.85, "name_within": 0.6, "description": 0.55,
                            "neighbours": 0.5}
#: Added for each further reason that holds.
BONUS = 0.05
DESCRIPTION_MIN = 0.6
NEIGHBOURS_MIN = 0.5
_WORD = re.compile(r"[^\W\d_]{2,}", re.UNICODE)
_STOP_WORDS = ("a an and are as at be by for from has have he her his in is it its of on or she that the their they "
               "this to was were which who with")
_STOP = frozenset(_STOP_WORDS.split())


@dataclass(frozen=True)
class Reason:
    """Why two entities may be one: the rule (``kind``) and its evidence in words."""

    kind: ReasonKind
    evidence: str


@dataclass(frozen=True)
class DuplicateCandidate:
    """Two entities that may be one (``entities`` sorted), with every reason found and a score (see the module)."""

    entities: tuple[str, str]
    names: tuple[str, str]
    label: str
    score: float
    reasons: tuple[Reason, ...]
    mentions: int


@dataclass(frozen=True)
class SparseEntity:
    """An entity worth a look: an ``orphan`` (no relation) or ``near_empty``; ``evidence`` says what it lacks."""

    entity: str
    name: str
    kind: Literal["orphan", "near_empty"]
    evidence: str


def _initials(key: str) -> str:
    return "".join(w[0] for w in key.split() if w)


def _words(key: str) -> set[str]:
    return set(key.split())


def _name_reasons(a: Entity, b: Entity) -> list[Reason]:
    ka, kb = match_key(a.name), match_key(b.name)
    if not ka or not kb:
        return []
    if ka == kb:
        return [Reason("same_key", f"{a.name!r} and {b.name!r} are one name once case, accents and punctuation fold")]
    short, long_ = (ka, kb) if len(ka) <= len(kb) else (kb, ka)
    if " " not in short and len(short) >= 2 and len(long_.split()) >= 2 and short == _initials(long_):
        return [Reason("abbreviation", f"{short!r} is the initials of {long_!r}")]
    ws, wl = _words(short), _words(long_)
    owner = re.compile(rf"\b{re.escape(short)}\s*['’]s?\b", re.IGNORECASE)
    longer = a.name if len(match_key(a.name)) > len(match_key(b.name)) else b.name
    if ws < wl and any(len(w) >= 3 for w in ws) and not owner.search(fold_diacritics(longer)):
        return [Reason("name_within", f"every word of {short!r} is in {long_!r}")]
    return []


def _tfidf(entities: list[Entity]) -> list[dict[str, float]]:
    """Unit-length TF-IDF vectors of the descriptions (empty for none)."""
    docs = [Counter(w for w in _WORD.findall(e.description.casefold()) if w not in _STOP) for e in entities]
    df = Counter(w for d in docs for w in d)
    n = len(docs)
    vectors = []
    for d in docs:
        v = {w: c * math.log((1 + n) / (1 + df[w])) for w, c in d.items()}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        vectors.append({w: x / norm for w, x in v.items() if x > 0})
    return vectors


def duplicate_candidates(graph: KnowledgeGraph, limit: int | None = None) -> list[DuplicateCandidate]:
    """Likely duplicate pairs of current entities, best first (the rule: see the module's docstring).

    Pairs of one label only. Name rules compare every pair of a label; the
    description and neighbour rules compare pairs that share a description
    word or a neighbour (cost grows with those, not with every pair).
    """
    by_label: dict[str, list[Entity]] = defaultdict(list)
    for e in graph.entities.values():
        by_label[e.label].append(e)
    neighbours = graph.neighbour_ids
    found: list[DuplicateCandidate] = []
    for label, group in sorted(by_label.items()):
        vectors = _tfidf(group)
        reasons: dict[tuple[int, int], list[Reason]] = defaultdict(list)
        for i, j in combinations(range(len(group)), 2):
            reasons[(i, j)].extend(_name_reasons(group[i], group[j]))
        posting: dict[str, list[int]] = defaultdict(list)
        for i, v in enumerate(vectors):
            for w in v:
                posting[w].append(i)
        dots: dict[tuple[int, int], float] = defaultdict(float)
        for w, holders in posting.items():
            for i, j in combinations(holders, 2):
                dots[(i, j)] += vectors[i][w] * vectors[j][w]
        for pair, cosine in dots.items():
            if cosine >= DESCRIPTION_MIN:
                reasons[pair].append(Reason("description", f"descriptions alike (TF-IDF cosine {cosine:.2f})"))
        index = {e.id: i for i, e in enumerate(group)}
        near: dict[tuple[int, int], int] = defaultdict(int)
        for e in group:
            for n in neighbours.get(e.id, ()):
                for m in neighbours.get(n, ()):
                    if m in index and index[m] > index[e.id]:
                        near[(index[e.id], index[m])] += 1
        for (i, j), shared in near.items():
            union = len(neighbours[group[i].id] | neighbours[group[j].id])
            jaccard = shared / union if union else 0.0
            if shared >= 2 and jaccard >= NEIGHBOURS_MIN:
                common = sorted(neighbours[group[i].id] & neighbours[group[j].id])
                reasons[(i, j)].append(Reason("neighbours", f"{shared} shared neighbours (Jaccard {jaccard:.2f}): "
                                                            + ", ".join(common[:5])))
        for (i, j), why in reasons.items():
            if not why:
                continue
            why.sort(key=lambda r: -SCORES[r.kind])
            a, b = sorted((group[i], group[j]), key=lambda e: e.id)
            score = round(SCORES[why[0].kind] + BONUS * (len(why) - 1), 4)
            found.append(DuplicateCandidate((a.id, b.id), (a.name, b.name), label, score, tuple(why),
                                            a.mention_count + b.mention_count))
    found.sort(key=lambda c: (-c.score, -c.mentions, c.entities))
    return found[:limit] if limit is not None else found


def sparse_entities(graph: KnowledgeGraph) -> list[SparseEntity]:
    """Orphans (no relation), then near-empty entities (see the module's docstring), each by id."""
    out: list[SparseEntity] = []
    related = {end for e in graph.edges for end in (e.source, e.target)}
    for e in graph.entities.values():
        if e.id not in related:
            out.append(SparseEntity(e.id, e.name, "orphan", f"no relation; {e.mention_count} passages mention it"))
    for e in graph.entities.values():
        lacks = _lacks(e)
        if lacks:
            out.append(SparseEntity(e.id, e.name, "near_empty", lacks))
    return out


def _lacks(e: Entity) -> str:
    if len(e.name.strip()) <= 2:
        return f"a name of {len(e.name.strip())} characters"
    if not e.description.strip() and e.mention_count <= 1:
        return f"no description and {e.mention_count} passage"
    return ""


def candidate_rows(candidates: Iterable[DuplicateCandidate]) -> list[dict[str, object]]:
    """Table rows (one per candidate) for a DataFrame or a widget list."""
    return [{"a": c.entities[0], "b": c.entities[1], "name_a": c.names[0], "name_b": c.names[1], "label": c.label,
             "score": c.score, "reasons": ", ".join(r.kind for r in c.reasons),
             "evidence": "; ".join(r.evidence for r in c.reasons), "mentions": c.mentions} for c in candidates]
