"""Which claim each citation of an answer is attached to (pure functions over the answer text).

A citation supports the sentence it stands in; a citation standing alone
after a sentence's full stop (``... was dead. [id]``) supports that sentence.
When a sentence cites several passages for several parts
(``Marley was dead [a] and Scrooge signed the register [b].``), each citation
is given the text between the previous citation and itself, provided that
piece says something (:data:`MIN_WORDS` words); otherwise the whole sentence.
Citations, and GraphRAG's reference groups around them
(``[Data: Sources (3); Entities (5, +more)]``), are removed from a claim.

Examples
--------
>>> text = "Marley was dead [a@0123456789ab#c1]. Scrooge signed the register [a@0123456789ab#c2] and the clerk did too."
>>> spans = [(text.index(c), text.index(c) + len(c)) for c in ("a@0123456789ab#c1", "a@0123456789ab#c2")]
>>> cited_claims(text, spans)
['Marley was dead', 'Scrooge signed the register']
>>> cited_claims("Marley was dead. [x] [y]", [(17, 20), (21, 24)])
['Marley was dead.', 'Marley was dead.']
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["MIN_WORDS", "cited_claims"]

#: Fewest words the text between two citations of one sentence needs to be a claim of its own.
MIN_WORDS = 3

_END = re.compile(r"[.!?。！？]+(?=\s|$)|\n\s*\n|\n(?=\s*[-*\d])")
_WORDS = re.compile(r"[^\W_]+", re.UNICODE)
#: GraphRAG's reference groups, ``[Data: Sources (12); Entities (5, +more)]``: citations, never part of a claim.
_DATA_GROUP = re.compile(r"\[\s*Data\s*:[^\[\]]*\]", re.IGNORECASE)


def _sentences(masked: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of ``masked`` (citations blanked out), the end after its full stop."""
    out: list[tuple[int, int]] = []
    start = 0
    for m in _END.finditer(masked):
        out.append((start, m.end()))
        start = m.end()
    out.append((start, len(masked)))
    return out


def _clean(text: str) -> str:
    """The claim without the brackets its citations stood in, on one line."""
    return re.sub(r"\s+([,.;:!?])", r"\1", re.sub(r"\s+", " ", text)).strip(" ,;")


def cited_claims(text: str, spans: Sequence[tuple[int, int]]) -> list[str]:
    """The claim of each citation ``spans[i]`` (``(start, end)`` in ``text``), in the order given."""
    masked = list(text)
    for start, end in spans:
        masked[start:end] = " " * (end - start)
    blank = _DATA_GROUP.sub(lambda m: " " * len(m.group()), "".join(masked))  # GraphRAG's [Data: Sources (3)]
    blank = re.sub(r"[\[(][\s,;]*[\])]", lambda m: " " * len(m.group()), blank)  # emptied brackets
    sentences = _sentences(blank)
    claims: list[str] = []
    for start, _end in spans:
        index = next((i for i, (s, e) in enumerate(sentences) if s <= start < e or (start == e and i == len(sentences) - 1)),
                     len(sentences) - 1)
        s, e = sentences[index]
        while index > 0 and not _WORDS.search(blank[s:start]) and not _WORDS.search(blank[start:e]):
            index -= 1  # a citation standing alone after a sentence: that sentence's claim
            s, e = sentences[index]
        before = [end for (cs, end) in spans if s <= cs < start]
        piece = blank[max(before, default=s) : min(start, e)]
        whole = blank[s:e]
        chosen = piece if len(_WORDS.findall(piece)) >= MIN_WORDS else whole
        claims.append(_clean(chosen))
    return claims
