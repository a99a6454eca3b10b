"""Names a person can tell apart: a passage is "title > heading #c3", never its document title alone.

An entity and the passage that mentions it often share a title (the entity
"Bubye River" and the passage of the document "Bubye River"), so a passage
shown by its title alone reads as the entity. :func:`passage_name` adds the
heading path (less a first heading that repeats the title) and the chunk
number of the evidence id.

Examples
--------
>>> passage_name("Charles Babbage", ("Charles Babbage", "Friends"), "charles-babbage@cf4209702b84#c8")
'Charles Babbage > Friends #c8'
>>> passage_name("Bubye River", (), "bubye-river@0123456789ab#c0")
'Bubye River #c0'
"""

from __future__ import annotations

from collections.abc import Sequence


def passage_name(title: str, heading_path: Sequence[str], key: str) -> str:
    """``title > heading > ... #cN`` for the chunk ``key`` (its number read from the id)."""
    headings = [h for h in heading_path if h.strip()]
    if headings and headings[0].strip().casefold() == title.strip().casefold():
        headings = headings[1:]
    where = key.rsplit("#", 1)[1] if "#" in key else ""
    name = " > ".join([title or key.split("@", 1)[0], *headings])
    return f"{name} #{where}" if where else name
