"""Names the corpus must confirm: capitalised words that stand where any word is capitalised.

A rule extractor cannot tell from one sentence whether "Working" in "Working
by 1910" or "Shortly after ..." is a name: the first word of a sentence, a
table cell or a quotation is capitalised anyway. It marks such mentions
``initial`` (:attr:`~agrag_lab.kg.extract.extraction.EntityMention.initial`), and
:func:`confirm_names` decides over the whole corpus: an initial mention is
dropped when the corpus never writes its name capitalised anywhere else and
its first word is a common word there (it occurs in lower case, as itself or
as a singular or plural) or, alone, has the ending of an inflected or derived
English word ("-ing", "-ly", "-tions"...), unless the rest of the name is capitalised.
Mentions of other extractors (``initial`` false) and given facts pass as they are.

Examples
--------
>>> from agrag_lab.kg.extract.build import ChunkExtraction
>>> from agrag_lab.kg.extract.extraction import EntityMention, Extraction
>>> text = "Working by 1910. Babbage was working on it. Babbage wrote."
>>> x = Extraction((EntityMention("Working", "Entity", "c", 0, 7, initial=True),
...                 EntityMention("Babbage", "Entity", "c", 17, 24, initial=True)))
>>> [m.name for m in confirm_names([ChunkExtraction("c", "d", True, text, x)])[0].extraction.entities]
['Babbage']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from agrag_lab.kg.extract import lexicon as lx
from agrag_lab.kg.extract.build import ChunkExtraction
from agrag_lab.kg.extract.extraction import EntityMention
from agrag_lab.kg.text import match_key

__all__ = ["common_form", "confirm_names", "corpus_evidence", "lowercase_vocabulary"]

_LOWER_WORD = re.compile(r"(?<![\w'’-])[a-z][a-z'’-]*[a-z]\b")
#: Endings of inflected and derived English words ("Working", "Shortly", "Instructions"):
#: a lone capitalised word with one of them at a sentence start is no name unless confirmed.
_COMMON_ENDINGS = ("ing", "ed", "ly", "tion", "tions", "sion", "sions", "ment", "ments", "ness", "ism", "ors", "esses")


def lowercase_vocabulary(texts: Iterable[str]) -> frozenset[str]:
    """Every word written in lower case in ``texts``.

    Examples
    --------
    >>> sorted(lowercase_vocabulary(["Working on the Engine, working hard."]))
    ['hard', 'on', 'the', 'working']
    """
    return frozenset(m.group(0) for text in texts for m in _LOWER_WORD.finditer(text))


def common_form(word: str, vocabulary: frozenset[str]) -> bool:
    """Whether ``word`` is a common word of the corpus (itself, singular or plural in lower case).

    Examples
    --------
    >>> v = frozenset({"student", "record", "working"})
    >>> common_form("Students", v), common_form("Records", v), common_form("Menabrea", v)
    (True, True, False)
    """
    w = word.casefold()
    forms = {w, w + "s", w + "es"}
    if w.endswith("s"):
        forms.add(w[:-1])
    if w.endswith("es"):
        forms.add(w[:-2])
    if w.endswith("ies"):
        forms.add(w[:-3] + "y")
    return not forms.isdisjoint(vocabulary)


def _unconfirmed(mention: EntityMention, confirmed: frozenset[str], vocabulary: frozenset[str]) -> bool:
    if not mention.initial or mention.given or match_key(mention.name) in confirmed:
        return False
    words = mention.name.split()
    if any(w[:1].isupper() for w in words[1:]):
        return False  # "Royal Society" at a sentence start is a name whatever "royal" does
    first = words[0].strip("'’")
    lowered = first.casefold()
    derived = len(first) >= 5 and lowered.endswith(_COMMON_ENDINGS) and not (lowered in lx.GIVEN_NAMES or lowered in lx.PLACES)
    return common_form(first, vocabulary) or (len(words) == 1 and derived)


def corpus_evidence(items: Iterable[ChunkExtraction]) -> tuple[frozenset[str], frozenset[str]]:
    """What :func:`confirm_names` reads from the corpus: the keys of names it confirms, and its lower-case words.

    Both are unions over the items, so the evidence of a corpus read in parts
    is the union of the parts' (a streamed build passes it to :func:`confirm_names`).
    """
    items = list(items)
    confirmed = frozenset(
        match_key(m.name) for item in items for m in item.extraction.entities if not m.initial or m.given
    )
    return confirmed, lowercase_vocabulary(item.text for item in items)


def confirm_names(
    items: Sequence[ChunkExtraction], evidence: tuple[frozenset[str], frozenset[str]] | None = None
) -> list[ChunkExtraction]:
    """``items`` without the initial mentions the corpus does not confirm (see the module docstring).

    The corpus is ``items`` unless ``evidence`` (:func:`corpus_evidence` of
    the whole corpus, of which ``items`` is a part) is given. A relation that
    loses an end is dropped with it.
    """
    confirmed, vocabulary = corpus_evidence(items) if evidence is None else evidence
    out = []
    for item in items:
        entities = item.extraction.entities
        dropped = [m for m in entities if _unconfirmed(m, confirmed, vocabulary)]
        if not dropped:
            out.append(item)
            continue
        kept = tuple(m for m in entities if m not in dropped)
        kept_keys = {match_key(m.name) for m in kept}
        gone = {match_key(m.name) for m in dropped} - kept_keys
        relations = tuple(
            r for r in item.extraction.relations if match_key(r.source) not in gone and match_key(r.target) not in gone
        )
        out.append(replace(item, extraction=replace(item.extraction, entities=kept, relations=relations)))
    return out
