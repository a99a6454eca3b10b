"""The name a person sees for an item: one rule for every table, chart, explanation and comparison.

A document title alone does not tell passages apart ("Babbage in Turin, 1840"
four times in one table looks like a duplication bug). A passage (chunk) is
therefore named by its document title, its heading path and its chunk number,
``"title > heading > ... #c3"``; a passage with no heading of its own shows its
first words instead, ``"title: first words… #c3"``. Entities and community
reports keep their name or title. The evidence id itself goes in a hover or a
column, never in prose.

Examples
--------
>>> display_name("chunk", "Babbage in Turin, 1840", key="turin@0123456789ab#c3",
...              heading_path=("Babbage in Turin, 1840", "The lecture"))
'Babbage in Turin, 1840 > The lecture #c3'
>>> display_name("chunk", "Bubye River", key="bubye@0123456789ab#c0", text="Bubye River is a tributary of the Limpopo.")
'Bubye River: is a tributary of the… #c0'
>>> display_name("entity", "Ada Lovelace", key="ent:ada-lovelace")
'Ada Lovelace'
"""

from __future__ import annotations

import unicodedata
from typing import Protocol

#: Characters of a name before it is shortened (a table column, an axis label).
NAME_WIDTH = 56
#: Words of a passage shown when it has no heading of its own.
FIRST_WORDS = 5


class Named(Protocol):
    """What :func:`name_of` reads: an item of a trace (``ItemInfo``) or a result (``SearchResult``)."""

    @property
    def kind(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def heading_path(self) -> tuple[str, ...]: ...


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: two for a wide East Asian character (Chinese, Japanese,
    Korean, full-width forms), none for a combining mark, one for the rest.

    Examples
    --------
    >>> display_width("Ada"), display_width("刘备"), display_width("Café"), display_width("e\u0301")
    (3, 4, 4, 1)
    """
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def pad(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` display columns (:func:`display_width`), as ``f"{text:<{width}}"``
    pads by characters.

    Examples
    --------
    >>> pad("刘备", 6) + "|", pad("Ada", 6) + "|"
    ('刘备  |', 'Ada   |')
    """
    return text + " " * max(0, width - display_width(text))


def _clip(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` display columns (an ellipsis where it was cut)."""
    text = " ".join(text.split())
    if display_width(text) <= width:
        return text
    out, used = [], 0
    for c in text:
        w = display_width(c)
        if used + w > max(1, width - 1):
            break
        out.append(c)
        used += w
    return "".join(out).rstrip() + "…"


def chunk_locator(key: str) -> str:
    """The ``#c3`` (or ``#s120-480``) part of an evidence id; ``""`` for any other key.

    Examples
    --------
    >>> chunk_locator("doc-7@3f9a1c2b0d4e#c12"), chunk_locator("ent:ada")
    ('#c12', '')
    """
    head, sep, tail = key.rpartition("#")
    return f"#{tail}" if sep and "@" in head and tail[:1] in ("c", "s") else ""


def display_name(
    kind: str,
    title: str,
    *,
    key: str = "",
    heading_path: tuple[str, ...] | list[str] = (),
    text: str = "",
    width: int = NAME_WIDTH,
) -> str:
    """The name of an item as shown to a person (see the module docstring).

    Parameters
    ----------
    kind : str
        ``"chunk"``, ``"entity"`` or ``"community"``; only chunks get a path.
    title : str
        The document title (a chunk) or the name / report title.
    key : str
        The item's id; a chunk's ``#cN`` comes from it.
    heading_path : sequence of str
        The chunk's headings, outermost first (a heading equal to the title is not repeated).
    text : str
        The chunk's text: its first words name a chunk that has no heading.
    width : int
        Longest name; middle headings are dropped first (``title > … > last``), then the text is cut.

    Examples
    --------
    >>> display_name("chunk", "Guide", key="g@0123456789ab#c9", heading_path=("Guide", "Part A", "Setup", "Linux"),
    ...              width=30)
    'Guide > … > Linux #c9'
    """
    title = " ".join(title.split()) or key
    if kind != "chunk":
        return _clip(title, width)
    locator = chunk_locator(key)
    suffix = f" {locator}" if locator else ""
    headings = [h for h in (" ".join(h.split()) for h in heading_path) if h and h != title]
    if headings:
        candidates = [[title, *headings]]
        if len(headings) > 1:
            candidates.append([title, "…", headings[-1]])
        for parts in candidates:
            name = " > ".join(parts)
            if display_width(name) + len(suffix) <= width:
                return name + suffix
        return _clip(" > ".join(candidates[-1]), width - len(suffix)) + suffix
    words = text.split()
    lead_title = title.split()
    if [w.lower() for w in words[: len(lead_title)]] == [w.lower() for w in lead_title]:
        words = words[len(lead_title):]  # a passage that opens with its title (Wikipedia): show what follows
    if words:
        lead = " ".join(words[:FIRST_WORDS]) + ("…" if len(words) > FIRST_WORDS else "")
        return _clip(f"{title}: {lead}", width - len(suffix)) + suffix
    return _clip(title, width - len(suffix)) + suffix


def name_of(item: Named, key: str, *, width: int = NAME_WIDTH) -> str:
    """:func:`display_name` of an ``ItemInfo`` or a ``SearchResult`` (its id is ``key``)."""
    return display_name(item.kind, item.title, key=key, heading_path=tuple(item.heading_path), text=item.text,
                        width=width)
