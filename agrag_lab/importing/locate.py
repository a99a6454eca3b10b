"""Locate a GraphRAG text unit in its document's text (a pure function).

GraphRAG's chunker cuts tokens, not characters, and 3.x prepends metadata
lines (``title: book.txt.``) to each chunk; a unit is found as an exact
substring, first after the previous unit (units overlap and repeat), then
anywhere, then without its leading metadata lines.
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


def locate_unit(text: str, unit: str, hint: int = 0) -> Location | None:
    """Find ``unit`` in ``text``: first at or after ``hint``, then anywhere; failing
    that, without the metadata lines GraphRAG prepends (``title: book.txt.``).

    Examples
    --------
    >>> locate_unit("Marley was dead. Scrooge knew it.", "Scrooge knew")
    Location(start=17, end=29, prefix='')
    >>> locate_unit("Marley was dead.", "title: carol.txt.\\nMarley was")
    Location(start=0, end=10, prefix='title: carol.txt.\\n')
    >>> locate_unit("Marley was dead.", "Bob Cratchit") is None
    True
    """
    body, prefix = unit, ""
    for _ in range(8):  # GraphRAG writes at most a few metadata lines
        if body:
            at = text.find(body, hint)
            if at < 0:
                at = text.find(body)
            if at >= 0:
                return Location(at, at + len(body), prefix)
        match = _METADATA_LINE.match(body)
        if match is None:
            return None
        prefix += match.group(0)
        body = body[match.end() :]
    return None
