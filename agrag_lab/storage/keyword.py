"""Keyword search with bm25s, persisted per collection, with scope masks.

The index is rebuilt from the current records (bm25s indexes ~2k passages in
milliseconds) and saved atomically next to an ``ids.json`` naming each row.
A scope is applied inside the query as a bm25s ``weight_mask``, never by
filtering after the limit.

Examples
--------
>>> idx = KeywordIndex.build(["a", "b"], ["Charles Babbage designed engines", "Ada Lovelace wrote notes"])
>>> [i for i, _ in idx.search("babbage engine", 5)]
['a']
>>> idx.search("babbage", 5, allowed=lambda i: i != "a")
[]
"""

from __future__ import annotations

import json
import logging
import tempfile
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path

import bm25s
import numpy as np
import Stemmer

from agrag_lab.errors import ArgumentError
from agrag_lab.storage.atomic import replace_dir_atomic

# bm25s sets its own logger to DEBUG on import, so every index build printed a line
logging.getLogger("bm25s").setLevel(logging.WARNING)


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


def tokenize(texts: Sequence[str]) -> list[list[str]]:
    """Lower-case, drop English stopwords, stem: the same for corpus and queries."""
    out = bm25s.tokenize(
        list(texts), stopwords="en", stemmer=_stemmer(), return_ids=False, show_progress=False
    )
    return [list(doc) for doc in out]


class KeywordIndex:
    """A bm25s index over records named by string ids."""

    def __init__(self, ids: Sequence[str], retriever: bm25s.BM25 | None) -> None:
        self.ids: tuple[str, ...] = tuple(ids)
        self._row = {rid: i for i, rid in enumerate(self.ids)}
        self._retriever = retriever

    @classmethod
    def build(cls, ids: Sequence[str], texts: Sequence[str]) -> KeywordIndex:
        """Index ``texts`` (one per id)."""
        if len(ids) != len(texts):
            raise ArgumentError(f"{len(ids)} ids but {len(texts)} texts; give one text per id")
        if not ids:
            return cls((), None)
        retriever = bm25s.BM25()
        retriever.index(tokenize(texts), show_progress=False)
        return cls(ids, retriever)

    def __len__(self) -> int:
        return len(self.ids)

    def mask(self, allowed: Callable[[str], bool]) -> np.ndarray:
        """A 0/1 weight mask over the rows for which ``allowed(id)`` holds."""
        return np.fromiter((1.0 if allowed(i) else 0.0 for i in self.ids), dtype=np.float32, count=len(self.ids))

    def search(
        self,
        query: str,
        limit: int,
        *,
        allowed: Callable[[str], bool] | None = None,
        mask: np.ndarray | None = None,
    ) -> list[tuple[str, float]]:
        """Return up to ``limit`` ``(id, score)`` pairs with a positive score, best first.

        Ties are broken by row order (insertion order), so results are deterministic.
        """
        if self._retriever is None or limit <= 0:
            return []
        tokens = tokenize([query])[0]
        ids = self._retriever.get_tokens_ids(tokens)
        if not ids:
            return []
        if mask is None and allowed is not None:
            mask = self.mask(allowed)
        scores = self._retriever.get_scores_from_ids(ids, weight_mask=mask)
        positive = np.flatnonzero(scores > 0)
        if positive.size == 0:
            return []
        order = positive[np.lexsort((positive, -scores[positive]))][:limit]
        return [(self.ids[i], float(scores[i])) for i in order]

    def save(self, folder: Path) -> None:
        """Write the index to ``folder`` atomically."""
        folder.parent.mkdir(parents=True, exist_ok=True)
        build = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
        (build / "ids.json").write_text(json.dumps(list(self.ids)), encoding="utf-8")
        if self._retriever is not None:
            self._retriever.save(str(build / "bm25s"), show_progress=False)
        replace_dir_atomic(build, folder)

    @classmethod
    def load(cls, folder: Path) -> KeywordIndex:
        """Load an index written by :meth:`save`; a missing folder is an empty index."""
        ids_file = folder / "ids.json"
        if not ids_file.exists():
            return cls((), None)
        ids = json.loads(ids_file.read_text(encoding="utf-8"))
        retriever = bm25s.BM25.load(str(folder / "bm25s")) if ids else None
        return cls(ids, retriever)
