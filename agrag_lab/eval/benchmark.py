"""``Benchmark``: documents, queries and graded relevance judgements (qrels).

A benchmark is plain data. Qrels are keyed by **document id** (a MuSiQue
passage is one document), grades are non-negative integers (0 = judged not
relevant), and ``extra`` holds per-query facts such as the hop count that
:func:`agrag_lab.eval.evaluate` breaks results down by.

Examples
--------
>>> from agrag_lab import Document
>>> bench = Benchmark(
...     "tiny",
...     documents=(Document("a", "A", "Ada wrote Note G."), Document("b", "B", "Babbage.")),
...     queries={"q1": "Who wrote Note G?"},
...     qrels={"q1": {"a": 1}},
...     extra={"q1": {"hops": 1}},
... )
>>> bench.judged_queries
('q1',)
>>> bench.groups()
{'q1': '1-hop'}
>>> Benchmark("bad", bench.documents, {"q1": "?"}, {"q1": {"zzz": 1}})
Traceback (most recent call last):
...
agrag_lab.errors.DatasetError: benchmark 'bad': qrels of query 'q1' name document 'zzz', which is not among the 2 documents; fix the qrels or add the document
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from agrag_lab.documents import Document
from agrag_lab.errors import DatasetError


def _digest(text: str) -> str:
    """SHA-1 of ``text``: the order fixed samples are drawn in."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def _frozen(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class Benchmark:
    """Documents, queries and graded qrels, checked for consistency on creation.

    Parameters
    ----------
    name : str
        Short name, used in reports and file names.
    documents : tuple of Document
        What to ingest. Document ids must be unique.
    queries : mapping
        Query id -> query text.
    qrels : mapping
        Query id -> {document id: grade}; grades are ints >= 0.
    extra : mapping, optional
        Query id -> facts about the query (``hops``, ``answer``, ...).
    revisions : tuple of Document, optional
        Later versions of some documents, ingested after ``documents``.
    description : str, optional
        Where the data comes from and its licence.

    Raises
    ------
    DatasetError
        Duplicate document ids, qrels of unknown queries or documents, or a
        grade that is not a non-negative integer.
    """

    name: str
    documents: tuple[Document, ...]
    queries: Mapping[str, str]
    qrels: Mapping[str, Mapping[str, int]]
    extra: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    revisions: tuple[Document, ...] = ()
    description: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "documents", tuple(self.documents))
        object.__setattr__(self, "revisions", tuple(self.revisions))
        object.__setattr__(self, "queries", _frozen(self.queries))
        object.__setattr__(self, "qrels", _frozen({q: _frozen(r) for q, r in self.qrels.items()}))
        object.__setattr__(self, "extra", _frozen({q: _frozen(e) for q, e in self.extra.items()}))
        self._check()

    def _check(self) -> None:
        where = f"benchmark {self.name!r}"
        ids: set[str] = set()
        for doc in self.documents:
            if doc.id in ids:
                raise DatasetError(f"{where}: document id {doc.id!r} appears twice; document ids must be unique")
            ids.add(doc.id)
        for qid, text in self.queries.items():
            if not isinstance(text, str) or not text.strip():
                raise DatasetError(f"{where}: query {qid!r} has no text; give every query a non-empty text")
        for qid, judged in self.qrels.items():
            if qid not in self.queries:
                raise DatasetError(
                    f"{where}: qrels name query {qid!r}, which is not among the {len(self.queries)} "
                    "queries; fix the qrels or add the query"
                )
            for doc_id, grade in judged.items():
                if doc_id not in ids:
                    raise DatasetError(
                        f"{where}: qrels of query {qid!r} name document {doc_id!r}, which is not among "
                        f"the {len(ids)} documents; fix the qrels or add the document"
                    )
                if isinstance(grade, bool) or not isinstance(grade, int) or grade < 0:
                    raise DatasetError(
                        f"{where}: qrels of query {qid!r} give document {doc_id!r} the grade {grade!r}; "
                        "grades must be integers >= 0"
                    )

    # -- views --------------------------------------------------------------------
    @property
    def judged_queries(self) -> tuple[str, ...]:
        """Query ids with at least one relevant document (the ones evaluated), in order."""
        return tuple(q for q in self.queries if any(g > 0 for g in self.qrels.get(q, {}).values()))

    def relevant(self, query_id: str) -> dict[str, int]:
        """The relevant documents of a query (grade > 0)."""
        return {d: g for d, g in self.qrels.get(query_id, {}).items() if g > 0}

    def groups(self, key: str = "hops") -> dict[str, str]:
        """Query id -> group label from ``extra[qid][key]`` (``"2-hop"`` for hops).

        Queries without the key are left out; an empty dict means no breakdown.
        """
        out: dict[str, str] = {}
        for qid in self.judged_queries:
            value = self.extra.get(qid, {}).get(key)
            if value is None:
                continue
            out[qid] = f"{value}-hop" if key == "hops" else str(value)
        return out

    def subset(self, query_ids: Iterable[str], *, name: str | None = None) -> Benchmark:
        """The same documents with only ``query_ids`` (in the order given).

        Examples
        --------
        >>> from agrag_lab import Document
        >>> b = Benchmark("t", (Document("a", "A", "x"),), {"q1": "x?", "q2": "y?"}, {"q1": {"a": 1}})
        >>> list(b.subset(["q2"]).queries)
        ['q2']
        """
        keep = list(dict.fromkeys(query_ids))
        unknown = [q for q in keep if q not in self.queries]
        if unknown:
            raise DatasetError(f"benchmark {self.name!r} has no queries {unknown[:5]}; pick ids from .queries")
        return Benchmark(
            name or self.name,
            self.documents,
            {q: self.queries[q] for q in keep},
            {q: self.qrels[q] for q in keep if q in self.qrels},
            {q: self.extra[q] for q in keep if q in self.extra},
            self.revisions,
            self.description,
        )

    def sample(self, n: int, *, name: str | None = None) -> Benchmark:
        """``n`` judged queries, the ones whose SHA-1 of the id sorts first (the same on every machine).

        Examples
        --------
        >>> from agrag_lab import Document
        >>> b = Benchmark("t", (Document("a", "A", "x"),), {f"q{i}": "x?" for i in range(5)},
        ...               {f"q{i}": {"a": 1} for i in range(5)})
        >>> b.sample(2).judged_queries == b.sample(2).judged_queries, len(b.sample(2).queries)
        (True, 2)
        """
        if n < 1:
            raise DatasetError(f"sample size must be >= 1 (got {n})")
        chosen = sorted(self.judged_queries, key=_digest)[:n]
        return self.subset([q for q in self.judged_queries if q in set(chosen)], name=name or f"{self.name}-q{n}")

    def with_corpus(self, size: int, *, name: str | None = None) -> Benchmark:
        """The same queries over a smaller corpus: every judged document, plus distractors up to ``size``.

        Distractors are the documents whose SHA-1 of the id sorts first, so
        the corpus is the same on every machine. Scores on it are comparable
        between systems, not with published figures on the full corpus.

        Examples
        --------
        >>> from agrag_lab import Document
        >>> docs = tuple(Document(f"d{i}", f"D{i}", "x") for i in range(5))
        >>> b = Benchmark("t", docs, {"q1": "x?"}, {"q1": {"d4": 1}})
        >>> small = b.with_corpus(2)
        >>> len(small.documents), "d4" in {d.id for d in small.documents}
        (2, True)
        """
        judged = {d for q in self.qrels for d in self.qrels[q]}
        if size < len(judged):
            raise DatasetError(
                f"benchmark {self.name!r}: a corpus of {size} cannot hold its {len(judged)} judged documents; "
                f"give at least {len(judged)}"
            )
        others = sorted(
            (d.id for d in self.documents if d.id not in judged),
            key=_digest,
        )
        keep = judged | set(others[: size - len(judged)])
        return Benchmark(
            name or f"{self.name}-{size}",
            tuple(d for d in self.documents if d.id in keep),
            self.queries,
            self.qrels,
            self.extra,
            tuple(d for d in self.revisions if d.id in keep),
            self.description,
        )

    def __repr__(self) -> str:
        return (
            f"Benchmark({self.name!r}, {len(self.documents)} documents, {len(self.queries)} queries, "
            f"{sum(len(self.relevant(q)) for q in self.queries)} relevant judgements)"
        )
