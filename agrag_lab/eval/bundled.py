"""Loaders of the bundled benchmarks: the MuSiQue subset and the workshop questions.

Both read the repository's ``datasets/`` folder through
:mod:`agrag_lab.datasets`, so a document id here is the id the index holds.

Examples
--------
>>> bench = musique()
>>> len(bench.documents), len(bench.queries)
(1890, 100)
>>> sorted(set(bench.groups().values()))
['2-hop', '3-hop', '4-hop']
>>> small = musique(questions=3)
>>> len(small.documents), len(small.queries)
(60, 3)
>>> workshop().queries["q01"]
'Who worked with Babbage?'
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agrag_lab import datasets
from agrag_lab.errors import DatasetError
from agrag_lab.eval.benchmark import Benchmark

MUSIQUE_DESCRIPTION = (
    "MuSiQue-Ans (Trivedi et al., TACL 2022), 100 train questions and their 1,890 passages "
    "as bundled by HippoRAG; CC BY 4.0. Gold = the supporting passages (one document each)."
)
WORKSHOP_DESCRIPTION = (
    "The workshop corpus (24 documents about Babbage, Lovelace and their circle, one revised) "
    "and its 20 questions; gold = the documents holding each question's gold passages. CC BY 4.0."
)


def musique(root: Path | None = None, *, questions: int | None = None) -> Benchmark:
    """The bundled MuSiQue subset: gold = each question's supporting passages.

    Parameters
    ----------
    root : Path, optional
        The ``datasets`` folder (default: the repository's).
    questions : int, optional
        Keep only the first ``questions`` questions and the passages that
        belong to them (their 20 paragraphs each): a small, self-contained
        slice for tests and quick looks.

    Notes
    -----
    ``extra[qid]`` holds ``hops`` (2, 3 or 4, from the id prefix), ``type``
    (the prefix itself, e.g. ``3hop1``), ``answer`` and ``aliases``.
    """
    data = datasets.musique(root)
    extra = {q: {**data.extra[q], "type": q.split("__", 1)[0]} for q in data.queries}
    documents = data.documents
    qids = list(data.queries)
    if questions is not None:
        if questions < 1:
            raise DatasetError(f"questions must be >= 1 (got {questions}); leave it out for all 100")
        qids = qids[:questions]
        keep = _passages_of(root, qids, data.documents)
        documents = tuple(d for d in documents if d.id in keep)
    return Benchmark(
        "musique" if questions is None else f"musique-{len(qids)}",
        documents,
        {q: data.queries[q] for q in qids},
        {q: data.qrels[q] for q in qids},
        {q: extra[q] for q in qids},
        description=MUSIQUE_DESCRIPTION,
    )


def _passages_of(root: Path | None, qids: list[str], documents: tuple[Any, ...]) -> set[str]:
    folder = (root or datasets.DATASETS_DIR) / "musique"
    records = json.loads((folder / "musique_train.json").read_text(encoding="utf-8"))
    by_content = {(d.title, d.text): d.id for d in documents}
    wanted = set(qids)
    out: set[str] = set()
    for record in records:
        if record["id"] in wanted:
            out.update(by_content[(p["title"], p["paragraph_text"])] for p in record["paragraphs"])
    return out


def workshop(root: Path | None = None) -> Benchmark:
    """The workshop corpus and its 20 questions; gold = documents of the gold passages.

    ``revisions`` holds the revised ``analytical-engine`` (ingest it after
    ``documents``: two questions are answered only by the revision).
    ``extra[qid]`` holds ``hops`` (1 or 2), ``answer`` and the gold passages.
    """
    data = datasets.workshop(root)
    return Benchmark(
        "workshop",
        data.documents,
        data.queries,
        data.qrels,
        data.extra,
        data.revisions,
        WORKSHOP_DESCRIPTION,
    )
