"""Snippets: about 200 characters of a passage around its best match with a query.

Query and text are tokenised like the keyword index (lower case, English
stop words dropped, Snowball stems), so a snippet centres on the words that
made a keyword hit. The window is placed where it covers the most distinct
query terms (earliest on ties), then widened to whole words. A snippet is
always an exact substring of the passage, with ``…`` marking cut ends.

Examples
--------
>>> text = "Charles Babbage was born in London. " * 3 + "He designed the Analytical Engine with cards."
>>> make_snippet(text, "analytical engines", width=60)
'…born in London. He designed the Analytical Engine with cards.'
>>> make_snippet("Short text.", "anything")
'Short text.'
>>> make_snippet("话说天下大势，分久必合，合久必分。" * 3 + "刘备与张飞同入村店中饮酒。", "刘备", width=12)
'…合久必分。刘备与张飞同入…'
"""

from __future__ import annotations

import re
from functools import lru_cache

import Stemmer

from agrag_lab.storage.keyword import detect_scheme, is_cjk, tokenize

#: Default snippet width in characters (ellipses not counted).
SNIPPET_WIDTH = 200
#: Ellipsis marking a cut end.
ELLIPSIS = "…"

_WORD = re.compile(r"(?u)\b\w\w+\b")  # bm25s's token pattern

__all__ = ["ELLIPSIS", "SNIPPET_WIDTH", "make_snippet", "match_positions", "query_terms", "strip_ellipses"]


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


@lru_cache(maxsize=4096)
def _stem(word: str) -> str:
    stem: str = _stemmer().stemWord(word.lower())
    return stem


def query_terms(query: str) -> frozenset[str]:
    """The stemmed terms of ``query``, as the keyword index sees them.

    Examples
    --------
    >>> sorted(query_terms("Who designed the engines?"))
    ['design', 'engin', 'who']
    """
    return frozenset(tokenize([query], detect_scheme([query]))[0]) if query.strip() else frozenset()


def match_positions(text: str, terms: frozenset[str]) -> list[tuple[int, int, str]]:
    """``(start, end, term)`` of every word of ``text`` whose stem is in ``terms``.

    Examples
    --------
    >>> match_positions("Engines and an engine", frozenset({"engin"}))
    [(0, 7, 'engin'), (15, 21, 'engin')]
    """
    if not terms:
        return []
    out = []
    for term in terms:  # a CJK word has no spaces around it: found where it occurs
        if any(is_cjk(ch) for ch in term):
            at = text.find(term)
            while at >= 0:
                out.append((at, at + len(term), term))
                at = text.find(term, at + 1)
    for m in _WORD.finditer(text):
        stem = _stem(m.group())
        if stem in terms:
            out.append((m.start(), m.end(), stem))
    return sorted(out)


def _best_centre(matches: list[tuple[int, int, str]], width: int) -> int | None:
    best: tuple[int, int] | None = None  # (-distinct terms, position)
    for start, end, _ in matches:
        centre = (start + end) // 2
        lo, hi = centre - width // 2, centre + width // 2
        distinct = len({t for s, e, t in matches if s >= lo and e <= hi})
        key = (-distinct, centre)
        if best is None or key < best:
            best = key
    return None if best is None else best[1]


def make_snippet(text: str, query: str | None = None, width: int = SNIPPET_WIDTH) -> str:
    """About ``width`` characters of ``text`` around the best match with ``query``.

    Parameters
    ----------
    text : str
        The passage.
    query : str, optional
        Terms to centre on; without a match the snippet starts at the top.
    width : int
        Target width in characters, before widening to whole words.

    Returns
    -------
    str
        An exact substring of ``text`` (stripped of surrounding whitespace),
        with :data:`ELLIPSIS` before and/or after where it was cut.
    """
    body = text.strip()
    if len(body) <= width:
        return body
    offset = len(text) - len(text.lstrip())
    centre = _best_centre(match_positions(body, query_terms(query or "")), width)
    start = 0 if centre is None else max(0, centre - width // 2)
    end = min(len(body), start + width)
    start = max(0, end - width)
    # widen to whole words (at most 30 characters each side); CJK text is cut at any character
    for _ in range(30):
        if start == 0 or not _inside_word(body[start - 1], body[start]):
            break
        start -= 1
    for _ in range(30):
        if end >= len(body) or not _inside_word(body[end - 1], body[end]):
            break
        end += 1
    piece = text[offset + start : offset + end].strip()
    return (ELLIPSIS if start > 0 else "") + piece + (ELLIPSIS if end < len(body) else "")


def _inside_word(before: str, after: str) -> bool:
    """Whether a cut between two characters would split a word (never between CJK characters)."""
    return before.isalnum() and after.isalnum() and not (is_cjk(before) or is_cjk(after))


def strip_ellipses(snippet: str) -> str:
    """The snippet without its leading/trailing :data:`ELLIPSIS` (for substring checks).

    Examples
    --------
    >>> strip_ellipses("…the mill…")
    'the mill'
    """
    return snippet.removeprefix(ELLIPSIS).removesuffix(ELLIPSIS)
