"""Import speed in ``make bench``: the section of :mod:`benchmarks.import_speed` (``make bench-import``), one home.

Each import is set against reading its source and writing the same rows into the same stores (LightRAG's
directory and graphrag 3.3.0's outputs, their stored vectors reused) and against a raw encode of the texts it embeds (the Christmas Carol
GraphRAG output, re-embedded), measured in the same run.
"""

from __future__ import annotations

from pathlib import Path

from agrag_lab.embedding import SentenceTransformerEmbedder
from benchmarks.import_speed import DEFAULT_SOURCES, TITLE, Source, section

Section = tuple[str, list[str]]
__all__ = ["TITLE", "bench_import"]
#: Rounds after the warm-up in ``make bench`` (each re-embedding round encodes the Christmas Carol output twice).
ROUNDS = 3


def bench_import(root: Path, embedder: SentenceTransformerEmbedder) -> Section:
    """The import-speed section over the default sources, the re-embedding import by ``embedder``."""
    return section([Source.parse(s) for s in DEFAULT_SOURCES], root / "import-speed", ROUNDS, embedder)
