"""Bring your own benchmark: a BEIR-style folder.

Layout (the names BEIR uses)::

    corpus.jsonl    {"_id": "d1", "title": "...", "text": "...", "metadata": {...}}  one per line
    queries.jsonl   {"_id": "q1", "text": "...", "metadata": {"hops": 2}}          one per line
    qrels.tsv       query-id <TAB> corpus-id <TAB> score   (header line optional)

``qrels/<split>.tsv`` (BEIR's own layout) is read when ``qrels.tsv`` is
absent; TREC lines (``qid Q0 docid grade``) are accepted too. ``title`` and
``metadata`` are optional; a query's ``metadata`` becomes its ``extra``
(``hops`` there drives the per-group breakdown). Queries without any
judgement are dropped, as BEIR does. Every problem raises
:class:`~agrag_lab.errors.DatasetError` naming the file, the line and the fix.

Examples
--------
>>> import json, pathlib, tempfile
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "corpus.jsonl").write_text(json.dumps({"_id": "d1", "title": "Ada", "text": "Ada wrote Note G."}) + "\\n")
>>> _ = (d / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "Who wrote Note G?"}) + "\\n")
>>> _ = (d / "qrels.tsv").write_text("query-id\\tcorpus-id\\tscore\\nq1\\td1\\t1\\n")
>>> folder(d, name="tiny")
Benchmark('tiny', 1 documents, 1 queries, 1 relevant judgements)
>>> _ = (d / "qrels.tsv").write_text("q1\\td9\\t1\\n")
>>> folder(d)
Traceback (most recent call last):
...
agrag_lab.errors.DatasetError: qrels.tsv:1: document id 'd9' is not in corpus.jsonl; fix the id or add the document to the corpus
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agrag_lab.documents import Document
from agrag_lab.errors import AgragError, DatasetError
from agrag_lab.eval.benchmark import Benchmark

_SAFE_ID = re.compile(r"[^A-Za-z0-9._~-]")


def document_id(raw: str) -> str:
    """A URL-safe document id for a corpus id (unsafe characters become ``_``).

    Examples
    --------
    >>> document_id("PMC 12/3")
    'PMC_12_3'
    """
    return _SAFE_ID.sub("_", raw)[:200] or "_"


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    if not path.is_file():
        raise DatasetError(f"{path} is missing; a benchmark folder needs corpus.jsonl, queries.jsonl and qrels.tsv")
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                yield number, line


def _records(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, line in _lines(path):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(
                f"{path.name}:{number}: not valid JSON ({exc.msg}); write one JSON object per line"
            ) from exc
        if not isinstance(record, dict):
            raise DatasetError(f"{path.name}:{number}: expected a JSON object, got {type(record).__name__}")
        for key in required:
            value = record.get(key)
            if not isinstance(value, (str, int)) or (isinstance(value, str) and not value.strip()):
                raise DatasetError(
                    f"{path.name}:{number}: missing field {key!r}; every line needs "
                    + ", ".join(repr(k) for k in required)
                )
        yield number, record


def read_corpus(path: Path) -> tuple[list[Document], dict[str, str]]:
    """Documents of a ``corpus.jsonl`` and the map raw id -> document id."""
    documents: list[Document] = []
    ids: dict[str, str] = {}
    first: dict[str, int] = {}
    for number, record in _records(path, ("_id", "text")):
        raw = str(record["_id"])
        if raw in first:
            raise DatasetError(
                f"{path.name}:{number}: document id {raw!r} appears twice (first on line {first[raw]}); "
                "ids must be unique"
            )
        first[raw] = number
        meta = record.get("metadata") or {}
        scalars = (
            {k: v for k, v in meta.items() if isinstance(v, (str, int, float, bool))} if isinstance(meta, dict) else {}
        )
        ids[raw] = document_id(raw)
        try:
            documents.append(Document(ids[raw], str(record.get("title") or raw), str(record["text"]), "text", scalars))
        except AgragError as exc:
            raise DatasetError(f"{path.name}:{number}: {exc}") from exc
    return documents, ids


def read_queries(path: Path) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    """Queries (id -> text) and their metadata from a ``queries.jsonl``."""
    queries: dict[str, str] = {}
    extra: dict[str, dict[str, Any]] = {}
    first: dict[str, int] = {}
    for number, record in _records(path, ("_id", "text")):
        qid = str(record["_id"])
        if qid in first:
            raise DatasetError(
                f"{path.name}:{number}: query id {qid!r} appears twice (first on line {first[qid]}); ids must be unique"
            )
        first[qid] = number
        queries[qid] = str(record["text"])
        meta = record.get("metadata")
        if isinstance(meta, dict) and meta:
            extra[qid] = dict(meta)
    return queries, extra


def read_qrels(path: Path, queries: dict[str, str], ids: dict[str, str]) -> dict[str, dict[str, int]]:
    """Graded qrels from a BEIR ``.tsv`` (or TREC lines), checked against queries and corpus."""
    qrels: dict[str, dict[str, int]] = {}
    for number, line in _lines(path):
        parts = line.split("\t") if "\t" in line else line.split()
        parts = [p.strip() for p in parts]
        if len(parts) == 4:  # TREC: qid Q0 docid grade
            parts = [parts[0], parts[2], parts[3]]
        if len(parts) != 3:
            raise DatasetError(
                f"{path.name}:{number}: expected 3 tab-separated columns (query-id, corpus-id, score), got {len(parts)}"
            )
        qid, raw, grade_text = parts
        if number == 1 and not grade_text.lstrip("-").isdigit():
            continue  # the header line
        try:
            grade = int(grade_text)
        except ValueError:
            raise DatasetError(f"{path.name}:{number}: score {grade_text!r} is not an integer grade") from None
        if qid not in queries:
            raise DatasetError(
                f"{path.name}:{number}: query id {qid!r} is not in queries.jsonl; fix the id or add the query"
            )
        if raw not in ids:
            raise DatasetError(
                f"{path.name}:{number}: document id {raw!r} is not in corpus.jsonl; fix the id or add the "
                "document to the corpus"
            )
        if grade < 0:
            raise DatasetError(f"{path.name}:{number}: score {grade} is negative; use 0 for not relevant")
        qrels.setdefault(qid, {})[ids[raw]] = grade
    if not qrels:
        raise DatasetError(f"{path.name} holds no judgements; add lines 'query-id<TAB>corpus-id<TAB>score'")
    return qrels


def folder(path: str | Path, *, split: str = "test", name: str | None = None) -> Benchmark:
    """Read a BEIR-style benchmark folder (see the module docstring).

    Parameters
    ----------
    path : str or Path
        The folder holding ``corpus.jsonl``, ``queries.jsonl`` and ``qrels.tsv``.
    split : str
        Which ``qrels/<split>.tsv`` to read when there is no ``qrels.tsv``.
    name : str, optional
        The benchmark's name (default: the folder name).

    Raises
    ------
    DatasetError
        A missing file, a malformed line, a missing field, a duplicate id, or
        qrels naming an unknown query or document.
    """
    root = Path(path)
    if not root.is_dir():
        raise DatasetError(f"{root} is not a folder; give a folder with corpus.jsonl, queries.jsonl and qrels.tsv")
    qrels_path = root / "qrels.tsv"
    if not qrels_path.is_file() and (root / "qrels" / f"{split}.tsv").is_file():
        qrels_path = root / "qrels" / f"{split}.tsv"
    documents, ids = read_corpus(root / "corpus.jsonl")
    queries, extra = read_queries(root / "queries.jsonl")
    qrels = read_qrels(qrels_path, queries, ids)
    judged = [q for q in queries if q in qrels]
    return Benchmark(
        name or root.resolve().name,
        tuple(documents),
        {q: queries[q] for q in judged},
        qrels,
        {q: extra[q] for q in judged if q in extra},
        description=f"BEIR-style folder {root}",
    )
