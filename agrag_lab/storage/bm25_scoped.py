"""BM25 over the rows a scope lets through, from an index built over every row.

bm25s bakes the collection's statistics into each stored weight: the number
of documents, each token's document frequency and the average document
length. A scope applied as a weight mask alone keeps those statistics, so a
scoped score still counts the documents outside the scope that contain the
word (two indexes that differ only outside the scope gave ``0.1880`` and
``0.6943`` for the same passage, issue 42). This module scores the scoped
rows as if they were the whole collection: each stored weight is turned back
into its term frequency (an integer, so the inversion is exact once rounded),
and the weight is computed anew with the scoped document count, document
frequencies and average length. Only bm25s's ``lucene`` method (the one every
index is built with) is inverted; the formula is

``idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))``,
``w(t, d) = idf(t) * tf / (tf + k1 * (1 - b + b * dl / avgdl))``.

Examples
--------
>>> import numpy as np
>>> from agrag_lab.storage.keyword import KeywordIndex
>>> texts = ["engine engine loom", "engine notes", "loom cards", "engine"]
>>> whole = KeywordIndex.build(["a", "b", "c", "d"], texts)
>>> alone = KeywordIndex.build(["a", "b"], texts[:2])
>>> mask = np.array([1, 1, 0, 0], dtype=np.float32)
>>> scoped = dict(whole.search("engine loom", 4, mask=mask, scoped=True))
>>> {k: round(v, 6) for k, v in scoped.items()} == {k: round(v, 6) for k, v in alone.search("engine loom", 4)}
True
"""

from __future__ import annotations

import numpy as np

from agrag_lab.storage.bm25_matrix import ScoreMatrix

__all__ = ["SCOPED_METHODS", "derive_lengths", "idf", "scoped_scores"]

#: The bm25s scoring methods whose weights can be scored anew over a subset.
SCOPED_METHODS = frozenset({"lucene"})


def idf(df: np.ndarray | float, n: float) -> np.ndarray:
    """bm25s's ``lucene`` inverse document frequency of tokens found in ``df`` of ``n`` documents."""
    out: np.ndarray = np.log1p((n - np.asarray(df, dtype=np.float64) + 0.5) / (np.asarray(df, dtype=np.float64) + 0.5))
    return out


def _ratios(matrix: ScoreMatrix) -> np.ndarray:
    """Each stored weight over its token's idf, as ``w / (1 - w)`` (= ``tf / (k1 * L_d)``)."""
    df = np.diff(matrix.indptr).astype(np.float64)
    per_entry = np.repeat(idf(df, float(matrix.num_docs)), np.diff(matrix.indptr))
    w = np.clip(matrix.data.astype(np.float64) / per_entry, 0.0, 1.0 - 1e-12)
    ratios: np.ndarray = w / (1.0 - w)
    return ratios


def derive_lengths(matrix: ScoreMatrix) -> np.ndarray:
    """The token count of every row, read back from the stored weights (for indexes saved without them).

    With ``r = w / (1 - w) = tf / (k1 * L_d)`` per stored weight, a row's
    length is ``dl = k1 * L_d * sum(r)``; the average length that makes the
    lengths' mean equal itself is found by bisection.
    """
    k1, b = matrix.k1, matrix.b
    s = np.bincount(matrix.indices, weights=_ratios(matrix), minlength=matrix.num_docs)[: matrix.num_docs]
    if not s.any():
        return np.zeros(matrix.num_docs)

    def lengths(avgdl: float) -> np.ndarray:
        out: np.ndarray = k1 * s * (1 - b) / (1 - k1 * s * b / avgdl)
        return out

    lo = k1 * b * float(s.max()) * (1 + 1e-12)
    hi = max(2 * lo, float(lengths(lo * 1e6).mean()) * 4 + 1.0)
    for _ in range(80):  # 2**-80 of the bracket: float64 exact
        mid = (lo + hi) / 2
        if float(lengths(mid).mean()) > mid:
            lo = mid
        else:
            hi = mid
    derived: np.ndarray = np.rint(lengths(hi))
    return derived


def scoped_scores(
    matrix: ScoreMatrix, lengths: np.ndarray, token_ids: np.ndarray, mask: np.ndarray
) -> np.ndarray:
    """Each row's BM25 score for the tokens ``token_ids`` over the rows where ``mask`` is positive alone.

    Rows outside the mask score 0. Parameters are the matrix's (``k1``, ``b``);
    ``lengths`` are the rows' token counts (:func:`derive_lengths` for an
    index saved without them).
    """
    k1, b = matrix.k1, matrix.b
    scores = np.zeros(matrix.num_docs, dtype=np.float64)
    inside = mask > 0
    n_scoped = int(inside.sum())
    if not n_scoped:
        return scores
    dl = lengths.astype(np.float64)
    avgdl_all = float(dl.mean()) or 1.0
    avgdl_scoped = float(dl[inside].sum()) / n_scoped or 1.0
    n_all = float(matrix.num_docs)
    for t in token_ids.tolist():
        start, end = int(matrix.indptr[t]), int(matrix.indptr[t + 1])
        rows = matrix.indices[start:end]
        keep = inside[rows]
        if not keep.any():
            continue
        rows = rows[keep]
        w = matrix.data[start:end][keep].astype(np.float64) / idf(float(end - start), n_all)
        w = np.clip(w, 0.0, 1.0 - 1e-12)
        tf = np.rint(w / (1.0 - w) * k1 * (1 - b + b * dl[rows] / avgdl_all))
        tf = np.maximum(tf, 1.0)
        weight = idf(float(rows.size), float(n_scoped))
        scores[rows] += weight * tf / (tf + k1 * (1 - b + b * dl[rows] / avgdl_scoped))
    return scores
