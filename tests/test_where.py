"""The one metadata predicate: type-strict, the same in the scope, the in-memory index and Chroma."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agrag_lab.evidence.scope import matches_where
from agrag_lab.storage.vectors import ChromaVectorStore, InMemoryVectorIndex
from agrag_lab.storage.where import matches, same_value, where_clause

#: Stored values, one per type family.
STORED: dict[str, bool | int | float | str] = {"t": True, "one": 1, "onef": 1.0, "text1": "1", "zero": 0, "f": False}


@pytest.mark.parametrize(
    ("asked", "expected"),
    [
        (True, {"t"}),
        (False, {"f"}),
        (1, {"one", "onef"}),
        (1.0, {"one", "onef"}),
        ("1", {"text1"}),
        (0, {"zero"}),
    ],
)
def test_equality_is_type_strict(asked: bool | int | float | str, expected: set[str]) -> None:
    found = {rid for rid, value in STORED.items() if same_value(value, asked)}
    assert found == expected
    # the scope's predicate and the store's filter are the same predicate
    assert {rid for rid, v in STORED.items() if matches_where({"k": v}, {"k": asked})} == expected
    assert {rid for rid, v in STORED.items() if matches(where_clause({"k": asked}), {"k": v})} == expected
    assert {rid for rid, v in STORED.items() if matches(where_clause({"k": [asked]}), {"k": v})} == expected


def test_a_missing_key_matches_nothing() -> None:
    assert not matches({"k": {"$eq": 0}}, {})
    assert not matches({"k": {"$in": ["a"]}}, {"other": "a"})
    assert not matches_where({}, {"k": False})


def _vectors(n: int) -> np.ndarray:
    return np.tile(np.array([[1.0, 0.0]], dtype=np.float32), (n, 1))


@pytest.mark.parametrize("asked", [True, 1, "1", 0.0])
def test_in_memory_index_and_chroma_agree(tmp_path: Path, asked: bool | int | float | str) -> None:
    ids = list(STORED)
    metadatas = [{"k": v} for v in STORED.values()]
    expected = sorted(rid for rid, v in STORED.items() if same_value(v, asked))
    memory = InMemoryVectorIndex()
    memory.upsert(ids, _vectors(len(ids)), metadatas)
    chroma = ChromaVectorStore.local(str(tmp_path / "chroma"))
    chroma.upsert("chunks", ids, _vectors(len(ids)), ids, [{**m, "fp": "x"} for m in metadatas])
    for where in (where_clause({"k": asked}), where_clause({"k": [asked]})):
        in_memory = sorted(rid for rid, _ in memory.query(np.array([1.0, 0.0]), 10, where))
        in_chroma = sorted(rid for rid, _ in chroma.query("chunks", np.array([1.0, 0.0]), 10, where))
        assert in_memory == expected, where
        assert in_chroma == expected, where
