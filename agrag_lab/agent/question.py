"""What a question asks: its entities (names) and its relation words.

The offline policy picks the sentences that *answer* a question, not those
merely about its topic: a sentence that names one of the question's entities
and holds one of its relation words ("leads", "employer", "born") is an
answer candidate; one that only shares the topic is not. Relation words match
across forms and close synonyms: two stems match when one is a prefix of the
other (``lead`` ~ ``leader``), or when both are in one group of
:data:`RELATION_GROUPS` (``lead`` ~ ``head`` ~ ``chief``).

Examples
--------
>>> q = analyse("Who is Bob Cratchit's employer?", ["Bob Cratchit", "Scrooge"])
>>> sorted(q.entity), sorted(q.relation)
(['bob', 'cratchit'], ['employ'])
>>> q.matches(["clerk", "scroog"]), q.matches(["employ"])
(frozenset({'employ'}), frozenset({'employ'}))
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from agrag_lab.agent.text import stem, terms

__all__ = ["RELATION_GROUPS", "QuestionTerms", "analyse", "related"]

#: Relation words that answer for each other (their stems), one group per relation.
RELATION_GROUPS: tuple[frozenset[str], ...] = tuple(
    frozenset(stem(w) for w in group.split())
    for group in (
        "lead leader leads led head heads chief captain director direct command commander manage manager "
        "run runs ran operate operates operated owner owns boss president chair chairman",
        "employ employer employs employed employee clerk work works worked master boss servant apprentice",
        "born birth birthplace native",
        "die died death dead",
        "wrote write writes written author authored",
        "marry married wife husband spouse widow",
        "father mother parent son daughter child children nephew niece uncle aunt brother sister",
        "found founded founder establish established",
        "partner partners partnership colleague",
        "friend friends companion",
        "invent invented inventor design designed designer build built",
    )
)
_NAME = re.compile(r"\b[A-Z][\w'’-]*(?:\s+(?:of|de|von|van|the)?\s*[A-Z][\w'’-]*)*")
_MIN_PREFIX = 4


def related(a: str, b: str) -> bool:
    """Whether two stems name the same relation: equal, one a prefix of the other, or one group.

    Examples
    --------
    >>> related("lead", "leader"), related("lead", "head"), related("lead", "born")
    (True, True, False)
    """
    if a == b:
        return True
    if min(len(a), len(b)) >= _MIN_PREFIX and (a.startswith(b) or b.startswith(a)):
        return True
    return any(a in g and b in g for g in RELATION_GROUPS)


@dataclass(frozen=True)
class QuestionTerms:
    """The content stems of a question, split into entity stems and relation stems."""

    entity: frozenset[str]
    relation: frozenset[str]

    def matches(self, sentence_terms: Iterable[str]) -> frozenset[str]:
        """The question's relation stems that ``sentence_terms`` hold (any form or synonym)."""
        held = set(sentence_terms)
        return frozenset(r for r in self.relation if any(related(r, t) for t in held))

    def answers(self, sentence_terms: Iterable[str]) -> bool:
        """Whether a sentence names a question entity and holds a relation word of it."""
        held = set(sentence_terms)
        return bool(held & self.entity) and bool(self.matches(held))


def analyse(question: str, names: Sequence[str] = ()) -> QuestionTerms:
    """Split the question's stems: those of names it mentions (``names`` found in it, or capitalised) and the rest.

    ``names`` are entity names the index knows (e.g. from ``find_entities``);
    a name counts when every stem of it is in the question.
    """
    asked = terms(question)
    entity: set[str] = set()
    for name in names:
        stems = set(terms(name))
        if stems and stems <= set(asked):
            entity |= stems
    for m in _NAME.finditer(question):
        if m.start() == 0 and " " not in m.group():
            continue  # a sentence-initial word ("Who"), not necessarily a name
        entity |= set(terms(m.group()))
    return QuestionTerms(frozenset(entity), frozenset(t for t in asked if t not in entity))
