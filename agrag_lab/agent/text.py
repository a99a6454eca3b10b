"""Small, deterministic text helpers: content terms, sentences, passage overlap.

Used by the offline extractive policy (which sentences answer a question) and
by :mod:`benchmarks.agent` (does a cited passage contain a gold one).

Examples
--------
>>> terms("Who worked with Babbage on the engines?")
['work', 'babbag', 'engin']
>>> [s for _, _, s in sentences("Ada wrote Note G. It ran on the engine.\\n\\n## Life\\nShe died in 1852.")]
['Ada wrote Note G.', 'It ran on the engine.', 'She died in 1852.']
>>> overlaps("Ada  *wrote* Note G in 1843, in London.", "Ada wrote Note G in 1843")
True
"""

from __future__ import annotations

import re
from functools import cache

__all__ = [
    "ABBREVIATIONS",
    "STOPWORDS",
    "ends_with_abbreviation",
    "longest_common_run", "normalize", "overlaps", "sentences", "stem", "terms", "words"]

#: Words that carry no content for matching questions to sentences.
STOPWORDS = frozenset(
    ["a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "whose", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves", "did", "does", "name", "named", "called", "many", "much", "one", "first"]
)

_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]*_]*\s+(?=[\"'“‘(\[*_]*[A-Z0-9])")
#: Words ending in a full stop that do not end a sentence.
ABBREVIATIONS = ("Mr.", "Mrs.", "Dr.", "St.", "No.", "c.", "ca.", "e.g.", "i.e.", "vs.", "Jr.", "Sr.")


def ends_with_abbreviation(text: str) -> bool:
    """Whether the last word of ``text`` is one of :data:`ABBREVIATIONS`.

    Examples
    --------
    >>> ends_with_abbreviation("built (c."), ends_with_abbreviation("music.")
    (True, False)
    """
    last = text.rstrip().rsplit(None, 1)[-1] if text.strip() else ""
    return last.lstrip("([\"'") in ABBREVIATIONS


@cache
def _stemmer() -> object:
    import Stemmer

    return Stemmer.Stemmer("english")


def stem(word: str) -> str:
    """The English (Snowball) stem of a lower-case word.

    Examples
    --------
    >>> stem("engines"), stem("worked")
    ('engin', 'work')
    """
    stemmer = _stemmer()
    out: str = stemmer.stemWord(word)  # type: ignore[attr-defined]
    return out


def words(text: str) -> list[str]:
    """Lower-case words of ``text`` (possessive endings dropped).

    Examples
    --------
    >>> words("Babbage's engine, 1834")
    ['babbage', 'engine', '1834']
    """
    out = []
    for w in _WORD.findall(text):
        w = w.lower()
        for suffix in ("'s", "’s"):
            if w.endswith(suffix):
                w = w[: -len(suffix)]
        out.append(w)
    return out


def terms(text: str) -> list[str]:
    """Stemmed content terms of ``text`` in order, each once (stopwords dropped)."""
    out: dict[str, None] = {}
    for w in words(text):
        if w in STOPWORDS or (len(w) < 2 and not w.isdigit()):
            continue
        out[stem(w)] = None
    return list(out)


def _is_block(line: str) -> bool:
    stripped = line.lstrip()
    return stripped.startswith(("#", "|", "- ", "* ", "> ")) or bool(re.match(r"\d+\.\s", stripped))


def sentences(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, sentence)`` for each sentence of ``text`` (headings dropped).

    Lines are split first (a heading, a list item or a table row is its own
    unit); running text is then split after ``.``, ``!`` or ``?`` followed by a
    capital or a digit, except after common abbreviations.
    """
    out: list[tuple[int, int, str]] = []
    pos = 0
    for line in text.splitlines(keepends=True):
        start_line, pos = pos, pos + len(line)
        body = line.rstrip("\r\n")
        if not body.strip() or body.lstrip().startswith("#") or set(body.strip()) <= set("|-: "):
            continue
        if _is_block(body):
            lead = len(body) - len(body.lstrip())
            out.append((start_line + lead, start_line + len(body.rstrip()), body.strip()))
            continue
        cut = 0
        for m in _SENTENCE_END.finditer(body):
            piece = body[cut : m.start()]
            if ends_with_abbreviation(piece):
                continue
            _append(out, start_line + cut, piece)
            cut = m.end()
        _append(out, start_line + cut, body[cut:])
    return out


def _append(out: list[tuple[int, int, str]], offset: int, piece: str) -> None:
    lead = len(piece) - len(piece.lstrip())
    stripped = piece.strip()
    if stripped:
        out.append((offset + lead, offset + lead + len(stripped), stripped))


def normalize(text: str) -> str:
    """Lower case, Markdown emphasis and code marks dropped, whitespace collapsed.

    Examples
    --------
    >>> normalize("The *Bibliothèque*   universelle")
    'the bibliothèque universelle'
    """
    return " ".join(re.sub(r"[*_`]", "", text).lower().split())


def longest_common_run(a: list[str], b: list[str]) -> int:
    """Length of the longest run of consecutive words that ``a`` and ``b`` share.

    Examples
    --------
    >>> longest_common_run("a b c d".split(), "x b c y".split())
    2
    """
    best = 0
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0] * (len(b) + 1)
        for j, y in enumerate(b, 1):
            if x == y:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best


def overlaps(cited: str, gold: str, *, fraction: float = 0.5) -> bool:
    """Whether a cited text contains the gold passage, or shares a long run of it.

    True when the normalised gold passage is a substring of the cited text, or
    when the longest run of consecutive words they share covers at least
    ``fraction`` of the gold passage's words (and at least five words, or the
    whole passage if shorter): a chunk boundary that cuts a gold sentence, or a
    span citing part of it, still counts.
    """
    c, g = normalize(cited), normalize(gold)
    if not g:
        return False
    if g in c:
        return True
    gw, cw = words(g), words(c)
    need = max(min(5, len(gw)), int(fraction * len(gw) + 0.999))
    return longest_common_run(gw, cw) >= need
