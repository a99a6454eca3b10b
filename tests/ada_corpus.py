"""The Ada/Jacquard corpus of the unit tests, written once (conftest's ``small_docs``, the evidence suite)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from agrag_lab.documents import Document, MetadataValue

#: Three short Markdown documents about Babbage, Lovelace and the Jacquard loom.
ADA_JACQUARD: tuple[Document, ...] = (
    Document(
        "babbage",
        "Charles Babbage",
        "# Charles Babbage\n\nCharles Babbage designed the Difference Engine.\n\n"
        "## Collaborators\n\nAda Lovelace worked with Charles Babbage on the Analytical Engine.\n",
    ),
    Document(
        "lovelace",
        "Ada Lovelace",
        "# Ada Lovelace\n\nAda Lovelace wrote Note G about the Analytical Engine.\n\n"
        "## Family\n\nShe was the daughter of Lord Byron.\n",
        metadata={"era": "victorian"},
    ),
    Document(
        "jacquard",
        "Jacquard loom",
        "# Jacquard loom\n\nJoseph Marie Jacquard built the loom in Lyon.\n\n"
        "| Year | Event |\n|---|---|\n| 1804 | Loom shown |\n| 1805 | Napoleon visits |\n",
        metadata={"era": "napoleonic"},
    ),
)


def with_metadata(metadata: Mapping[str, Mapping[str, MetadataValue]]) -> tuple[Document, ...]:
    """The corpus with each named document's metadata replaced (the others as they are)."""
    return tuple(
        dataclasses.replace(doc, metadata=dict(metadata[doc.id])) if doc.id in metadata else doc
        for doc in ADA_JACQUARD
    )
