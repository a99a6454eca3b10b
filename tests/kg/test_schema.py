from __future__ import annotations

import pytest

from agrag_lab.errors import AgragError, GraphSchemaError
from agrag_lab.kg.schema import GENERIC, GraphSchema


def test_generic_declares_the_labels_and_types() -> None:
    assert GENERIC.entity_labels[-1] == "Entity"
    for label in (
        "Person",
        "Place",
        "Organization",
        "Work",
        "Machine",
        "Concept",
        "Event",
        "Date",
    ):
        assert GENERIC.has_label(label)
    for kind in (
        "WORKED_WITH",
        "BORN_IN",
        "CHILD_OF",
        "CORRESPONDED_WITH",
        "MENTIONS",
        "RELATED_TO",
    ):
        assert GENERIC.has_relation_type(kind)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("person", "Person"),
        ("ORGANIZATION", "Organization"),
        ("Spaceship", "Entity"),
        (None, "Entity"),
        ("", "Entity"),
    ],
)
def test_normalise_label(raw: str | None, expected: str) -> None:
    assert GENERIC.normalise_label(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("worked with", "WORKED_WITH"),
        ("born-in", "BORN_IN"),
        ("orbits", "RELATED_TO"),
        (None, "RELATED_TO"),
    ],
)
def test_normalise_relation_type(raw: str | None, expected: str) -> None:
    assert GENERIC.normalise_relation_type(raw) == expected


def test_check_raises_a_schema_error_that_is_also_a_value_error() -> None:
    with pytest.raises(GraphSchemaError, match="normalise_label") as info:
        GENERIC.check_label("Spaceship")
    assert isinstance(info.value, ValueError) and isinstance(info.value, AgragError)
    assert GENERIC.check_relation_type("married") == "MARRIED"


def test_invalid_schemas_are_rejected() -> None:
    with pytest.raises(GraphSchemaError, match="empty"):
        GraphSchema((), ("RELATED_TO",))
    with pytest.raises(GraphSchemaError, match="default label"):
        GraphSchema(("Person",), ("RELATED_TO",))
    with pytest.raises(GraphSchemaError, match="duplicates"):
        GraphSchema(("Entity", "Entity"), ("RELATED_TO",))


def test_symmetric_types() -> None:
    assert GENERIC.is_symmetric("MARRIED") and not GENERIC.is_symmetric("CHILD_OF")
