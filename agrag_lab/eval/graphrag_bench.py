"""GraphRAG-Bench Medical (Xiang et al., 2025), read from a path: passages, questions, evidence coverage.

The corpus is one JSON record whose ``context`` holds 44 patient guidelines,
one per line. Each guideline is cut into **passages** of whole sentences of at
most :data:`PASSAGE_CHARS` characters; a passage is one document of the
benchmark (``medical-g03-p017``), so the usual projection scores it directly.

The evidence sentences of a question are paraphrases (see the data's
SOURCE.md), so relevance comes from :mod:`agrag_lab.eval.coverage`: a passage
is relevant to a question when it covers at least one of its evidence
sentences (grade = how many), and ``extra[qid]`` keeps the question's type,
its evidence sentences and which passages cover which (``covered``), for
:func:`coverage_result`.

The full set is 2,062 questions; by default a fixed subsample is drawn:
:data:`PER_TYPE` questions of each of the four types, the ones whose SHA-1 of
the question id sorts first (deterministic, independent of file order).

Examples
--------
>>> pack(["One.", "Two two.", "Three three three."], size=14)
['One. Two two.', 'Three three three.']
>>> sample(["b", "a", "c"], 2) == sorted(["a", "b", "c"], key=_digest)[:2]
True
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agrag_lab.documents import Document
from agrag_lab.errors import DatasetError, EvaluationError
from agrag_lab.eval.benchmark import Benchmark, _digest
from agrag_lab.eval.coverage import CUTOFFS, THRESHOLD, coverage_at, covers, split_sentences
from agrag_lab.eval.shared_data import shared_dataset

if TYPE_CHECKING:
    from agrag_lab.embedding import Embedder
    from agrag_lab.eval.result import EvalResult

#: Question types, in the order they are reported.
TYPES = ("Fact Retrieval", "Complex Reasoning", "Contextual Summarize", "Creative Generation")
#: Questions drawn per type by default (4 x 75 = 300 of 2,062).
PER_TYPE = 75
#: Largest passage, in characters (the ingest's chunk size, so a passage is one chunk).
PASSAGE_CHARS = 800
#: Where ``medical`` without a path is looked for: $AGRAG_GRAPHRAG_BENCH, then ../shared/datasets/...
PATH_ENV = "AGRAG_GRAPHRAG_BENCH"
FOLDER = "graphrag_bench_medical"
#: Where sentence embeddings are cached: $AGRAG_CACHE, else ~/.cache/agrag_lab.
CACHE_ENV = "AGRAG_CACHE"
DESCRIPTION = (
    "GraphRAG-Bench Medical (Xiang et al., arXiv:2506.05690, MIT): 44 patient guidelines cut into passages; "
    "relevance = a passage covers an evidence sentence (cosine of all-MiniLM-L6-v2 embeddings >= {t:.2f})."
)


def sample(ids: Sequence[str], n: int | None) -> list[str]:
    """The ``n`` ids whose SHA-1 sorts first (all of them, so sorted, when ``n`` is None)."""
    ordered = sorted(ids, key=_digest)
    return ordered if n is None else ordered[:n]


def pack(sentences: Sequence[str], *, size: int = PASSAGE_CHARS) -> list[str]:
    """Consecutive sentences joined with spaces into passages of at most ``size`` characters.

    A sentence longer than ``size`` is a passage of its own.
    """
    out: list[str] = []
    current = ""
    for sentence in sentences:
        joined = f"{current} {sentence}" if current else sentence
        if current and len(joined) > size:
            out.append(current)
            current = sentence
        else:
            current = joined
    if current:
        out.append(current)
    return out


def default_path() -> Path:
    """The GraphRAG-Bench Medical folder used when none is given (see :data:`PATH_ENV`)."""
    return shared_dataset(FOLDER, PATH_ENV, "medical")


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise DatasetError(
            f"{path} is missing; give the GraphRAG-Bench Medical folder holding medical.json and "
            "medical_questions.json (e.g. ../shared/datasets/graphrag_bench_medical)"
        )
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}: not valid JSON ({exc})") from exc


def documents(path: str | Path) -> tuple[Document, ...]:
    """The corpus as passages: guideline ``g`` (one line of the context), passage ``p``."""
    data = _read_json(Path(path) / "medical.json")
    if not isinstance(data, list) or not data or not isinstance(data[0], dict) or "context" not in data[0]:
        raise DatasetError(f"{path}/medical.json: expected a list of records with a 'context' string")
    out: list[Document] = []
    guidelines = [g.strip() for g in str(data[0]["context"]).split("\n") if g.strip()]
    for g, text in enumerate(guidelines, 1):
        topic = " ".join(text.split()[:6])
        for p, passage in enumerate(pack(split_sentences(text)), 1):
            out.append(
                Document(f"medical-g{g:02d}-p{p:03d}", f"{topic} (part {p})", passage, "text", {"guideline": g})
            )
    return tuple(out)


def _questions(path: Path) -> list[dict[str, Any]]:
    data = _read_json(path / "medical_questions.json")
    if not isinstance(data, list):
        raise DatasetError(f"{path}/medical_questions.json: expected a list of questions")
    for i, q in enumerate(data):
        missing = [k for k in ("id", "question", "question_type", "evidence") if k not in q]
        if missing:
            raise DatasetError(f"{path}/medical_questions.json: question {i} lacks {missing}")
        if q["question_type"] not in TYPES:
            raise DatasetError(f"{path}/medical_questions.json: question {q['id']!r} has unknown type {q['question_type']!r}")
    return data


def cache_dir() -> Path:
    """Folder for cached sentence embeddings (see :data:`CACHE_ENV`)."""
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "agrag_lab")


def embed_cached(texts: Sequence[str], embedder: Embedder, folder: Path | None = None) -> np.ndarray:
    """``embedder.embed(texts)``, kept in ``folder`` under a hash of the model and the texts."""
    key = _digest(embedder.name + "\x00" + "\x00".join(texts))
    file = (folder or cache_dir()) / f"sentences-{key[:20]}.npy"
    if file.is_file():
        vectors: np.ndarray = np.load(file)
        if vectors.shape[0] == len(texts):
            return vectors
    vectors = np.asarray(embedder.embed(list(texts)), dtype=np.float32)
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        np.save(file, vectors)
    except OSError:  # a read-only cache only costs time
        pass
    return vectors


def medical(
    path: str | Path | None = None,
    *,
    per_type: int | None = PER_TYPE,
    embedder: Embedder | None = None,
    threshold: float = THRESHOLD,
    cache: Path | None = None,
) -> Benchmark:
    """GraphRAG-Bench Medical with coverage-based relevance.

    Parameters
    ----------
    path : str or Path, optional
        The folder with ``medical.json`` and ``medical_questions.json``
        (default: :func:`default_path`).
    per_type : int or None
        Questions drawn per type (see :func:`sample`); None keeps all 2,062.
    embedder : Embedder, optional
        The model for the coverage criterion (default: the bundled one).
    threshold : float
        The coverage cosine (default: the calibrated :data:`THRESHOLD`).
    cache : Path, optional
        Folder for the sentence embeddings (default: :func:`cache_dir`).

    Notes
    -----
    A question none of whose evidence sentences any passage covers has no
    relevant passage and is not evaluated; ``Benchmark.extra`` keeps it.
    """
    if per_type is not None and per_type < 1:
        raise DatasetError(f"per_type must be >= 1 (got {per_type}); None keeps every question")
    folder = Path(path) if path is not None else default_path()
    docs = documents(folder)
    questions = _questions(folder)
    chosen: list[dict[str, Any]] = []
    for kind in TYPES:
        of_type = {q["id"]: q for q in questions if q["question_type"] == kind}
        chosen += [of_type[i] for i in sample(list(of_type), per_type)]
    if embedder is None:
        from agrag_lab.embedding import SentenceTransformerEmbedder

        embedder = SentenceTransformerEmbedder()
    sentences: list[str] = []
    owners: list[int] = []
    for n, doc in enumerate(docs):
        for sentence in split_sentences(doc.text):
            sentences.append(sentence)
            owners.append(n)
    evidence = [str(e) for q in chosen for e in q["evidence"]]
    sentence_vectors = embed_cached(sentences, embedder, cache)
    evidence_vectors = embed_cached(evidence, embedder, cache)
    found = covers(evidence_vectors, sentence_vectors, np.array(owners), threshold=threshold)
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    extra: dict[str, dict[str, Any]] = {}
    at = 0
    for q in chosen:
        n_evidence = len(q["evidence"])
        covered: dict[str, list[int]] = {}
        for i in range(n_evidence):
            for passage in found[at + i]:
                covered.setdefault(docs[passage].id, []).append(i)
        at += n_evidence
        queries[q["id"]] = q["question"]
        if covered:
            qrels[q["id"]] = {d: len(ev) for d, ev in covered.items()}
        extra[q["id"]] = {
            "type": q["question_type"],
            "evidence": tuple(q["evidence"]),
            "covered": {d: tuple(ev) for d, ev in covered.items()},
            "answer": q.get("answer", ""),
        }
    name = "medical" if per_type == PER_TYPE else f"medical-{len(chosen)}"
    return Benchmark(name, docs, queries, qrels, extra, description=DESCRIPTION.format(t=threshold))


def is_coverage_benchmark(benchmark: Benchmark) -> bool:
    """Whether ``benchmark`` is scored by evidence coverage (its queries carry ``evidence`` and ``covered``)."""
    return bool(benchmark.extra) and all("covered" in e and "evidence" in e for e in benchmark.extra.values())


def coverage_result(
    result: EvalResult,
    benchmark: Benchmark,
    *,
    cutoffs: Sequence[int] = CUTOFFS,
    primary: str = "coverage@5",
    stat_test: Callable[..., Any] | None = None,
) -> EvalResult:
    """The systems of ``result`` scored by evidence coverage@k instead of the qrels.

    Each system's projected rankings are re-scored: ``coverage@k`` of a
    question is the share of its evidence sentences covered by its first
    ``k`` passages. Means, bootstrap intervals and the paired Student t-test
    (``ranx.statistical_tests.paired_student_t_test``) against the best
    baseline on ``primary`` are computed as :func:`~agrag_lab.eval.evaluate`
    does; groups are the question types.
    """
    from dataclasses import replace

    from ranx.statistical_tests import paired_student_t_test

    from agrag_lab.eval.metrics import bootstrap_ci
    from agrag_lab.eval.result import SystemScores

    test = stat_test or paired_student_t_test
    metrics = tuple(f"coverage@{k}" for k in cutoffs)
    if primary not in metrics:
        raise EvaluationError(f"primary metric {primary!r} must be one of {list(metrics)}")
    queries = result.queries
    info: Mapping[str, Mapping[str, Any]] = benchmark.extra
    systems: list[SystemScores] = []
    for s in result.systems:
        per_query = {
            m: {
                q: coverage_at(s.rankings.get(q, ()), info[q]["covered"], len(info[q]["evidence"]), k=k)
                for q in queries
            }
            for m, k in zip(metrics, cutoffs, strict=True)
        }
        mean = {m: float(np.mean(list(v.values()))) for m, v in per_query.items()}
        ci = {m: bootstrap_ci(list(v.values())) for m, v in per_query.items()}
        systems.append(replace(s, mean=mean, ci=ci, per_query=per_query))
    kinds = {s.kind for s in systems}
    pool = [s for s in systems if s.kind == ("baseline" if "baseline" in kinds else "recipe")]
    reference = max(pool, key=lambda s: s.mean[primary])
    p_values: dict[str, dict[str, float]] = {}
    for s in systems:
        if s.name == reference.name:
            continue
        p_values[s.name] = {}
        for m in metrics:
            control = np.array([reference.per_query[m][q] for q in queries])
            treatment = np.array([s.per_query[m][q] for q in queries])
            p = 1.0 if np.array_equal(control, treatment) else float(test(control, treatment, 0.05)[0])  # (p, significant)
            p_values[s.name][m] = 1.0 if np.isnan(p) else p
    return replace(
        result,
        benchmark=f"{result.benchmark} (evidence coverage)",
        metrics=metrics,
        systems=tuple(systems),
        reference=reference.name,
        p_values=p_values,
        stat_test="student",
        groups=benchmark.groups("type"),
        config={**result.config, "coverage": benchmark.description, "primary": primary},
    )
