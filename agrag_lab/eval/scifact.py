"""SciFact (Wadden et al., EMNLP 2020), read from a path the user gives.

SciFact is licensed CC BY-NC 2.0 (non-commercial), so agrag_lab does not
bundle it: point :func:`scifact` at a folder holding ``scifact.zip`` (the
pandas dump of the Hugging Face ``allenai/scifact`` dataset), at the zip
itself, or at a folder with its extracted CSV files.

Claims are queries, abstracts are documents (title, then the abstract's
sentences joined with spaces, as BEIR does), and the ``cited_doc_ids`` of the
chosen split's claims are the qrels (grade 1). The ``validation`` split gives
exactly BEIR-SciFact's test set: 300 claims, 339 judgements.

The ``abstract`` column is the repr of a numpy array of strings with no
commas between them, so it is split with :mod:`tokenize` (one STRING token
per sentence) rather than ``ast.literal_eval``, which would glue them together.

Examples
--------
>>> split_sentences("['First sentence.'\\n 'Second, with a comma.']")
['First sentence.', 'Second, with a comma.']
>>> parse_ids("[14717500 123]")
['14717500', '123']
"""

from __future__ import annotations

import ast
import csv
import io
import tokenize
import zipfile
from collections.abc import Iterator
from pathlib import Path

from agrag_lab.documents import Document
from agrag_lab.errors import DatasetError
from agrag_lab.eval.benchmark import Benchmark

SPLITS = ("train", "validation")
CORPUS_FILE = "corpus_train.csv"
DESCRIPTION = (
    "SciFact (Wadden et al., EMNLP 2020): claims as queries, abstracts as documents, the split's "
    "cited abstracts as qrels. CC BY-NC 2.0: attribution required, non-commercial use only."
)


def split_sentences(value: str) -> list[str]:
    """The sentences of a numpy-style string-array repr."""
    out: list[str] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(value).readline):
            if token.type == tokenize.STRING:
                out.append(str(ast.literal_eval(token.string)))
    except (tokenize.TokenError, SyntaxError, ValueError) as exc:
        raise DatasetError(f"cannot split {value[:60]!r} into sentences ({exc})") from exc
    return out


def parse_ids(value: str) -> list[str]:
    """The ids of a numpy-style integer-array repr like ``[1 2 3]``."""
    inner = value.strip()
    if not (inner.startswith("[") and inner.endswith("]")):
        raise DatasetError(f"expected a list like '[123 456]', got {value!r}")
    parts = inner[1:-1].replace(",", " ").split()
    for part in parts:
        if not part.isdigit():
            raise DatasetError(f"{part!r} in {value!r} is not a document id")
    return parts


class _Source:
    """CSV files from a zip or a folder."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.zip: Path | None = None
        if path.is_file() and zipfile.is_zipfile(path):
            self.zip = path
        elif (path / "scifact.zip").is_file():
            self.zip = path / "scifact.zip"
        elif not (path / CORPUS_FILE).is_file():
            raise DatasetError(
                f"{path} holds neither scifact.zip nor {CORPUS_FILE}; give the folder with scifact.zip "
                "(e.g. ../shared/datasets/scifact), the zip itself, or a folder of its extracted CSV files"
            )

    def rows(self, name: str, columns: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
        csv.field_size_limit(10**9)
        if self.zip is not None:
            with zipfile.ZipFile(self.zip) as archive:
                if name not in archive.namelist():
                    raise DatasetError(f"{self.zip} has no {name}; is it the SciFact zip?")
                with archive.open(name) as raw:
                    yield from self._read(io.TextIOWrapper(raw, encoding="utf-8", newline=""), name, columns)
        else:
            file = self.path / name
            if not file.is_file():
                raise DatasetError(f"{file} is missing; extract every CSV of scifact.zip into {self.path}")
            with file.open(encoding="utf-8", newline="") as handle:
                yield from self._read(handle, name, columns)

    @staticmethod
    def _read(handle: io.TextIOBase, name: str, columns: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
        reader = csv.DictReader(handle)
        missing = [c for c in columns if c not in (reader.fieldnames or ())]
        if missing:
            raise DatasetError(f"{name}:1: missing column(s) {missing}; expected the columns {list(columns)}")
        for row in reader:
            yield reader.line_num, row


def scifact(path: str | Path, *, split: str = "validation") -> Benchmark:
    """Read SciFact from ``path`` (folder with ``scifact.zip``, the zip, or extracted CSVs).

    Parameters
    ----------
    path : str or Path
        Where the data is, e.g. ``../shared/datasets/scifact``.
    split : {"validation", "train"}
        Whose claims become the queries; ``validation`` = BEIR-SciFact test.

    Raises
    ------
    DatasetError
        The files are missing, a line is malformed, a claim cites an unknown
        abstract, or a claim id has two different texts.
    """
    if split not in SPLITS:
        raise DatasetError(f"unknown SciFact split {split!r}; use one of {SPLITS} (the test split has no labels)")
    source = _Source(Path(path))
    documents: list[Document] = []
    for line, row in source.rows(CORPUS_FILE, ("doc_id", "title", "abstract")):
        try:
            sentences = split_sentences(row["abstract"])
        except ValueError as exc:
            raise DatasetError(f"{CORPUS_FILE}:{line}: {exc}") from exc
        text = " ".join(sentences).strip() or row["title"]
        documents.append(
            Document(
                row["doc_id"],
                row["title"] or row["doc_id"],
                text,
                "text",
                {"structured": row.get("structured", "").strip().lower() == "true"},
            )
        )
    known = {d.id for d in documents}
    name = f"claims_{split}.csv"
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    for line, row in source.rows(name, ("id", "claim", "cited_doc_ids")):
        qid, claim = row["id"], row["claim"]
        if qid in queries and queries[qid] != claim:
            raise DatasetError(f"{name}:{line}: claim id {qid!r} appears with two different texts; ids must be unique")
        queries[qid] = claim
        try:
            cited = parse_ids(row["cited_doc_ids"])
        except ValueError as exc:
            raise DatasetError(f"{name}:{line}: {exc}") from exc
        for doc in cited:
            if doc not in known:
                raise DatasetError(f"{name}:{line}: cited abstract {doc!r} is not in {CORPUS_FILE}")
            qrels.setdefault(qid, {})[doc] = 1
    judged = [q for q in queries if q in qrels]
    return Benchmark(
        "scifact" if split == "validation" else f"scifact-{split}",
        tuple(documents),
        {q: queries[q] for q in judged},
        qrels,
        description=DESCRIPTION,
    )
