"""A query's BM25 scores over an index that bm25s built, summed with numpy.

bm25s scores eagerly: when it indexes a corpus it stores every (token,
document) BM25 weight in a sparse matrix with one column per token (CSC:
``data``, ``indices``, ``indptr``), and a query's scores are the sum of its
tokens' columns. That sum is all a search needs, but ``import bm25s`` also
imports scipy.sparse, tqdm (with asyncio), requests and numpy's f2py: about
0.2 s of every CLI search and every MCP server start (issue 30). This module
reads the arrays bm25s saved (or holds the ones it just built) and sums the
same columns in the same order and dtype, so the scores are bm25s's to the
bit (``tests/test_keyword_index.py`` compares them with
``BM25.get_scores_from_ids`` on real corpora). bm25s still builds and saves
every index (:mod:`agrag_lab.storage.keyword`).

Examples
--------
>>> import numpy as np
>>> m = ScoreMatrix(data=np.array([1.0, 2.0, 0.5], dtype=np.float32), indices=np.array([0, 1, 1]),
...                 indptr=np.array([0, 2, 3]), num_docs=2, vocab={"babbag": 0, "engin": 1})
>>> ids = m.token_ids(["engin", "loom", "babbag"])
>>> ids.tolist(), m.scores(ids).tolist()
([1, 0], [1.0, 2.5])
>>> m.scores(ids, weight_mask=np.array([1.0, 0.0], dtype=np.float32)).tolist()
[1.0, 0.0]
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agrag_lab.errors import IndexFormatError

#: The files of a saved bm25s index that a query reads (bm25s's own names, ``BM25.save``).
DATA, INDICES, INDPTR = "data.csc.index.npy", "indices.csc.index.npy", "indptr.csc.index.npy"
VOCAB, PARAMS, NONOCCURRENCE = "vocab.index.json", "params.index.json", "nonoccurrence_array.index.npy"


@dataclass(frozen=True, eq=False)
class ScoreMatrix:
    """The per-token BM25 weights of one bm25s index, and its vocabulary.

    Attributes
    ----------
    data, indices, indptr
        The CSC matrix: the weights of token ``t`` are ``data[indptr[t]:indptr[t + 1]]``, of the documents
        ``indices[indptr[t]:indptr[t + 1]]`` (each document at most once per token).
    num_docs
        Rows of the index.
    vocab
        Token -> column.
    nonoccurrence
        Per-token score every document gets (bm25s's ``bm25l`` and ``bm25+`` methods only), else None.
    k1, b, method
        bm25s's parameters the weights were computed with (:mod:`agrag_lab.storage.bm25_scoped` reads them).
    """

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    num_docs: int
    vocab: Mapping[str, int]
    nonoccurrence: np.ndarray | None = None
    k1: float = 1.5
    b: float = 0.75
    method: str = "lucene"

    @classmethod
    def of(cls, retriever: Any) -> ScoreMatrix:
        """The matrix of a ``bm25s.BM25`` that has indexed a corpus (the arrays are shared, not copied)."""
        scores = retriever.scores
        return cls(
            data=scores["data"], indices=scores["indices"], indptr=scores["indptr"], num_docs=int(scores["num_docs"]),
            vocab=retriever.vocab_dict, nonoccurrence=retriever.nonoccurrence_array,
            k1=float(retriever.k1), b=float(retriever.b), method=str(retriever.method),
        )

    @classmethod
    def load(cls, folder: Path) -> ScoreMatrix:
        """Read the matrix ``bm25s.BM25.save`` wrote to ``folder``.

        Raises
        ------
        IndexFormatError
            A file is missing or unreadable; ``agrag-lab repair`` rebuilds the keyword indexes.
        """
        try:
            params = json.loads((folder / PARAMS).read_text(encoding="utf-8"))
            vocab: dict[str, int] = json.loads((folder / VOCAB).read_text(encoding="utf-8"))
            arrays = [np.load(folder / name, allow_pickle=False) for name in (DATA, INDICES, INDPTR)]
            nonoccurrence = np.load(folder / NONOCCURRENCE) if (folder / NONOCCURRENCE).exists() else None
        except (OSError, ValueError, KeyError) as exc:
            raise IndexFormatError(
                f"the keyword index in {folder} cannot be read ({exc}); run `agrag-lab repair` to rebuild it"
            ) from exc
        data, indices, indptr = arrays
        return cls(data=data.astype(params.get("dtype", "float32"), copy=False), indices=indices, indptr=indptr,
                   num_docs=int(params["num_docs"]), vocab=vocab, nonoccurrence=nonoccurrence,
                   k1=float(params.get("k1", 1.5)), b=float(params.get("b", 0.75)),
                   method=str(params.get("method", "lucene")))

    def token_ids(self, tokens: Sequence[str]) -> np.ndarray:
        """The columns of ``tokens`` in their order (repeats kept), leaving out tokens not in the vocabulary."""
        return np.array([self.vocab[t] for t in tokens if t in self.vocab], dtype=np.int64)

    def scores(self, token_ids: np.ndarray, weight_mask: np.ndarray | None = None) -> np.ndarray:
        """Each document's score: the sum of the columns ``token_ids`` (then times ``weight_mask``), as bm25s sums them."""
        scores = np.zeros(self.num_docs, dtype=self.data.dtype)
        for t in token_ids.tolist():
            start, end = int(self.indptr[t]), int(self.indptr[t + 1])
            scores[self.indices[start:end]] += self.data[start:end]  # a document occurs once per column
        if self.nonoccurrence is not None:
            scores += self.nonoccurrence[token_ids].sum()
        if weight_mask is not None:
            scores *= weight_mask
        return scores
