"""Bundled datasets: the workshop corpus and the MuSiQue subset.

Each loader returns a :class:`Dataset` with ``documents``, ``queries``
(query id -> text) and ``qrels`` (query id -> {document id: relevance}).

Examples
--------
>>> ds = workshop()
>>> ds.queries["q01"]
'Who worked with Babbage?'
>>> len(musique().documents)
1890
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from agrag_lab.documents import Document
from agrag_lab.errors import DatasetError
from agrag_lab.loaders import load_paths

#: Where the bundled datasets live (the repository's ``datasets/`` folder).
DATASETS_DIR = Path(__file__).resolve().parent.parent / "datasets"


@dataclass(frozen=True)
class Dataset:
    """Documents, queries and graded relevance judgements (qrels).

    ``revisions`` holds later versions of some documents (ingest them after
    ``documents`` to see versioning); ``extra`` holds per-query facts such as
    the gold passage text or the hop count.
    """

    name: str
    documents: tuple[Document, ...]
    queries: Mapping[str, str]
    qrels: Mapping[str, Mapping[str, int]]
    revisions: tuple[Document, ...] = ()
    extra: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def current_documents(self) -> tuple[Document, ...]:
        """The documents as an index holds them after ingesting ``revisions``: each revision in place.

        Examples
        --------
        >>> ws = workshop()
        >>> [d.id for d in ws.current_documents()] == [d.id for d in ws.documents]
        True
        >>> [d.id for d in ws.superseded_documents()]
        ['analytical-engine']
        """
        revised = {d.id: d for d in self.revisions}
        return tuple(revised.get(d.id, d) for d in self.documents)

    def superseded_documents(self) -> tuple[Document, ...]:
        """The first versions that ``revisions`` replace."""
        revised = {d.id for d in self.revisions}
        return tuple(d for d in self.documents if d.id in revised)

    def __post_init__(self) -> None:
        object.__setattr__(self, "queries", MappingProxyType(dict(self.queries)))
        object.__setattr__(self, "qrels", MappingProxyType({q: MappingProxyType(dict(r)) for q, r in self.qrels.items()}))
        object.__setattr__(self, "extra", MappingProxyType(dict(self.extra)))


def _folder(name: str, root: Path | None) -> Path:
    folder = (root or DATASETS_DIR) / name
    if not folder.is_dir():
        raise DatasetError(
            f"dataset folder {folder} is missing; run from a checkout of agrag_lab or pass root=PATH"
        )
    return folder


def workshop(root: Path | None = None) -> Dataset:
    """The workshop corpus about Babbage, Lovelace and their circle (current texts).

    ``documents`` are the first versions; ``revisions`` the revised ones.
    Qrels name each question's gold documents (relevance 1); ``extra[qid]``
    keeps the gold passages, answer and hop count.
    """
    folder = _folder("workshop", root)
    docs = tuple(load_paths([folder / "docs"]))
    revisions = tuple(load_paths([folder / "revisions"])) if (folder / "revisions").is_dir() else ()
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    extra: dict[str, dict[str, Any]] = {}
    for number, line in enumerate((folder / "questions.jsonl").read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            q = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"questions.jsonl:{number}: not valid JSON ({exc.msg})") from exc
        queries[q["id"]] = q["question"]
        qrels[q["id"]] = {g["document_id"]: 1 for g in q["gold"]}
        extra[q["id"]] = {"gold": q["gold"], "answer": q.get("answer"), "hops": q.get("hops", 1)}
    return Dataset("workshop", docs, queries, qrels, revisions, extra)


def hop_type(question_id: str) -> int:
    """Hop count from a MuSiQue id prefix.

    Examples
    --------
    >>> hop_type("3hop1__1234_5678"), hop_type("2hop__1_2")
    (3, 2)
    """
    return int(question_id[0])


def musique(root: Path | None = None) -> Dataset:
    """The MuSiQue subset: 1,890 passages (one document each), 100 questions.

    Gold = the supporting paragraphs, matched to the corpus by (title, text).
    """
    folder = _folder("musique", root)
    corpus = json.loads((folder / "musique_train_corpus.json").read_text(encoding="utf-8"))
    questions = json.loads((folder / "musique_train.json").read_text(encoding="utf-8"))
    docs = tuple(Document(f"musique-{i:04d}", p["title"], p["text"], "text") for i, p in enumerate(corpus))
    by_content = {(p["title"], p["text"]): f"musique-{i:04d}" for i, p in enumerate(corpus)}
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    extra: dict[str, dict[str, Any]] = {}
    for q in questions:
        gold = {}
        for p in q["paragraphs"]:
            if p["is_supporting"]:
                key = (p["title"], p["paragraph_text"])
                if key not in by_content:
                    raise DatasetError(f"MuSiQue question {q['id']}: gold passage {p['title']!r} is not in the corpus")
                gold[by_content[key]] = 1
        queries[q["id"]] = q["question"]
        qrels[q["id"]] = gold
        extra[q["id"]] = {"answer": q["answer"], "hops": hop_type(q["id"]), "aliases": q.get("answer_aliases", [])}
    return Dataset("musique", docs, queries, qrels, (), extra)
