"""Pick a benchmark by name or path: ``musique``, ``workshop``, ``scifact[:PATH]``, ``medical[:PATH]`` or a folder.

Examples
--------
>>> load("workshop").name
'workshop'
>>> load("no-such-thing")
Traceback (most recent call last):
...
agrag_lab.errors.DatasetError: unknown benchmark 'no-such-thing': use musique, workshop, scifact[:PATH], medical[:PATH], or the path of a folder with corpus.jsonl, queries.jsonl and qrels.tsv (or with scifact.zip)
"""

from __future__ import annotations

from pathlib import Path

from agrag_lab.errors import DatasetError
from agrag_lab.eval.benchmark import Benchmark
from agrag_lab.eval.bundled import musique, workshop
from agrag_lab.eval.folder import folder
from agrag_lab.eval.graphrag_bench import medical
from agrag_lab.eval.scifact import CORPUS_FILE, scifact
from agrag_lab.eval.shared_data import shared_dataset

#: Where ``scifact`` without a path is looked for: $AGRAG_SCIFACT, then ../shared/datasets/scifact.
SCIFACT_ENV = "AGRAG_SCIFACT"


def scifact_path() -> Path:
    """The SciFact location used when none is given (see :data:`SCIFACT_ENV`; CC BY-NC, so not bundled)."""
    return shared_dataset("scifact", SCIFACT_ENV, "scifact")


def _is_scifact(path: Path) -> bool:
    return path.name.endswith(".zip") or (path / "scifact.zip").is_file() or (path / CORPUS_FILE).is_file()


def load(spec: str) -> Benchmark:
    """The benchmark named by ``spec`` (a name, ``scifact:PATH``, or a folder path).

    Raises
    ------
    DatasetError
        Unknown name, missing path, or a bad file inside the benchmark.
    """
    name, _, rest = spec.partition(":")
    if name.lower() == "musique" and not rest:
        return musique()
    if name.lower() == "workshop" and not rest:
        return workshop()
    if name.lower() == "scifact":
        return scifact(Path(rest) if rest else scifact_path())
    if name.lower() == "medical":
        return medical(Path(rest) if rest else None)
    path = Path(spec)
    if path.exists():
        return scifact(path) if _is_scifact(path) else folder(path)
    raise DatasetError(
        f"unknown benchmark {spec!r}: use musique, workshop, scifact[:PATH], medical[:PATH], or the path of a folder with "
        "corpus.jsonl, queries.jsonl and qrels.tsv (or with scifact.zip)"
    )
