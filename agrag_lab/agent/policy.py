"""The offline policy: a deterministic, extractive answer from fetched passages.

Used when no chat endpoint is configured, so the agent loop runs in a
workshop without a model. Steps (each one a recorded tool call):

1. ``search_evidence`` with the question (hybrid, RRF k=60);
2. ``fetch_evidence`` of the top passages;
3. ``find_entities`` with the question: on a graph whose entities carry
   descriptions (an imported GraphRAG or LightRAG index), the sentences of
   each description join the candidates, cited by the entity's supporting
   passage (fetched here, so the citation is checked like any other);
4. pick sentences by greedy coverage of the question's content terms
   (Snowball stems, weighted by inverse sentence frequency among the
   candidates, with a small prior for the passage's search rank); a sentence
   that names one of the question's entities *and* holds one of its relation
   words (:mod:`agrag_lab.agent.question`: ``leads`` ~ ``leader`` ~ ``head``)
   scores ``answer_bonus`` more, so the sentence that answers beats those
   merely on the topic;
5. a second hop when question terms remain uncovered: ``search_evidence``
   with those words plus the names the chosen sentences introduce (the
   bridge entity of a two-hop question), ``fetch_evidence`` of the new top
   passages, and the choice is made again over everything fetched;
6. the answer is the chosen sentences, each citing the chunk it came from
   (a description sentence is prefixed by its entity's name when it does not
   name it).

Only fetched text is quoted and only fetched ids are cited, so every citation
passes ``check_citations``.

Examples
--------
>>> p = ExtractivePolicy()
>>> p.search_limit, p.fetch_top, p.max_sentences
(8, 4, 3)
>>> cite("Ada wrote Note G.", "ada@0123456789ab#c3")
'Ada wrote Note G [ada@0123456789ab#c3].'
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from agrag_lab.agent.question import QuestionTerms, analyse
from agrag_lab.agent.text import normalize, sentences, terms, too_short, words
from agrag_lab.agent.tools import ToolOutcome
from agrag_lab.embedding import Embedder
from agrag_lab.evidence.citations import look_alikes

__all__ = ["Candidate", "ExtractivePolicy", "Similarity", "choose", "cite", "embedding_similarity", "shortlist"]

#: Calls a tool and records it: ``(name, arguments, note) -> outcome``.
ToolRunner = Callable[[str, Mapping[str, Any], str], ToolOutcome]
#: Cosine similarity of each sentence to the question: ``(question, sentences) -> scores``.
Similarity = Callable[[str, Sequence[str]], Sequence[float]]

_NAME = re.compile(r"\b[A-Z][a-zà-ÿ]+(?:[- ][A-Z][a-zà-ÿ]+)*")


@dataclass(frozen=True)
class Candidate:
    """A sentence of a fetched passage, with the passage's id and search rank."""

    id: str
    rank: int
    sentence: str
    terms: frozenset[str]
    entity: str = ""  # the entity whose description the sentence is from (empty: a passage's sentence)

    def text(self) -> str:
        """The sentence as the answer states it (a description's sentence names its entity)."""
        if self.entity and self.entity.casefold() not in self.sentence.casefold():
            return f"{self.entity}: {self.sentence}"
        return self.sentence


def cite(sentence: str, evidence_id: str) -> str:
    """The sentence with its citation before the final punctuation.

    Bracketed text in the sentence (a footnote mark ``[1]``, a builder's
    ``[Data: ...]``) is dropped: it would read as a citation that names nothing.

    Examples
    --------
    >>> cite("Ada wrote Note G [2].", "ada@0123456789ab#c3")
    'Ada wrote Note G [ada@0123456789ab#c3].'
    """
    for _, start, end in reversed(look_alikes(sentence)):
        sentence = sentence[:start].rstrip() + sentence[end:]
    s = sentence.rstrip()
    if s and s[-1] in ".!?":
        return f"{s[:-1]} [{evidence_id}]{s[-1]}"
    return f"{s} [{evidence_id}]"


def candidates(passages: Sequence[tuple[str, int, str]]) -> list[Candidate]:
    """Sentences of ``(id, rank, text)`` passages (duplicates across passages kept once)."""
    out: list[Candidate] = []
    seen: set[str] = set()
    for evidence_id, rank, text in passages:
        for _, _, sentence in sentences(text):
            key = normalize(sentence)
            if key in seen or too_short(sentence):
                continue
            seen.add(key)
            out.append(Candidate(evidence_id, rank, sentence, frozenset(terms(sentence))))
    return out


def choose(
    question_terms: Mapping[str, float],
    pool: Sequence[Candidate],
    *,
    similarity: Sequence[float] | None = None,
    max_sentences: int = 3,
    keep_ratio: float = 0.5,
    alpha: float = 1.0,
    prior: float = 0.2,
    question: QuestionTerms | None = None,
    answer_bonus: float = 0.0,
) -> list[Candidate]:
    """Greedy coverage: each pick adds the most uncovered question-term weight.

    A sentence scores ``gain + alpha * similarity + prior / rank`` (plus
    ``answer_bonus`` when it names an entity of ``question`` and holds one of
    its relation words: :meth:`QuestionTerms.answers`): ``gain`` is
    the share of the question's term weight it adds (a term weighs its
    importance, 1 for the question's own terms and less for bridge names,
    times its inverse sentence frequency in ``pool``), ``similarity`` the
    cosine of its embedding with the question's (if given), ``rank`` its
    passage's search rank. Every pick must add some term; later picks must
    score at least ``keep_ratio`` of the first.
    """
    n = len(pool)
    if not n:
        return []
    df = {t: sum(1 for c in pool if t in c.terms) for t in question_terms}
    weight = {t: imp * math.log(1 + n / (1 + df[t])) for t, imp in question_terms.items() if df[t]}
    total = sum(weight.values()) or 1.0
    sims = list(similarity) if similarity is not None else [0.0] * n
    covered: set[str] = set()
    chosen: list[int] = []
    first = 0.0
    while len(chosen) < max_sentences:
        best: tuple[float, int] | None = None
        for i, c in enumerate(pool):
            if i in chosen:
                continue
            gain = sum(w for t, w in weight.items() if t in c.terms and t not in covered) / total
            if gain <= 0:
                continue
            score = gain + alpha * sims[i] + prior / c.rank
            if question is not None and answer_bonus and question.answers(c.terms):
                score += answer_bonus
            if best is None or score > best[0] + 1e-12:
                best = (score, i)
        if best is None or (chosen and best[0] < keep_ratio * first):
            break
        if not chosen:
            first = best[0]
        chosen.append(best[1])
        covered |= pool[best[1]].terms
    return [pool[i] for i in chosen]


def shortlist(question_terms: Mapping[str, float], pool: Sequence[Candidate], size: int) -> list[Candidate]:
    """The ``size`` sentences sharing the most question-term importance (ties: better rank, earlier).

    Sentences sharing no term are dropped: :func:`choose` could never pick them.
    """
    scored = [
        (sum(imp for t, imp in question_terms.items() if t in c.terms), -c.rank, -i, c) for i, c in enumerate(pool)
    ]
    kept = sorted((s for s in scored if s[0] > 0), key=lambda s: (s[0], s[1], s[2]), reverse=True)[:size]
    return [s[3] for s in sorted(kept, key=lambda s: (-s[1], -s[2]))]


@dataclass(frozen=True)
class ExtractivePolicy:
    """Answer by quoting fetched sentences that cover the question (see the module).

    Parameters
    ----------
    mode : {"keyword", "vector", "hybrid"}
        The search mode.
    search_limit : int
        Hits asked of each search.
    fetch_top : int
        Passages fetched after the first search.
    hop_fetch : int
        New passages fetched by the second hop.
    max_sentences : int
        Most sentences in an answer.
    second_hop : bool
        Whether to search again for uncovered question terms.
    alpha, prior, keep_ratio : float
        Weights of :func:`choose`: embedding similarity, search-rank prior,
        and how close to the first pick a later one must score.
    shortlist : int
        Sentences kept for :func:`choose` (the best by term overlap and rank;
        only they are embedded).
    entities : int
        Entities asked of ``find_entities`` (their descriptions join the
        candidates; 0 turns the step off).
    answer_bonus : float
        What a sentence that names a question entity and holds one of its
        relation words scores more (0 turns it off).
    """

    mode: Literal["keyword", "vector", "hybrid"] = "hybrid"
    search_limit: int = 8
    fetch_top: int = 4
    hop_fetch: int = 3
    max_sentences: int = 3
    second_hop: bool = True
    alpha: float = 1.0
    prior: float = 0.2
    keep_ratio: float = 0.5
    shortlist: int = 16
    entities: int = 5
    answer_bonus: float = 0.5

    name = "extractive"

    def answer(
        self, question: str, run: ToolRunner, similarity: Similarity | None = None
    ) -> tuple[str, list[str]]:
        """The answer text (citing evidence ids) and notes on what was done.

        ``similarity(question, sentences)`` gives the cosine similarity of each
        sentence to the question (the agent passes the index's embedder);
        without it sentences are chosen by term coverage and rank alone.
        """
        notes: list[str] = []
        found = run("search_evidence", {"query": question, "mode": self.mode, "limit": self.search_limit},
                    "find candidate passages for the question")
        if not found.ok:
            return "", [f"search failed: {found.error}"]
        order = {i: r for r, i in enumerate(found.ids, 1)}
        texts: dict[str, str] = {}
        self._fetch(run, list(found.ids[: self.fetch_top]), texts, "read the top passages exactly")
        names, described = self._describe(question, run, texts)
        asked = analyse(question, names)
        q_terms = {t: 1.0 for t in terms(question)}
        chosen = self._choose(question, q_terms, texts, order, similarity, asked, described)
        if self.second_hop and chosen:
            covered = set().union(*(c.terms for c in chosen))
            missing = [w for w in words(question) if terms(w) and terms(w)[0] in q_terms and terms(w)[0] not in covered]
            names = _bridge_names(chosen, question)
            if missing and names:
                query = " ".join(dict.fromkeys(missing + names))
                hop = run("search_evidence", {"query": query, "mode": self.mode, "limit": self.search_limit},
                          f"second hop: uncovered {', '.join(missing)} via {', '.join(names)}")
                if hop.ok:
                    new = [i for i in hop.ids if i not in texts][: self.hop_fetch]
                    for rank, i in enumerate(hop.ids, 1):
                        order.setdefault(i, len(found.ids) + rank)
                    self._fetch(run, new, texts, "read the second-hop passages")
                    hop_terms = dict(q_terms)
                    for name in names:
                        for t in terms(name):
                            hop_terms.setdefault(t, 0.5)
                    chosen = self._choose(question, hop_terms, texts, order, similarity, asked, described)
        if not chosen:
            notes.append("no fetched sentence shares a content word with the question")
            return "", notes
        if any(c.entity for c in chosen):
            notes.append("quoted the graph's description of " + ", ".join(dict.fromkeys(c.entity for c in chosen if c.entity))
                         + ", cited by a supporting passage fetched for it")
        return " ".join(cite(c.text(), c.id) for c in chosen), notes

    def _fetch(self, run: ToolRunner, ids: list[str], texts: dict[str, str], note: str) -> None:
        if not ids:
            return
        fetched = run("fetch_evidence", {"ids": ids}, note)
        for item in fetched.data.get("items", ()):
            if item.get("ok"):
                texts[item["id"]] = item["text"]

    def _describe(self, question: str, run: ToolRunner, texts: dict[str, str]) -> tuple[list[str], list[Candidate]]:
        """The names of the entities the question may mention, and the sentences of their descriptions.

        Each description sentence is cited by the entity's first supporting
        passage, which is fetched here (an entity none of whose passages can
        be fetched gives no sentence).
        """
        if self.entities <= 0:
            return [], []
        found = run("find_entities", {"query": question, "limit": self.entities},
                    "find the entities the question names, and what the graph says of them")
        if not found.ok:
            return [], []
        hits = list(found.data.get("entities", ()))
        names = [str(n) for e in hits for n in (e.get("name", ""), *e.get("aliases", ())) if n]
        cited = {e["id"]: e["passages"][0]["id"] for e in hits if e.get("description") and e.get("passages")}
        self._fetch(run, [i for i in dict.fromkeys(cited.values()) if i not in texts], texts,
                    "read a supporting passage of each described entity (what its description is cited by)")
        out: list[Candidate] = []
        for rank, e in enumerate(hits, 1):
            passage = cited.get(e["id"])
            if passage is None or passage not in texts:
                continue
            for _, _, sentence in sentences(str(e["description"])):
                if len(words(sentence)) >= 3:
                    out.append(Candidate(passage, rank, sentence, frozenset(terms(sentence)), str(e["name"])))
        return names, out

    def _choose(
        self,
        question: str,
        q_terms: Mapping[str, float],
        texts: Mapping[str, str],
        order: Mapping[str, int],
        similarity: Similarity | None,
        asked: QuestionTerms | None = None,
        described: Sequence[Candidate] = (),
    ) -> list[Candidate]:
        passages = sorted(((i, order.get(i, len(order) + 1), t) for i, t in texts.items()), key=lambda p: p[1])
        every = candidates(passages)
        seen = {normalize(c.sentence) for c in every}
        every += [c for c in described if normalize(c.sentence) not in seen]
        if asked is not None:  # a relation word in another form or a synonym counts as the question's own
            every = [replace(c, terms=c.terms | asked.matches(c.terms)) for c in every]
        pool = shortlist(q_terms, every, self.shortlist)
        sims = similarity(question, [c.sentence for c in pool]) if similarity is not None and pool else None
        return choose(
            q_terms, pool, similarity=sims, max_sentences=self.max_sentences, keep_ratio=self.keep_ratio,
            alpha=self.alpha, prior=self.prior, question=asked, answer_bonus=self.answer_bonus,
        )


def embedding_similarity(embedder: Embedder) -> Similarity:
    """A :data:`Similarity` from an embedder (cosine of normalised vectors, cached per text).

    Make one per question (the agent does): the cache lives as long as the function.
    """

    cache: dict[str, np.ndarray] = {}

    def unit(v: np.ndarray) -> np.ndarray:
        n = float(np.linalg.norm(v))
        return v / n if n else v

    def similarity(question: str, texts: Sequence[str]) -> list[float]:
        if question not in cache:
            cache[question] = unit(np.asarray(embedder.embed_query(question), dtype=float))
        new = list(dict.fromkeys(t for t in texts if t not in cache))
        if new:
            for text, vector in zip(new, np.asarray(embedder.embed(new), dtype=float), strict=True):
                cache[text] = unit(vector)
        q = cache[question]
        return [float(cache[t] @ q) for t in texts]

    return similarity


def _bridge_names(chosen: Sequence[Candidate], question: str) -> list[str]:
    """Capitalised names in the chosen sentences that the question does not mention."""
    asked = set(terms(question))
    out: dict[str, None] = {}
    for c in chosen:
        for m in _NAME.finditer(c.sentence):
            name = m.group()
            if m.start() == 0 and " " not in name:
                continue  # a sentence-initial word, not necessarily a name
            stems = terms(name)
            if stems and not set(stems) <= asked:
                out[name] = None
    return list(out)[:4]
