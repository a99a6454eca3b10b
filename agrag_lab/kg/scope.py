"""What a caller may see of a knowledge graph: :class:`GraphScope`, the one scope every graph store reads.

The evidence layer resolves a user's scope once and compiles it to this value
(:mod:`agrag_lab.scope_compiler`); each store applies it inside every read
(:mod:`agrag_lab.kg.visibility`).

Examples
--------
>>> GraphScope(document_ids={"a"}).narrowed({"WROTE"}).relation_types
frozenset({'WROTE'})
>>> EVERYTHING.allows_document("any")
True
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace

from agrag_lab.kg.errors import KnowledgeGraphError

__all__ = ["EVERYTHING", "GraphScope"]


def _frozen(values: Collection[str] | None) -> frozenset[str] | None:
    return None if values is None else frozenset(values)


@dataclass(frozen=True)
class GraphScope:
    """What a caller may see; ``None`` means no restriction on that axis.

    Examples
    --------
    >>> s = GraphScope(document_ids={"doc-1"}, labels={"Person"})
    >>> s.allows_document("doc-1"), s.allows_label("Place"), s.allows_type("WROTE")
    (True, False, True)
    """

    document_ids: frozenset[str] | None = None
    labels: frozenset[str] | None = None
    relation_types: frozenset[str] | None = None

    def __post_init__(self) -> None:
        for name in ("document_ids", "labels", "relation_types"):
            value = getattr(self, name)
            if isinstance(value, str):
                raise KnowledgeGraphError(
                    f"GraphScope.{name} must be a collection of strings, not the string {value!r}; "
                    f"write {name}={{{value!r}}}"
                )
            object.__setattr__(self, name, _frozen(value))

    def allows_document(self, document_id: str) -> bool:
        """Whether ``document_id`` is visible."""
        return self.document_ids is None or document_id in self.document_ids

    def allows_label(self, label: str) -> bool:
        """Whether entities labelled ``label`` are visible."""
        return self.labels is None or label in self.labels

    def allows_type(self, relation_type: str) -> bool:
        """Whether relations of ``relation_type`` are visible."""
        return self.relation_types is None or relation_type in self.relation_types

    def narrowed(self, relation_types: Collection[str] | None) -> GraphScope:
        """This scope with relation types further limited to ``relation_types``.

        An argument can only narrow the scope, never widen it.

        Examples
        --------
        >>> GraphScope(relation_types={"WROTE"}).narrowed({"WROTE", "BUILT"}).relation_types
        frozenset({'WROTE'})
        """
        if relation_types is None:
            return self
        wanted = frozenset(relation_types)
        allowed = wanted if self.relation_types is None else wanted & self.relation_types
        return replace(self, relation_types=allowed)


#: The scope that sees everything current.
EVERYTHING = GraphScope()
