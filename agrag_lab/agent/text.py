"""Small, deterministic text helpers: content terms, sentences, passage overlap.

Used by the offline extractive policy (which sentences answer a question) and
by :mod:`benchmarks.agent` (does a cited passage contain a gold one).

Examples
--------
>>> terms("Who worked with Babbage on the engines?")
['work', 'babbag', 'engin']
>>> terms("刘备和张飞在哪里结义？")
['刘备', '张飞', '结义']
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
    "CJK_STOPWORDS",
    "STOPWORDS",
    "ends_with_abbreviation",
    "longest_common_run", "normalize", "overlaps", "sentences", "stem", "terms", "too_short", "words"]

#: Words that carry no content for matching questions to sentences.
STOPWORDS = frozenset(
    ["a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "whose", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves", "did", "does", "name", "named", "called", "many", "much", "one", "first"]
)

#: Chinese function words that carry no content (particles, pronouns, copulas, question words' frames).
CJK_STOPWORDS = frozenset(
    ["的", "了", "和", "与", "是", "在", "有", "也", "就", "都", "而", "及", "或", "一个", "这", "那", "他", "她", "它",
     "他们", "我", "你", "吗", "呢", "吧", "啊", "之", "其", "于", "为", "以", "被", "把", "从", "对", "哪", "谁", "什么",
     "怎么", "如何", "为什么", "哪个", "哪些", "哪里", "多少", "几", "个", "们", "着", "过", "又", "还", "并", "等"]
)

_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
#: A run of CJK ideographs, kana or Hangul (segmented as the index's ``cjk`` keyword scheme segments it).
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")
_SENTENCE_END = re.compile(
    r"(?<=[.!?])[\"'”’)\]*_]*\s+(?=[\"'“‘(\[*_]*[A-Z0-9])"  # Latin: a stop, space, then a capital or digit
    r"|(?<=[。！？])[”’」』）)]*"  # CJK: after a full-width stop (no space follows one)
)
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
    """Content terms of ``text`` in order, each once: English words stemmed (stopwords dropped), and
    the words of each Chinese, Japanese or Korean run as the index's ``cjk`` keyword scheme segments
    them (jieba for Chinese; :data:`CJK_STOPWORDS` dropped), so a question in any of them shares
    terms with the sentences that answer it."""
    from agrag_lab.storage.keyword import cjk_words

    out: dict[str, None] = {}
    at = 0
    for run in [*_CJK.finditer(text), None]:
        for w in words(text[at:run.start() if run is not None else len(text)]):
            if w in STOPWORDS or (len(w) < 2 and not w.isdigit()):
                continue
            out[stem(w)] = None
        if run is None:
            break
        for w in cjk_words(run.group()):
            if w not in CJK_STOPWORDS and (len(w) > 1 or not _is_function_char(w)):
                out[w] = None
        at = run.end()
    return list(out)


def too_short(sentence: str) -> bool:
    """Whether a sentence is too short to answer anything: under three words, or, written in a script
    without spaces (Chinese...), under four characters.

    Examples
    --------
    >>> too_short("See above."), too_short("Ada wrote Note G."), too_short("张角起事。"), too_short("好。")
    (True, False, False, True)
    """
    if _CJK.search(sentence):
        return len("".join(sentence.split())) < 4
    return len(words(sentence)) < 3


def _is_function_char(word: str) -> bool:
    """A one-character CJK word that is a function word (content characters such as 汉 stay)."""
    return word in CJK_STOPWORDS or word in "吗呢吧啊哦呀么之乎者也"


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
