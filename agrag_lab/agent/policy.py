"""The offline policy: a deterministic, extractive answer from fetched passages.

Used when no chat endpoint is configured, so the agent loop runs in a
workshop without a model. Steps (each one a recorded tool call):

1. ``search_evidence`` with the question (hybrid, RRF k=60);
2. ``fetch_evidence`` of the top passages;
3. pick sentences by greedy coverage of the question's content terms
   (Snowball stems, weighted by inverse sentence frequency among the fetched
   sentences, with a small prior for the passage's search rank);
4. a second hop when question terms remain uncovered: ``search_evidence``
   with those words plus the names the chosen sentences introduce (the
   bridge entity of a two-hop question), ``fetch_evidence`` of the new top
   passages, and the choice is made again over everything fetched;
5. the answer is the chosen sentences, each citing the chunk it came from.

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
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from agrag_lab.agent.text import normalize, sentences, terms, words
from agrag_lab.agent.tools import ToolOutcome
from agrag_lab.embedding import Embedder

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


def cite(sentence: str, evidence_id: str) -> str:
    """The sentence with its citation before the final punctuation."""
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
            if key in seen or len(words(sentence)) < 3:
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
) -> list[Candidate]:
    """Greedy coverage: each pick adds the most uncovered question-term weight.

    A sentence scores ``gain + alpha * similarity + prior / rank``: ``gain`` is
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
        q_terms = {t: 1.0 for t in terms(question)}
        chosen = self._choose(question, q_terms, texts, order, similarity)
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
                    chosen = self._choose(question, hop_terms, texts, order, similarity)
        if not chosen:
            notes.append("no fetched sentence shares a content word with the question")
            return "", notes
        return " ".join(cite(c.sentence, c.id) for c in chosen), notes

    def _fetch(self, run: ToolRunner, ids: list[str], texts: dict[str, str], note: str) -> None:
        if not ids:
            return
        fetched = run("fetch_evidence", {"ids": ids}, note)
        for item in fetched.data.get("items", ()):
            if item.get("ok"):
                texts[item["id"]] = item["text"]

    def _choose(
        self,
        question: str,
        q_terms: Mapping[str, float],
        texts: Mapping[str, str],
        order: Mapping[str, int],
        similarity: Similarity | None,
    ) -> list[Candidate]:
        passages = sorted(((i, order.get(i, len(order) + 1), t) for i, t in texts.items()), key=lambda p: p[1])
        pool = shortlist(q_terms, candidates(passages), self.shortlist)
        sims = similarity(question, [c.sentence for c in pool]) if similarity is not None and pool else None
        return choose(
            q_terms, pool, similarity=sims, max_sentences=self.max_sentences, keep_ratio=self.keep_ratio,
            alpha=self.alpha, prior=self.prior,
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
