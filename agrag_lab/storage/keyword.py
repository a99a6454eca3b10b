"""Keyword search with bm25s, persisted per collection, with scope masks.

The index is rebuilt from the current records (bm25s indexes ~2k passages in
milliseconds) and saved atomically next to an ``ids.json`` naming each row.
A scope is applied inside the query as a bm25s ``weight_mask``, never by
filtering after the limit.

Text in Chinese or Japanese has no spaces between words, so bm25s would read
a whole run of CJK characters as one token. The tokenizer is chosen by the
script of the indexed texts (:func:`detect_scheme`) and recorded in the index
(``tokenizer.json``): ``en`` (lower-case, English stopwords, Snowball stem)
or ``cjk``, where Chinese runs are segmented by jieba (its search mode, which
also yields the shorter words inside a long one), kana runs are cut into
character bigrams, and the rest is read as ``en`` reads it. Queries are
tokenized as the index was.

bm25s builds and saves each index; the index also records its stopwords
(``tokenizer.json``). Opening an index and searching it never imports bm25s
(nor its scipy.sparse, tqdm and requests, 0.2 s of every CLI search): the
query is tokenized by :func:`tokenize` and scored over the saved matrix by
:mod:`agrag_lab.storage.bm25_matrix`, with bm25s's scores to the bit.

Examples
--------
>>> idx = KeywordIndex.build(["a", "b"], ["Charles Babbage designed engines", "Ada Lovelace wrote notes"])
>>> [i for i, _ in idx.search("babbage engine", 5)]
['a']
>>> idx.search("babbage", 5, allowed=lambda i: i != "a")
[]
>>> zh = KeywordIndex.build(["a", "b"], ["刘备与张飞同入村店中饮酒", "关羽次之，张飞为弟"])
>>> zh.scheme, [i for i, _ in zh.search("刘备", 5)]
('cjk', ['a'])
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np
import Stemmer

from agrag_lab.errors import ArgumentError
from agrag_lab.imports import without
from agrag_lab.storage import bm25_scoped
from agrag_lab.storage.atomic import replace_dir_atomic
from agrag_lab.storage.bm25_matrix import ScoreMatrix

if TYPE_CHECKING:
    import bm25s


@lru_cache(maxsize=1)
def _bm25s() -> ModuleType:
    """bm25s, imported when a keyword index is first built or read (not at import: 0.24 s that an open,
    ``tools/list`` or a recipe parse never needs, issue 30).

    bm25s imports numba, when installed, for a JIT backend it turns on only under NUMBA_DISABLE_JIT (sic)
    and agrag_lab never asks for: the indexes are built and scored with numpy either way
    (``backend="numpy"``), and numba's import is a second or more on a busy machine. bm25s also sets its
    own logger to DEBUG on import, so every index build printed a line.
    """
    with without("numba"):
        import bm25s

    logging.getLogger("bm25s").setLevel(logging.WARNING)
    module: ModuleType = bm25s
    return module


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


#: The file of an index that holds each row's token count (the lengths a scoped search scores with).
LENGTHS = "lengths.npy"

#: Tokenizer schemes: ``en`` (the default) and ``cjk`` (see the module docstring).
SCHEMES = ("en", "cjk")
#: Share of CJK characters among the letters of the indexed texts above which ``cjk`` is chosen: low,
#: since one Chinese document among English ones must still be searched by words (the ``cjk`` scheme reads
#: English as ``en`` does, single-letter tokens aside).
CJK_SHARE = 0.01
#: Characters :func:`detect_scheme` reads (a sample, spread over the texts).
SAMPLE_CHARS = 200_000
_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_KANA = r"\u3040-\u30ff\u31f0-\u31ff"
_HANGUL = r"\uac00-\ud7af"
_CJK_RUN = re.compile(f"[{_HAN}]+|[{_KANA}]+|[{_HANGUL}]+")
_CJK_CHAR = re.compile(f"[{_HAN}{_KANA}{_HANGUL}]")
_LETTER = re.compile(r"[^\W\d_]")


def is_cjk(char: str) -> bool:
    """Whether ``char`` is a Chinese, Japanese or Korean letter (a run of them has no spaces between words).

    Examples
    --------
    >>> is_cjk("刘"), is_cjk("か"), is_cjk("a")
    (True, True, False)
    """
    return bool(_CJK_CHAR.match(char))


def detect_scheme(texts: Sequence[str]) -> str:
    """``cjk`` when CJK characters are more than :data:`CJK_SHARE` of the letters of ``texts`` (a sample), else ``en``.

    Examples
    --------
    >>> detect_scheme(["Marley was dead"]), detect_scheme(["刘备 Liu Bei"]), detect_scheme(["東京に行きます"])
    ('en', 'cjk', 'cjk')
    """
    step = max(1, len(texts) // 200)
    sample = "".join(t[: SAMPLE_CHARS // 200] for t in texts[::step])
    letters = len(_LETTER.findall(sample))
    return "cjk" if letters and len(_CJK_CHAR.findall(sample)) > CJK_SHARE * letters else "en"


@lru_cache(maxsize=1)
def _jieba() -> object:
    import logging as _logging

    import jieba

    jieba.setLogLevel(_logging.WARNING)
    return jieba


def cjk_words(run: str) -> list[str]:
    """Words of one run of CJK characters: jieba's search-mode words for Han, character bigrams for kana and Hangul."""
    if re.fullmatch(f"[{_HAN}]+", run):
        words: list[str] = list(_jieba().lcut_for_search(run))  # type: ignore[attr-defined]
        return [w for w in words if w.strip()]
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _spaced(text: str, seen: dict[str, str] | None = None) -> str:
    """``text`` with each CJK run replaced by its words, separated by spaces.

    ``seen``: runs already segmented (run -> its spaced words), read and filled, so that a corpus segments each
    distinct run once (a graph's names recur in its entity, relation and chunk texts: a LightRAG import's 311 runs
    are 63 distinct ones).
    """
    memo: dict[str, str] = {} if seen is None else seen

    def words(match: re.Match[str]) -> str:
        run = match.group()
        if run not in memo:
            memo[run] = " " + " ".join(cjk_words(run)) + " "
        return memo[run]

    return _CJK_RUN.sub(words, text)


#: The token pattern of each scheme: ``en`` reads words of two or more letters or digits (bm25s's and
#: scikit-learn's default), ``cjk`` keeps one-character words too (many Chinese words are one character).
PATTERNS = {"en": r"(?u)\b\w\w+\b", "cjk": r"(?u)\b\w+\b"}


@lru_cache(maxsize=len(PATTERNS))
def _splitter(scheme: str) -> Callable[[str], list[str]]:
    return re.compile(PATTERNS[scheme]).findall


@lru_cache(maxsize=1)
def english_stopwords() -> frozenset[str]:
    """bm25s's English stopwords (``stopwords="en"``: NLTK's list), which every keyword index drops.

    An index records the list it was built with (``tokenizer.json``), so a query is read without importing
    bm25s; this function is for texts tokenized outside an index (and for indexes written before that).

    Examples
    --------
    >>> "the" in english_stopwords(), "engine" in english_stopwords()
    (True, False)
    """
    return frozenset(_bm25s().stopwords.STOPWORDS_EN)


def tokenize(
    texts: Sequence[str], scheme: str = "en", stopwords: frozenset[str] | None = None
) -> list[list[str]]:
    """Tokens of each text: lower-case, stopwords dropped, stemmed; CJK runs
    segmented first under the ``cjk`` scheme. The same for corpus and queries.

    This is ``bm25s.tokenize(..., stopwords="en", stemmer=..., return_ids=False)``
    (split by :data:`PATTERNS`, drop stopwords, Snowball-stem each token),
    written out so that a query is tokenized without importing bm25s (0.2 s
    of every CLI search, issue 30); ``tests/test_keyword_index.py``
    checks the tokens equal bm25s's on real corpora in both schemes.

    Parameters
    ----------
    texts
        The texts.
    scheme
        One of :data:`SCHEMES`.
    stopwords
        Tokens to drop (lower-case, before stemming); None for :func:`english_stopwords`.

    Examples
    --------
    >>> tokenize(["Scrooge's partners"])
    [['scroog', 'partner']]
    >>> tokenize(["刘备与张飞"], "cjk")
    [['刘备', '与', '张飞']]
    """
    if scheme not in SCHEMES:
        raise ArgumentError(f"unknown tokenizer scheme {scheme!r}; use one of {', '.join(SCHEMES)}")
    stop = english_stopwords() if stopwords is None else stopwords
    split, stem = _splitter(scheme), _stemmer().stemWords
    out: list[list[str]] = []
    seen: dict[str, str] = {}  # one call's CJK runs, segmented once each
    for text in texts:
        words = split((_spaced(text, seen) if scheme == "cjk" else text).lower())
        out.append(list(stem([w for w in words if w not in stop])))
    return out


class KeywordIndex:
    """A bm25s index over records named by string ids.

    bm25s builds and saves the index; a search tokenizes the query with the
    stopwords the index recorded and sums its tokens' columns of the saved
    score matrix (:class:`~agrag_lab.storage.bm25_matrix.ScoreMatrix`), so
    opening an index and searching it never imports bm25s.
    """

    def __init__(
        self,
        ids: Sequence[str],
        matrix: ScoreMatrix | None,
        scheme: str = "en",
        stopwords: frozenset[str] | None = None,
        retriever: bm25s.BM25 | None = None,
        lengths: np.ndarray | None = None,
    ) -> None:
        self.ids: tuple[str, ...] = tuple(ids)
        #: How texts and queries are tokenized (:data:`SCHEMES`), chosen from the indexed texts' script.
        self.scheme = scheme
        #: The stopwords the index was built without (None: :func:`english_stopwords`, an index written before
        #: they were recorded).
        self.stopwords = stopwords
        self._row = {rid: i for i, rid in enumerate(self.ids)}
        self._matrix = matrix
        self._retriever = retriever  # kept by :meth:`build` for :meth:`save`
        self._lengths = lengths  # tokens per row (None: read back from the weights when a scoped search needs them)

    @classmethod
    def build(cls, ids: Sequence[str], texts: Sequence[str]) -> KeywordIndex:
        """Index ``texts`` (one per id)."""
        if len(ids) != len(texts):
            raise ArgumentError(f"{len(ids)} ids but {len(texts)} texts; give one text per id")
        if not ids:
            return cls((), None)
        scheme, stopwords = detect_scheme(texts), english_stopwords()
        retriever = _bm25s().BM25(backend="numpy")
        tokens = tokenize(texts, scheme, stopwords)
        retriever.index(tokens, show_progress=False)
        lengths = np.fromiter((len(t) for t in tokens), dtype=np.int32, count=len(tokens))
        return cls(ids, ScoreMatrix.of(retriever), scheme, stopwords, retriever, lengths)

    def __len__(self) -> int:
        return len(self.ids)

    def mask(self, allowed: Callable[[str], bool]) -> np.ndarray:
        """A 0/1 weight mask over the rows for which ``allowed(id)`` holds."""
        return np.fromiter((1.0 if allowed(i) else 0.0 for i in self.ids), dtype=np.float32, count=len(self.ids))

    def mask_of(self, ids: Iterable[str]) -> np.ndarray:
        """:meth:`mask` of the rows of ``ids`` (ids not indexed are left out): the work of ``ids``, not of the index."""
        mask = np.zeros(len(self.ids), dtype=np.float32)
        mask[[self._row[i] for i in ids if i in self._row]] = 1.0
        return mask

    def scores(self, query: str, mask: np.ndarray | None = None, *, scoped: bool = False) -> np.ndarray | None:
        """Every row's BM25 score for ``query`` (times ``mask``), or None when no query token is indexed.

        ``scoped``: the scores of the rows ``mask`` lets through as if they were the whole collection
        (document count, document frequencies and average length over them alone,
        :mod:`agrag_lab.storage.bm25_scoped`), so no score counts a row outside the mask.
        """
        matrix = self._matrix
        if matrix is None:
            return None
        token_ids = matrix.token_ids(tokenize([query], self.scheme, self.stopwords)[0])
        if not token_ids.size:
            return None
        if scoped and mask is not None and matrix.method in bm25_scoped.SCOPED_METHODS:
            if self._lengths is None:
                self._lengths = bm25_scoped.derive_lengths(matrix)
            return bm25_scoped.scoped_scores(matrix, self._lengths, token_ids, mask)
        return matrix.scores(token_ids, weight_mask=mask)

    def search(
        self,
        query: str,
        limit: int,
        *,
        allowed: Callable[[str], bool] | None = None,
        mask: np.ndarray | None = None,
        scoped: bool = False,
    ) -> list[tuple[str, float]]:
        """Return up to ``limit`` ``(id, score)`` pairs with a positive score, best first.

        Ties are broken by row order (insertion order), so results are deterministic.
        Only the rows that can reach the first ``limit`` are sorted. ``scoped``: score the rows that
        ``allowed`` or ``mask`` lets through as a collection of their own (see :meth:`scores`), as a
        scope must, so that nothing outside it moves a score or a rank.
        """
        if limit <= 0:
            return []
        if mask is None and allowed is not None:
            mask = self.mask(allowed)
        scores = self.scores(query, mask, scoped=scoped)
        if scores is None:
            return []
        positive = np.flatnonzero(scores > 0)
        if positive.size > limit:  # keep the rows scoring at least the limit-th best (ties at it included)
            kth = np.partition(scores[positive], positive.size - limit)[positive.size - limit]
            positive = positive[scores[positive] >= kth]
        order = positive[np.lexsort((positive, -scores[positive]))][:limit]
        return [(self.ids[i], float(scores[i])) for i in order]

    def save(self, folder: Path) -> None:
        """Write a built index to ``folder`` atomically (bm25s's files, the ids and the tokenizer).

        Raises
        ------
        ArgumentError
            The index was loaded, not built: it is already saved where it was read from.
        """
        if self.ids and self._retriever is None:
            raise ArgumentError("only a built KeywordIndex can be saved (KeywordIndex.build); a loaded one is on disk")
        folder.parent.mkdir(parents=True, exist_ok=True)
        build = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
        try:
            (build / "ids.json").write_text(json.dumps(list(self.ids)), encoding="utf-8")
            tokenizer = {"scheme": self.scheme, "stopwords": sorted(self.stopwords or english_stopwords())}
            (build / "tokenizer.json").write_text(json.dumps(tokenizer, ensure_ascii=False), encoding="utf-8")
            if self._lengths is not None:
                np.save(build / LENGTHS, self._lengths, allow_pickle=False)
            if self._retriever is not None:
                self._retriever.save(str(build / "bm25s"), show_progress=False)
        except BaseException:  # a full disk half-way: the old index stays, the half-written copy goes
            shutil.rmtree(build, ignore_errors=True)
            raise
        replace_dir_atomic(build, folder)

    @classmethod
    def load(cls, folder: Path) -> KeywordIndex:
        """Load an index written by :meth:`save`; a missing folder is an empty index.

        Raises
        ------
        IndexFormatError
            A file of the index is missing or unreadable (``agrag-lab repair`` rebuilds it).
        """
        ids_file = folder / "ids.json"
        if not ids_file.exists():
            return cls((), None)
        ids = json.loads(ids_file.read_text(encoding="utf-8"))
        matrix = ScoreMatrix.load(folder / "bm25s") if ids else None
        recorded = folder / "tokenizer.json"  # absent in an index written before the schemes: en
        tokenizer = json.loads(recorded.read_text(encoding="utf-8")) if recorded.exists() else {}
        stopwords = frozenset(tokenizer["stopwords"]) if "stopwords" in tokenizer else None
        lengths = _read_lengths(folder / LENGTHS, len(ids))
        return cls(ids, matrix, tokenizer.get("scheme", "en"), stopwords, lengths=lengths)


def _read_lengths(path: Path, rows: int) -> np.ndarray | None:
    """The saved token count of each row, or None (absent or unreadable: read back from the weights)."""
    if not path.exists():
        return None
    try:
        lengths: np.ndarray = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        return None
    return lengths if lengths.shape == (rows,) else None
