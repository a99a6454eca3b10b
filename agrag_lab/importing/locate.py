"""Locate a GraphRAG text unit in its document's text (a pure function).

GraphRAG's chunker cuts tokens, not characters, and 3.x prepends metadata
lines (``title: book.txt.``) to each chunk; a unit is found as an exact
substring, first after the previous unit (units overlap and repeat), then
anywhere, then without its leading metadata lines.

A token window can also split a multi-byte character (Chinese, emoji): the
decoded unit then starts or ends with U+FFFD, the replacement character. Such
a unit is found without them and widened to the whole characters they stand
for: placed *approximately* (its chunk is the document's text, byte-exact,
one character wider at a split end). A unit found nowhere is ``None``: the
import keeps it as an unplaced chunk of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Location", "locate_unit"]

#: A metadata line GraphRAG prepends to a chunk: ``key: value.``
_METADATA_LINE = re.compile(r"[A-Za-z_][\w ]*: [^\n]*\n")


@dataclass(frozen=True)
class Location:
    """Where a text unit lies in its document: ``text[start:end]``, after removing ``prefix``."""

    start: int
    end: int
    prefix: str = ""
    approximate: bool = False


def locate_unit(text: str, unit: str, hint: int = 0) -> Location | None:
    """Find ``unit`` in ``text``: first at or after ``hint``, then anywhere; failing
    that, without the metadata lines GraphRAG prepends (``title: book.txt.``).

    Examples
    --------
    >>> locate_unit("Marley was dead. Scrooge knew it.", "Scrooge knew")
    Location(start=17, end=29, prefix='', approximate=False)
    >>> locate_unit("Marley was dead.", "title: carol.txt.\\nMarley was")
    Location(start=0, end=10, prefix='title: carol.txt.\\n', approximate=False)
    >>> locate_unit("Marley was dead.", "Bob Cratchit") is None
    True
    >>> locate_unit("雅各布马利已经死了", "\ufffd布马利\ufffd\ufffd")
    Location(start=1, end=6, prefix='', approximate=True)
    """
    body, prefix = unit, ""
    for _ in range(8):  # GraphRAG writes at most a few metadata lines
        found = _find(text, body, hint)
        if found is not None:
            return Location(found[0], found[1], prefix, found[2])
        match = _METADATA_LINE.match(body)
        if match is None:
            return None
        prefix += match.group(0)
        body = body[match.end() :]
    return None


#: What a decoder writes for the bytes of a character cut in two.
REPLACEMENT = "\ufffd"


def _find(text: str, body: str, hint: int) -> tuple[int, int, bool] | None:
    """``(start, end, approximate)`` of ``body`` in ``text``, else of it without split characters at its ends."""
    if body:
        at = text.find(body, hint)
        if at < 0:
            at = text.find(body)
        if at >= 0:
            return at, at + len(body), False
    head = len(body) - len(body.lstrip(REPLACEMENT))
    tail = len(body) - len(body.rstrip(REPLACEMENT))
    inner = body[head : len(body) - tail]
    if not (head or tail) or not inner.strip():
        return None
    found = _find(text, inner, hint)
    if found is None:
        return None
    start = found[0] - (1 if head and found[0] > 0 else 0)
    end = found[1] + (1 if tail and found[1] < len(text) else 0)
    return start, end, True
