"""Small text utilities shared by extraction, resolution and building.

Sentence splitting keeps character offsets; :func:`match_key` is the key used to
compare names (case, diacritics, possessives and punctuation folded away);
:func:`slugify` makes URL-safe slugs; :func:`natural_key` sorts ``c2`` before ``c10``.

Examples
--------
>>> text = "Ada met Mr. Babbage in 1833. G. Stanley Hall came later."
>>> [text[a:b] for a, b in split_sentences(text)]
['Ada met Mr. Babbage in 1833.', 'G. Stanley Hall came later.']
>>> match_key("Babbage's  Analytical-Engine")
'babbage analytical engine'
>>> slugify("Bibliothèque universelle de Genève")
'bibliotheque-universelle-de-geneve'
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = [
    "fold_diacritics",
    "match_key",
    "natural_key",
    "sentence_at",
    "singular",
    "singular_key",
    "slugify",
    "split_sentences",
    "trim_text",
]

#: Words that end with a full stop without ending a sentence.
_ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "st",
        "jr",
        "sr",
        "rev",
        "prof",
        "gen",
        "col",
        "lt",
        "capt",
        "sgt",
        "no",
        "vol",
        "vols",
        "vs",
        "etc",
        "e.g",
        "i.e",
        "inc",
        "co",
        "ltd",
        "corp",
        "mt",
        "ft",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "approx",
        "ca",
        "c",
        "fig",
        "op",
        "pp",
        "ed",
        "eds",
        "est",
        "dept",
        "univ",
        "bros",
    ]
)
_BOUNDARY = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s)")
_WORD_BEFORE = re.compile(r"([^\W\d_][\w.]*)$")
_POSSESSIVE = re.compile(r"['’]s?\b", re.UNICODE)
_NON_WORD = re.compile(r"[^\w]+|_+", re.UNICODE)
_DIGITS = re.compile(r"(\d+)")


def fold_diacritics(text: str) -> str:
    """Remove combining marks: ``"Genève"`` → ``"Geneve"``.

    Examples
    --------
    >>> fold_diacritics("Bibliothèque de Genève")
    'Bibliotheque de Geneve'
    """
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@lru_cache(maxsize=1 << 17)
def match_key(name: str) -> str:
    """Return the key under which two names are considered equal.

    Folds case and diacritics, drops possessive ``'s``, turns punctuation into
    spaces and drops a leading ``"the "``. It is for matching only: names are
    always shown as written.

    Examples
    --------
    >>> match_key("The Royal Society's")
    'royal society'
    >>> match_key("Ada, Countess of Lovelace") == match_key("ada countess of lovelace")
    True
    """
    folded = fold_diacritics(name).casefold()
    folded = _POSSESSIVE.sub("", folded)
    folded = _NON_WORD.sub(" ", folded).strip()
    if folded.startswith("the ") and len(folded) > 4:
        folded = folded[4:]
    return " ".join(folded.split())


def singular(word: str) -> str:
    """An English plural made singular by its ending (for matching only).

    Examples
    --------
    >>> singular("engines"), singular("looms"), singular("bodies"), singular("glass"), singular("genius")
    ('engine', 'loom', 'body', 'glass', 'genius')
    """
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def singular_key(key: str) -> str:
    """A match key with its last word singular: ``"analytical engines"`` → ``"analytical engine"``.

    Examples
    --------
    >>> singular_key("bernoulli numbers")
    'bernoulli number'
    """
    words = key.split()
    return " ".join([*words[:-1], singular(words[-1])]) if words else key


def names_in(text: str, name: str) -> bool:
    """Whether ``text`` names ``name`` as a whole word or phrase.

    Diacritics are folded. A one-word name must hold a capital or a digit and
    match its capitalisation (so neither the entity "State" nor a lower-case
    extraction such as "changing" is named by ordinary words); a longer name
    matches in any case. Names shorter than three characters never match.

    Examples
    --------
    >>> names_in("Who composed Aschenbrodel?", "Aschenbrödel")
    True
    >>> names_in("the state where he died", "State"), names_in("Who worked with babbage?", "Babbage")
    (False, False)
    >>> names_in("what did charles babbage build?", "Charles Babbage")
    True
    >>> names_in("a changing world", "changing")
    False
    """
    if len(name) < 3:
        return False
    folded_name = fold_diacritics(name)
    if folded_name.casefold() not in fold_diacritics(text).casefold():
        return False  # the cheap test first: most names are nowhere in the text
    one_word = len(folded_name.split()) == 1
    if one_word and not any(c.isupper() or c.isdigit() for c in folded_name):
        return False
    flags = 0 if one_word else re.IGNORECASE
    return re.search(rf"(?<!\w){re.escape(folded_name)}(?!\w)", fold_diacritics(text), flags) is not None


def slugify(text: str, max_length: int = 60) -> str:
    """Lowercase ASCII slug of ``text`` (``a-z0-9`` and single hyphens), readable in any script.

    Latin letters lose their diacritics; other scripts are transliterated
    (``anyascii``: Chinese by pinyin syllables, Cyrillic, Greek, Japanese,
    Korean...), so a name written only in them gets an id of its own words,
    stable across runs. Returns ``"entity"`` when nothing is left.

    Examples
    --------
    >>> slugify("Charles Babbage")
    'charles-babbage'
    >>> slugify("刘备"), slugify("Москва"), slugify("Ada 刘备"), slugify("Babbage’s")
    ('liu-bei', 'moskva', 'ada-liu-bei', 'babbages')
    >>> slugify("???")
    'entity'
    """
    folded = fold_diacritics(text)
    if not folded.isascii():
        folded = _transliterated(folded)
    ascii_text = folded.encode("ascii", "ignore").decode("ascii").lower()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")
    if len(slug) > max_length:
        slug = slug[:max_length].rstrip("-")
    return slug or "entity"


def _transliterated(text: str) -> str:
    """``text`` with its non-ASCII letters in ASCII: each ideograph its own syllable (a space after it), other
    scripts as anyascii spells them; other characters (curly quotes, dashes) are left to be dropped as before.

    Examples
    --------
    >>> _transliterated("Ada’s 刘备")
    'Ada’s Liu Bei '
    """
    from anyascii import anyascii

    return "".join(
        c if c.isascii() or not unicodedata.category(c).startswith("L")
        else anyascii(c) + (" " if unicodedata.category(c) == "Lo" and ord(c) >= 0x2E80 else "")
        for c in text
    )


@lru_cache(maxsize=1 << 17)
def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key that orders digit runs by value: ``"doc#c2"`` before ``"doc#c10"``.

    Examples
    --------
    >>> sorted(["d#c10", "d#c2", "d#c1"], key=natural_key)
    ['d#c1', 'd#c2', 'd#c10']
    """
    parts = _DIGITS.split(text)
    return tuple((1, int(p)) if p.isdigit() else (0, p) for p in parts if p)


def _is_boundary(text: str, match: re.Match[str]) -> bool:
    punct = match.group(0)
    if punct[0] != ".":
        return True
    before = _WORD_BEFORE.search(text, 0, match.start())
    if before is not None:
        word = before.group(1)
        if len(word) == 1 and word.isupper():
            return False  # an initial, as in "G. Stanley Hall"
        if word.casefold().rstrip(".") in _ABBREVIATIONS:
            return False
        if "." in word and len(word) <= 6:
            return False  # "U.S." or "e.g."
    rest = text[match.end() :].lstrip()
    return not rest or not rest[0].islower()


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Split ``text`` into sentences, returned as ``(start, end)`` offsets.

    Lines are split first (Markdown list items and table rows are sentences),
    then each line at ``.``, ``!`` or ``?`` followed by whitespace, except after
    an initial or a common abbreviation, or when the next word is lowercase.
    Offsets exclude surrounding whitespace.

    Examples
    --------
    >>> t = "Born in London. He died in 1871.\\n| Babbage | 1791 |"
    >>> [t[a:b] for a, b in split_sentences(t)]
    ['Born in London.', 'He died in 1871.', '| Babbage | 1791 |']
    """
    spans: list[tuple[int, int]] = []
    for line in re.finditer(r"[^\n]+", text):
        start = line.start()
        for match in _BOUNDARY.finditer(text, line.start(), line.end()):
            if _is_boundary(text, match):
                spans.append((start, match.end()))
                start = match.end()
        spans.append((start, line.end()))
    trimmed: list[tuple[int, int]] = []
    for a, b in spans:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            trimmed.append((a, b))
    return trimmed


def sentence_at(text: str, offset: int, sentences: list[tuple[int, int]] | None = None) -> str:
    """Return the sentence of ``text`` that contains ``offset``.

    An offset before the first sentence (or ``-1``) gives the first sentence.

    Examples
    --------
    >>> sentence_at("One. Two three. Four.", 6)
    'Two three.'
    """
    spans = split_sentences(text) if sentences is None else sentences
    if not spans:
        return ""
    for a, b in spans:
        if a <= offset < b:
            return text[a:b]
    return text[spans[0][0] : spans[0][1]]


def trim_text(text: str, limit: int) -> str:
    """Cut ``text`` to at most ``limit`` characters at a word boundary, adding ``…``.

    Examples
    --------
    >>> trim_text("Charles Babbage was an English polymath.", 20)
    'Charles Babbage was…'
    """
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: max(limit - 1, 1)]
    if text[len(cut)] != " " and " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:") + "…"
