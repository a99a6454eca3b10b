"""What another tool's LLM described in an imported graph: the attributes that say so, and the rule.

An import (GraphRAG, LightRAG, GraphML) marks an entity or relation whose
description that tool's LLM wrote with :data:`DESCRIBED_BY`, and keeps
LightRAG's relation keywords under :data:`KEYWORDS`. A graph has *described
relations* when one of its relations is so described: its relation records are
then the builder's (:func:`~agrag_lab.index.records.relation_text`), and a
recipe that follows the builder's own entity search leaves them out
(``GraphStore.described_relations``). Every store decides it by
:func:`described_relation` (the in-process store over its edges, a graph
server from what its push recorded).

Examples
--------
>>> from agrag_lab.kg.model import Edge
>>> described_relation(Edge("a", "b", "RELATED_TO", (), attributes=(("described_by", "graphrag"),),
...                         description="A met B."))
True
>>> described_relation(Edge("a", "b", "KNEW", ()))
False
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from agrag_lab.kg.model import Edge

__all__ = ["BUILDER_ORDER", "DESCRIBED_BY", "KEYWORDS", "described_by", "described_relation", "has_described_relations",
           "relation_keywords"]

#: Entity attribute naming the tool whose LLM wrote the entity's description (``graphrag``, ``lightrag``,
#: ``graphml``): such an entity embeds its own text (:func:`~agrag_lab.index.records.builder_text`),
#: not its chunks' mean.
DESCRIBED_BY = "described_by"
#: Edge attribute holding a relation's keywords (LightRAG writes them): such a relation gets a record of its own.
KEYWORDS = "keywords"
#: Edge attribute holding a relation's place in its builder's graph file (LightRAG's GraphML): a node's relations
#: in that order are the order LightRAG reads them in (networkx's adjacency), which breaks its ties.
BUILDER_ORDER = "builder_order"


def described_by(attributes: Sequence[tuple[str, Any]]) -> str:
    """The builder whose LLM wrote a record's description (``""``: none, it was cut from the text).

    Examples
    --------
    >>> described_by((("described_by", "graphrag"), ("degree", 3))), described_by(())
    ('graphrag', '')
    """
    value = dict(attributes).get(DESCRIBED_BY, "")
    return value if isinstance(value, str) else ""


def relation_keywords(attributes: Sequence[tuple[str, Any]]) -> str:
    """A relation's keywords (LightRAG's), stripped; ``""`` when it has none.

    Examples
    --------
    >>> relation_keywords((("keywords", " mentorship "),)), relation_keywords(())
    ('mentorship', '')
    """
    value = dict(attributes).get(KEYWORDS, "")
    return value.strip() if isinstance(value, str) else ""


def described_relation(edge: Edge) -> bool:
    """Whether a builder described ``edge``: it has keywords, or a description marked :data:`DESCRIBED_BY`."""
    return bool(relation_keywords(edge.attributes)) or bool(described_by(edge.attributes) and edge.description.strip())


def has_described_relations(edges: Iterable[Edge]) -> bool:
    """Whether any of ``edges`` is :func:`described_relation` (a graph's relation records are then the builder's)."""
    return any(described_relation(edge) for edge in edges)
