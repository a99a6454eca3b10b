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

import re
import unicodedata
from collections.abc import Mapping
from typing import Protocol

#: Characters of a name before it is shortened (a table column, an axis label).
NAME_WIDTH = 56
#: Words of a passage shown when it has no heading of its own.
FIRST_WORDS = 5
#: Characters of such a passage shown when its text has no spaces (Chinese, Japanese).
FIRST_CHARS = 12
#: A passage name's tail that is never cut: `` #c3``, and the ``[tag]`` :func:`distinct_names` may add.
_TAIL = re.compile(r" #[cs][0-9-]+(?: \[[^\]]+\])?$")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


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


def is_cjk(text: str) -> bool:
    """Whether ``text`` is mostly written in Chinese, Japanese or Korean characters.

    Examples
    --------
    >>> is_cjk("刘备与张飞同入村店中饮酒"), is_cjk("Call me Ishmael.")
    (True, False)
    """
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and sum(bool(_CJK.match(c)) for c in letters) * 2 >= len(letters)


def first_words(text: str, *, words: int = FIRST_WORDS, chars: int = FIRST_CHARS) -> str:
    """The opening of ``text``: its first ``words`` words, or ``chars`` characters of a text written without
    spaces; ``…`` when there is more.

    Examples
    --------
    >>> first_words("Call me Ishmael. Some years ago - never mind how long", words=4)
    'Call me Ishmael. Some…'
    >>> first_words("话说天下大势，分久必合，合久必分。周末七国分争", chars=8)
    '话说天下大势，分…'
    """
    flat = " ".join(text.split())
    if is_cjk(flat[: chars * 4]):
        return flat if len(flat) <= chars else flat[:chars].rstrip() + "…"
    split = flat.split()
    return " ".join(split[:words]) + ("…" if len(split) > words else "")


def clip_name(name: str, width: int = NAME_WIDTH) -> str:
    """``name`` cut to ``width`` characters, keeping a passage's ``#cN`` (it tells passages apart).

    Every place that shortens a name (a chart's axis, a node's label) cuts it here.

    Examples
    --------
    >>> clip_name("Charles Babbage > Friends and correspondents #c8", 28)
    'Charles Babbage > Frien… #c8'
    >>> clip_name("Ada Lovelace", 8)
    'Ada Lov…'
    """
    name = " ".join(name.split())
    if len(name) <= width:
        return name
    tail = _TAIL.search(name)
    if tail:
        return _clip(name[: tail.start()], max(8, width - len(tail.group(0)))) + tail.group(0)
    return _clip(name, width)


def distinct_names(names: Mapping[str, str]) -> dict[str, str]:
    """``{key: name}`` with no two names equal: a name shared by several passages gets their document id, or,
    for one document in two indexes or versions, the version, before its ``#cN`` (any other item: its key).

    Examples
    --------
    >>> distinct_names({"a@1#c0": "notes.txt: Intro #c0", "b@2#c0": "notes.txt: Intro #c0", "ent-x": "X"})
    {'a@1#c0': 'notes.txt: Intro #c0 [a]', 'b@2#c0': 'notes.txt: Intro #c0 [b]', 'ent-x': 'X'}
    >>> distinct_names({"a@0123456789ab#c1": "a.txt #c1", "a@ba9876543210#c1": "a.txt #c1"})
    {'a@0123456789ab#c1': 'a.txt #c1 [@01234567]', 'a@ba9876543210#c1': 'a.txt #c1 [@ba987654]'}
    """
    shared: dict[str, list[str]] = {}
    for key, name in names.items():
        shared.setdefault(name, []).append(key)
    out = dict(names)
    for name, keys in shared.items():
        if len(keys) < 2:
            continue
        documents = {key.split("@", 1)[0] for key in keys}
        for key in keys:
            head, at, rest = key.partition("@")
            tag = (head if len(documents) == len(keys) else f"@{rest.split('#', 1)[0][:8]}") if at else key
            out[key] = f"{name} [{tag}]"  # after the #cN: a cut name keeps both (clip_name)
    return out


def text_after_name(kind: str, name: str, text: str) -> str:
    """What an entity's or a report's stored text says after its name: its record opens with the name, which
    the view already shows as a heading (``NAME NAME related to …`` otherwise). A passage's text is its own.

    Examples
    --------
    >>> text_after_name("entity", "IRENE ADLER", "IRENE ADLER\\nIRENE ADLER related to WARSAW.")
    'IRENE ADLER related to WARSAW.'
    >>> text_after_name("chunk", "notes.txt", "notes.txt is a file")
    'notes.txt is a file'
    """
    if kind == "chunk":
        return text
    head, sep, rest = text.partition("\n")
    return rest.lstrip() if sep and " ".join(head.split()).casefold() == " ".join(name.split()).casefold() else text


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
        lead = first_words(" ".join(words))
        return _clip(f"{title}: {lead}", width - len(suffix)) + suffix
    return _clip(title, width - len(suffix)) + suffix


def name_of(item: Named, key: str, *, width: int = NAME_WIDTH) -> str:
    """:func:`display_name` of an ``ItemInfo`` or a ``SearchResult`` (its id is ``key``)."""
    return display_name(item.kind, item.title, key=key, heading_path=tuple(item.heading_path), text=item.text,
                        width=width)
