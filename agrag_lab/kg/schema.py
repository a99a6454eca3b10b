"""The graph schema: which entity labels and relation types a graph declares.

:data:`GENERIC` is the default schema. Unknown labels normalise to
``"Entity"`` and unknown relation types to ``"RELATED_TO"``; the ``check_*``
methods raise :class:`~agrag_lab.errors.GraphSchemaError` instead.

Examples
--------
>>> from agrag_lab.kg.schema import GENERIC
>>> GENERIC.normalise_label("person"), GENERIC.normalise_label("Spaceship")
('Person', 'Entity')
>>> GENERIC.normalise_relation_type("worked with")
'WORKED_WITH'
>>> GENERIC.check_relation_type("ORBITS")
Traceback (most recent call last):
...
agrag_lab.errors.GraphSchemaError: relation type 'ORBITS' is not declared by the graph schema; use one of WORKED_WITH, BORN_IN, WROTE, DESIGNED, BUILT, TRANSLATED, MARRIED, CHILD_OF, INSPIRED, CORRESPONDED_WITH, TAUGHT, MEMBER_OF, LOCATED_IN, PART_OF, MENTIONS, RELATED_TO (or normalise_relation_type to map it to RELATED_TO)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agrag_lab.errors import GraphSchemaError

__all__ = ["GENERIC", "GraphSchema"]


def _label_key(label: str) -> str:
    return re.sub(r"[^a-z0-9]", "", label.casefold())


def _type_key(relation_type: str) -> str:
    return re.sub(r"[^A-Z0-9]+", "_", relation_type.upper()).strip("_")


@dataclass(frozen=True)
class GraphSchema:
    """Declared entity labels and relation types.

    Parameters
    ----------
    entity_labels : tuple of str
        Labels entities may carry, e.g. ``("Person", "Place", "Entity")``.
        Order matters: it breaks ties when mentions disagree on a label.
    relation_types : tuple of str
        Relation types edges may carry (UPPER_SNAKE_CASE).
    default_label : str
        What an unknown label becomes; must be declared.
    default_relation_type : str
        What an unknown relation type becomes; must be declared.
    symmetric_relation_types : tuple of str
        Types whose direction carries no meaning; the builder stores them once,
        from the smaller entity id to the larger.

    Raises
    ------
    GraphSchemaError
        A tuple is empty or has duplicates, or a default is not declared.

    Examples
    --------
    >>> s = GraphSchema(("Person", "Entity"), ("KNOWS", "RELATED_TO"))
    >>> s.normalise_label("PERSON"), s.has_relation_type("knows")
    ('Person', True)
    """

    entity_labels: tuple[str, ...]
    relation_types: tuple[str, ...]
    default_label: str = "Entity"
    default_relation_type: str = "RELATED_TO"
    symmetric_relation_types: tuple[str, ...] = (
        "WORKED_WITH",
        "MARRIED",
        "CORRESPONDED_WITH",
        "RELATED_TO",
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "entity_labels", tuple(self.entity_labels))
        object.__setattr__(self, "relation_types", tuple(self.relation_types))
        object.__setattr__(self, "symmetric_relation_types", tuple(self.symmetric_relation_types))
        for what, values in (
            ("entity_labels", self.entity_labels),
            ("relation_types", self.relation_types),
        ):
            if not values:
                raise GraphSchemaError(f"GraphSchema.{what} is empty: declare at least one")
            if len(set(values)) != len(values):
                raise GraphSchemaError(f"GraphSchema.{what} has duplicates: {values!r}")
        if self.default_label not in self.entity_labels:
            raise GraphSchemaError(
                f"default label {self.default_label!r} is not in entity_labels; add it "
                "or choose a declared label as default_label"
            )
        if self.default_relation_type not in self.relation_types:
            raise GraphSchemaError(
                f"default relation type {self.default_relation_type!r} is not in "
                "relation_types; add it or choose a declared type"
            )

        # Lookup tables (not dataclass fields: they do not take part in ==/repr).
        object.__setattr__(self, "_labels", {_label_key(x): x for x in self.entity_labels})
        object.__setattr__(self, "_types", {_type_key(t): t for t in self.relation_types})

    def _label_lookup(self) -> dict[str, str]:
        labels: dict[str, str] = self.__dict__["_labels"]
        return labels

    def _type_lookup(self) -> dict[str, str]:
        types: dict[str, str] = self.__dict__["_types"]
        return types

    def has_label(self, label: str) -> bool:
        """Whether ``label`` (any case) is declared."""
        return _label_key(label) in self._label_lookup()

    def has_relation_type(self, relation_type: str) -> bool:
        """Whether ``relation_type`` (any case, spaces or underscores) is declared."""
        return _type_key(relation_type) in self._type_lookup()

    def normalise_label(self, label: str | None) -> str:
        """Return the declared spelling of ``label``, or the default label if unknown."""
        if not label:
            return self.default_label
        if label in self.entity_labels:
            return label
        return self._label_lookup().get(_label_key(label), self.default_label)

    def normalise_relation_type(self, relation_type: str | None) -> str:
        """Return the declared spelling of ``relation_type``, or the default type."""
        if not relation_type:
            return self.default_relation_type
        if relation_type in self.relation_types:
            return relation_type
        return self._type_lookup().get(_type_key(relation_type), self.default_relation_type)

    def check_label(self, label: str) -> str:
        """Return the declared spelling of ``label``; raise if it is not declared.

        Raises
        ------
        GraphSchemaError
            ``label`` is not declared.
        """
        found = self._label_lookup().get(_label_key(label))
        if found is None:
            raise GraphSchemaError(
                f"entity label {label!r} is not declared by the graph schema; use one of "
                f"{', '.join(self.entity_labels)} (or normalise_label to map it to "
                f"{self.default_label})"
            )
        return found

    def check_relation_type(self, relation_type: str) -> str:
        """Return the declared spelling of ``relation_type``; raise if not declared.

        Raises
        ------
        GraphSchemaError
            ``relation_type`` is not declared.
        """
        found = self._type_lookup().get(_type_key(relation_type))
        if found is None:
            raise GraphSchemaError(
                f"relation type {relation_type!r} is not declared by the graph schema; use "
                f"one of {', '.join(self.relation_types)} (or normalise_relation_type to "
                f"map it to {self.default_relation_type})"
            )
        return found

    def is_symmetric(self, relation_type: str) -> bool:
        """Whether ``relation_type`` reads the same both ways (e.g. ``MARRIED``).

        Examples
        --------
        >>> GENERIC.is_symmetric("MARRIED"), GENERIC.is_symmetric("WROTE")
        (True, False)
        """
        return relation_type in self.symmetric_relation_types

    def label_rank(self, label: str) -> int:
        """Position of ``label`` in :attr:`entity_labels` (unknown labels rank last)."""
        labels = self.entity_labels
        return labels.index(label) if label in labels else len(labels)


#: The default schema. ``MENTIONS`` is declared for Cypher-style exports; the
#: chunk→entity mentions themselves are stored apart from the relation edges.
GENERIC = GraphSchema(
    entity_labels=(
        "Person",
        "Place",
        "Organization",
        "Work",
        "Machine",
        "Concept",
        "Event",
        "Date",
        "Entity",
    ),
    relation_types=(
        "WORKED_WITH",
        "BORN_IN",
        "WROTE",
        "DESIGNED",
        "BUILT",
        "TRANSLATED",
        "MARRIED",
        "CHILD_OF",
        "INSPIRED",
        "CORRESPONDED_WITH",
        "TAUGHT",
        "MEMBER_OF",
        "LOCATED_IN",
        "PART_OF",
        "MENTIONS",
        "RELATED_TO",
    ),
)
