"""Fixtures for the knowledge-graph tests (the corpus lives in kg_corpus.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from kg_corpus import extract_documents, make_documents

from agrag_lab.documents import Document
from agrag_lab.graph_stores.build import build_store
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.kg.extract.build import ChunkExtraction


@pytest.fixture(scope="session")
def documents() -> list[Document]:
    return make_documents()


@pytest.fixture(scope="session")
def items(documents: list[Document]) -> list[ChunkExtraction]:
    return extract_documents(documents)


@pytest.fixture(scope="session")
def store(items: list[ChunkExtraction]) -> NetworkXGraphStore:
    return build_store(items)


@pytest.fixture(scope="session")
def chunk_text(items: list[ChunkExtraction]) -> Callable[[str], str]:
    texts = {item.chunk_id: item.text for item in items}
    return lambda chunk_id: texts[chunk_id]


@pytest.fixture()
def by_name(store: NetworkXGraphStore) -> Callable[[str], str]:
    """Entity id of a name (fails the test if the name is unknown)."""

    def find(name: str) -> str:
        entity = store.entity_by_name(name)
        assert entity is not None, f"no entity named {name!r}"
        return entity.id

    return find
