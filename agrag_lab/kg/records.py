"""The texts the graph's records are embedded and shown by: plain functions of graph values.

:func:`entity_text` is what an entity is embedded and displayed as (name,
aliases, its key relations as sentences, description); :func:`relation_phrases`
writes those sentences; :func:`record_text` bounds an embedded text's length.
The index build (:mod:`agrag_lab.index`) turns them into collection records.

Examples
--------
>>> print(entity_text("Ada Lovelace", ["Lovelace"], "Wrote Note G."))
Ada Lovelace (also: Lovelace)
Wrote Note G.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from agrag_lab.kg.graph_store import RelationSource
from agrag_lab.kg.model import Edge
from agrag_lab.kg.scope import GraphScope
from agrag_lab.kg.text import trim_text

__all__ = ["RECORD_CHARS", "RELATIONS_IN_TEXT", "entity_text", "record_text", "relation_phrases", "relation_sentences"]

#: Relations written into an entity's embedded text, strongest first.
RELATIONS_IN_TEXT = 8
#: Longest embedded text of an entity or report record, in characters (about 64 tokens):
#: name, aliases and relations come first, and embedding cost grows with length
#: (the graph's records outnumber the chunks about 7 to 1; MuSiQue: 416 s -> ~220 s).
RECORD_CHARS = 280


def record_text(text: str) -> str:
    """``text`` as embedded: unchanged when short, else cut at a word near :data:`RECORD_CHARS`.

    Examples
    --------
    >>> record_text("Ada Lovelace") == "Ada Lovelace"
    True
    >>> len(record_text("word " * 200)) <= RECORD_CHARS
    True
    """
    return text if len(text) <= RECORD_CHARS else trim_text(text, RECORD_CHARS)


def entity_text(name: str, aliases: Sequence[str], description: str, relations: Sequence[str] = ()) -> str:
    """What is embedded for an entity: name and aliases, its key relations as
    plain sentences, then its description.

    Relations come first and as sentences ("Ada Lovelace worked with Charles
    Babbage."): a question about a relation ("Who worked with Babbage?") then
    finds the entities on its ends, which a name or a description alone would not.

    Examples
    --------
    >>> print(entity_text("Ada Lovelace", ["Lovelace"], "Wrote Note G.", ["Ada Lovelace worked with Charles Babbage."]))
    Ada Lovelace (also: Lovelace)
    Ada Lovelace worked with Charles Babbage.
    Wrote Note G.
    """
    also = f" (also: {', '.join(aliases)})" if aliases else ""
    lines = [f"{name}{also}", " ".join(relations), description]
    return "\n".join(line for line in lines if line).strip()


def relation_phrases(
    store: RelationSource,
    entity_id: str,
    limit: int = RELATIONS_IN_TEXT,
    *,
    typed_only: bool = False,
    scope: GraphScope | None = None,
) -> list[str]:
    """``"Ada Lovelace worked with Charles Babbage."``-style sentences for an entity's
    strongest relations: typed ones first, then by support, one per neighbour."""
    return [sentence for sentence, _ in relation_sentences(store, entity_id, limit, typed_only=typed_only, scope=scope)]


def relation_sentences(
    store: RelationSource,
    entity_id: str,
    limit: int = RELATIONS_IN_TEXT,
    *,
    typed_only: bool = False,
    scope: GraphScope | None = None,
) -> list[tuple[str, Edge]]:
    """:func:`relation_phrases` with the relation each sentence states."""
    # typed relations first, then by support; one phrase per neighbour. A hub entity has thousands of
    # relations and only ``limit`` are said: a heap gives them in sorted order without sorting them all
    # (the same order as a stable sort: the listing position breaks the last ties).
    edges = store.neighbours(entity_id, scope=scope)
    heap = [(e.type == "RELATED_TO", -e.weight, e.key, n) for n, e in enumerate(edges)]
    heapq.heapify(heap)
    out: list[tuple[str, Edge]] = []
    seen: set[tuple[str, str]] = set()
    own = store.entity(entity_id)
    name = own.name if own is not None else entity_id
    while heap and len(out) < limit:
        edge = edges[heapq.heappop(heap)[3]]
        other_id = edge.other(entity_id)
        # every typed relation counts; RELATED_TO only for a neighbour with no typed one
        key = ("RELATED_TO" if edge.type == "RELATED_TO" else edge.type, other_id)
        if key in seen or (edge.type == "RELATED_TO" and (typed_only or ("typed", other_id) in seen)):
            continue
        other = store.entity(other_id)
        if other is None:
            continue
        seen.update({key, ("typed", other_id)})
        verb = edge.type.lower().replace("_", " ")
        source, target = (name, other.name) if edge.source == entity_id else (other.name, name)
        out.append((f"{source} {verb} {target}.", edge))
    return out
