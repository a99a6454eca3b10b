"""The builder's ids an imported index answers to, for the evidence functions (see :mod:`agrag_lab.importing.aliases`).

``fetch`` takes a GraphRAG text unit or claim id (``id`` or ``source:12``)
or a LightRAG chunk id; ``find_entities`` and ``explore`` an entity's or a
relationship's; ``check_citations`` reads GraphRAG's reference groups
(``[Data: Sources (12); Entities (5, 7)]``). Each resolves to our id first,
then goes through the same scope checks as our own ids.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agrag_lab.importing.aliases import ALIASES_META, Aliases, load_aliases

if TYPE_CHECKING:
    from agrag_lab.evidence.session_api import Scoped

__all__ = ["aliases_of", "entity_alias", "passage_alias"]


def aliases_of(session: Scoped) -> Aliases:
    """The aliases of the session's index (empty for an index we built)."""
    return load_aliases(session.graph.db.get_meta(ALIASES_META))


def passage_alias(session: Scoped, raw: object) -> str | None:
    """Our evidence id of a builder's text unit, chunk or claim id, else ``None``."""
    return aliases_of(session).resolve_as(raw, "source", "claim")


def entity_alias(session: Scoped, raw: object) -> str | None:
    """Our entity id of a builder's entity id (a relationship's: its source), or of an id a curation edit merged away
    (the entity it was merged into: :mod:`agrag_lab.kg.edit_log`), else ``None``."""
    from agrag_lab.kg.edit_log import read_applied, redirect

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
