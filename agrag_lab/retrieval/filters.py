"""``SearchFilters``: constraints applied identically to every method.

Semantics (spec, "Filters"): labels apply to entity search only; relation
types limit the graph walk; document and property filters apply to entity,
chunk and community search. Filters are compiled into each store's own query
language in one module, :mod:`agrag_lab.scope_compiler`: a Chroma ``where``
(also evaluated by the native in-memory index), a bm25s weight mask, a graph
scope and Cypher parameters, so they restrict *before* the limit.

Examples
--------
>>> f = SearchFilters(document_ids=frozenset({"ada"}), properties={"era": "victorian"})
>>> f.restricts_documents
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from agrag_lab.documents import MetadataValue


def _frozen_set(value: Any) -> frozenset[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return frozenset({value})
    return frozenset(value)


@dataclass(frozen=True)
class SearchFilters:
    """Which items a search may see.

    Parameters
    ----------
    labels : set of str, optional
        Entity labels (entity search only).
    document_ids : set of str, optional
        Documents whose chunks, entities (through their supporting chunks) and
        community reports (through theirs) may be returned.
    properties : mapping, optional
        Document metadata that must match exactly (all of them).
    relation_types : set of str, optional
        An allowlist for the graph walk and traversal.
    """

    labels: frozenset[str] | None = None
    document_ids: frozenset[str] | None = None
    properties: Mapping[str, MetadataValue] = field(default_factory=dict)
    relation_types: frozenset[str] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "labels", _frozen_set(self.labels))
        object.__setattr__(self, "document_ids", _frozen_set(self.document_ids))
        object.__setattr__(self, "relation_types", _frozen_set(self.relation_types))
        object.__setattr__(self, "properties", MappingProxyType(dict(self.properties)))

    @property
    def restricts_documents(self) -> bool:
        """Whether document or property filters are set."""
        return self.document_ids is not None or bool(self.properties)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {
            "labels": sorted(self.labels) if self.labels is not None else None,
            "document_ids": sorted(self.document_ids) if self.document_ids is not None else None,
            "properties": dict(self.properties),
            "relation_types": sorted(self.relation_types) if self.relation_types is not None else None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SearchFilters:
        """Inverse of :meth:`to_dict`."""
        return cls(
            labels=_frozen_set(data.get("labels")),
            document_ids=_frozen_set(data.get("document_ids")),
            properties=dict(data.get("properties") or {}),
            relation_types=_frozen_set(data.get("relation_types")),
        )
