"""Fixtures for the index-folder integrity tests: one tiny real index, copied per test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agrag_lab import Document, Graph
from agrag_lab.embedding import SentenceTransformerEmbedder

#: Three short documents: the smallest index with chunks, entities, relations and communities.
TINY_DOCS = (
    Document(
        "babbage", "Charles Babbage",
        "# Charles Babbage\n\nCharles Babbage designed the Difference Engine in London.\n\n"
        "## Collaborators\n\nAda Lovelace worked with Charles Babbage on the Analytical Engine.\n",
    ),
    Document(
        "lovelace", "Ada Lovelace",
        "# Ada Lovelace\n\nAda Lovelace wrote Note G about the Analytical Engine.\n\n"
        "## Family\n\nShe was the daughter of Lord Byron.\n",
        metadata={"era": "victorian"},
    ),
    Document(
        "jacquard", "Jacquard loom",
        "# Jacquard loom\n\nJoseph Marie Jacquard built the loom in Lyon.\n\nThe loom inspired Charles Babbage.\n",
        metadata={"era": "napoleonic"},
    ),
)


@pytest.fixture(scope="session")
def tiny_built(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Path:
    """A real index of :data:`TINY_DOCS` (built once; copy it before changing it)."""
    path = tmp_path_factory.mktemp("tiny") / "index"
    with Graph.open(path, embedder=embedder) as graph:
        graph.ingest(TINY_DOCS)
    return path


@pytest.fixture
def tiny_index(tiny_built: Path, tmp_path: Path) -> Path:
    """A private copy of the tiny index, to damage or change."""
    path = tmp_path / "index"
    shutil.copytree(tiny_built, path, ignore=shutil.ignore_patterns("write.lock"))
    return path
