"""Make sure an index holds a benchmark's documents before evaluating on it.

Examples
--------
::

    from agrag_lab.eval import musique
    from agrag_lab.eval.indexing import ensure_index
    ensure_index(".agrag/musique", musique())   # ingests once; later calls change nothing
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agrag_lab.errors import IndexFormatError
from agrag_lab.eval.benchmark import Benchmark

if TYPE_CHECKING:
    from agrag_lab.embedding import Embedder
    from agrag_lab.graph import Graph, IngestReport
    from agrag_lab.progress import Progress

Log = Callable[[str], None]


def document_count(path: str | Path, embedder: Embedder | None = None) -> int:
    """How many documents the index at ``path`` holds (0 when there is no index yet)."""
    from agrag_lab.graph import Graph

    if not (Path(path) / "documents.sqlite").exists():
        return 0
    try:
        with Graph.open(path, embedder=embedder, read_only=True) as graph:
            return graph.stats()["documents"]
    except IndexFormatError:
        return 0


def ingest(
    path: str | Path,
    benchmark: Benchmark,
    *,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
) -> list[IngestReport]:
    """Ingest the benchmark's documents (idempotent: unchanged text is skipped).

    Into an empty index, the documents go first and then their revisions, so
    revised documents get two versions. Into a filled one, only the current
    texts (revisions replacing their originals) are ingested, so a second call
    changes nothing and embeds nothing.
    """
    from agrag_lab.graph import Graph

    reports = []
    with Graph.open(path, embedder=embedder) as graph:
        if graph.stats()["documents"] == 0 or not benchmark.revisions:
            reports.append(graph.ingest(benchmark.documents, progress=progress))
            if benchmark.revisions:
                reports.append(graph.ingest(benchmark.revisions, progress=progress))
        else:
            current = {d.id: d for d in benchmark.documents} | {d.id: d for d in benchmark.revisions}
            reports.append(graph.ingest(current.values(), progress=progress))
    return reports


def ensure_index(
    path: str | Path,
    benchmark: Benchmark,
    *,
    embedder: Embedder | None = None,
    always: bool = False,
    progress: Progress | None = None,
    log: Log | None = None,
) -> list[IngestReport]:
    """Ingest ``benchmark`` into the index at ``path`` when it is empty (or ``always``).

    Returns the ingest reports (empty when nothing was ingested).
    """
    if not always and document_count(path, embedder) > 0:
        return []
    if log is not None:
        log(f"ingesting {len(benchmark.documents)} documents of {benchmark.name} into {path}")
    reports = ingest(path, benchmark, embedder=embedder, progress=progress)
    if log is not None:
        for report in reports:
            log(f"{path}: {report}")
    return reports


def missing_documents(graph: Graph, benchmark: Benchmark) -> list[str]:
    """Judged documents of ``benchmark`` that the open index does not hold."""
    wanted = {d for q in benchmark.judged_queries for d in benchmark.relevant(q)}
    return sorted(d for d in wanted if graph.db.document(d) is None)


def check_judged(label: str, graph: Graph, benchmark: Benchmark, *, allow: bool = False, log: Log | None = None) -> None:
    """Refuse (or, with ``allow``, warn about) an index that lacks judged documents of ``benchmark``.

    Every judged document an index lacks counts as a miss for every recipe on
    it: an index whose document ids differ from the benchmark's (an import that
    named its documents otherwise) scores 0.000 and looks "worse, p<0.001"
    when it was never comparable.

    Raises
    ------
    EvaluationError
        ``allow`` is false and the index lacks a judged document (how many, which, and the fixes named).
    """
    from agrag_lab.errors import EvaluationError

    missing = missing_documents(graph, benchmark)
    if not missing:
        return
    wanted = len({d for q in benchmark.judged_queries for d in benchmark.relevant(q)})
    held = [r.id for r in graph.db.documents()][:3]
    problem = (
        f"index {label!r} lacks {len(missing)} of the {wanted} documents {benchmark.name} judges (e.g. "
        f"{', '.join(map(repr, missing[:3]))}; the index holds e.g. {', '.join(map(repr, held)) or 'nothing'}): each "
        "counts as a miss for every recipe, so its scores are not comparable"
        + (" (none of its document ids is the benchmark's: it scores 0)" if len(missing) == wanted else "")
    )
    if not allow:
        raise EvaluationError(
            f"{problem}; ingest the benchmark into it (--ingest), evaluate an index of this corpus, or score it "
            "anyway with --allow-missing-judged"
        )
    if log is not None:
        log(f"warning: {problem} (--allow-missing-judged)")
