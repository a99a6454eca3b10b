"""The builder's ids an imported index answers to, for the evidence functions (see :mod:`agrag_lab.importing.aliases`).

``fetch`` takes a GraphRAG text unit or claim id (``id`` or ``source:12``)
or a LightRAG chunk id; ``find_entities`` and ``explore`` an entity's or a
relationship's; ``check_citations`` reads GraphRAG's reference groups
(``[Data: Sources (12); Entities (5, 7)]``). Each resolves to our id first,
then goes through the same scope checks as our own ids.

An id shaped like a builder's (:func:`builder_shaped`) that names nothing is
*unknown*, like one of ours that names nothing; only text that is no id
form at all is *malformed*.

Examples
--------
>>> [builder_shaped(t) for t in ("source:99", "chunk-deadbeef", "Entities:5", "doc-1a2b3c4d-chunk-2")]
[True, True, True, True]
>>> [builder_shaped(t) for t in ("hello", "doc-7#c1", "moon:cheese", "chunk-xyz")]
[False, False, False, False]
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agrag_lab.importing.aliases import ALIASES_META, Aliases, kind_of, load_aliases

if TYPE_CHECKING:
    from agrag_lab.evidence.session_api import Scoped

__all__ = ["BUILDER_ID_FORMS", "aliases_of", "builder_shaped", "entity_alias", "passage_alias"]

#: The id forms builders write, besides ``kind:number`` (GraphRAG's ``[Data: Sources (12)]``):
#: LightRAG chunk and document ids (``chunk-<md5>``, ``doc-<md5>``, ``doc-<md5>-chunk-<n>``),
#: GraphRAG's UUIDs and hex hashes.
BUILDER_ID_FORMS = (
    re.compile(r"chunk-[0-9a-f]{8,}"),
    re.compile(r"doc-[0-9a-f]{8,}(?:-chunk-\d+)?"),
    re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    re.compile(r"[0-9a-f]{16,}"),
)


def builder_shaped(raw: object) -> bool:
    """Whether ``raw`` has the form of a builder's id (``kind:number`` or one of :data:`BUILDER_ID_FORMS`)."""
    if not isinstance(raw, str):
        return False
    text = raw.strip()
    kind, sep, rest = text.partition(":")
    if sep:
        return kind_of(kind) is not None and bool(rest.strip()) and not any(c.isspace() for c in rest.strip())
    return any(form.fullmatch(text.lower()) for form in BUILDER_ID_FORMS)


def aliases_of(session: Scoped) -> Aliases:
    """The aliases of the session's index (empty for an index we built)."""
    return load_aliases(session.graph.db.get_meta(ALIASES_META))


def passage_alias(session: Scoped, raw: object) -> str | None:
    """Our evidence id of a builder's text unit, chunk or claim id, else ``None``."""
    return aliases_of(session).resolve_as(raw, "source", "claim")


def entity_alias(session: Scoped, raw: object) -> str | None:
    """Our entity id of a builder's entity id (a relationship's: its source), or of an id a curation edit merged away
    (the entity it was merged into: :mod:`agrag_lab.index.edit_log`), else ``None``."""
    from agrag_lab.index.edit_log import read_applied, redirect

    redirects, _ = read_applied(session.graph.path)
    found = aliases_of(session).resolve(raw)
    if found is None:
        return redirect(redirects, raw) if isinstance(raw, str) and raw in redirects else None
    kind, ours = found
    if kind == "entity":
        return redirect(redirects, ours)
    if kind == "relationship":
        return redirect(redirects, ours.split("|", 1)[0])
    return None
