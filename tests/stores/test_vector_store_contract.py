"""The vector store contract beyond search: where a store lives, counting, dropping and compacting a collection.

Every ``VectorStore`` declares ``local_path``, ``server``, ``count``, ``drop``
and ``compact`` (the index reads them without asking whether a store has them):
a local Chroma folder, a ``chroma run`` server, the read-only exact store a
read-only open searches, and the index's own wrapper over each of them. The
vector-by-id reads and the exact-order query are in test_vector_reads.py.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from chroma_support import chroma_server

from agrag_lab.errors import VectorStoreError
from agrag_lab.index.vectors import IndexVectorStore
from agrag_lab.storage.vectors import ChromaVectorStore, ExactVectorStore, VectorStore

WRITABLE = ("chroma-local", "chroma-server", "index-local", "index-server")


@pytest.fixture(scope="module")
def chroma_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """A real ``chroma run`` server on a free 127.0.0.1 port, for this module."""
    with chroma_server(tmp_path_factory.mktemp("server")) as (_, port):
        yield "127.0.0.1", port


def _no_hosted(collection: str) -> list[tuple[str, str, dict[str, object]]]:
    return []


@pytest.fixture(params=WRITABLE)
def writable(request: pytest.FixtureRequest, tmp_path: Path) -> VectorStore:
    """Each writable store: Chroma in a local folder or on the server, bare or as the index wraps it."""
    where, kind = request.param.split("-")
    if kind == "local":
        chroma = ChromaVectorStore.local(str(tmp_path / "chroma"))
    else:
        chroma = ChromaVectorStore.http(*request.getfixturevalue("chroma_address"))
    return chroma if where == "chroma" else IndexVectorStore(chroma, _no_hosted)


@pytest.fixture
def collection() -> str:
    """A collection name of this test alone (the server is shared by the module)."""
    return f"contract-{uuid.uuid4().hex[:12]}"


def _records(n: int, seed: int = 0) -> tuple[list[str], np.ndarray, list[dict[str, str | int | float | bool]]]:
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(n, 8)).astype(np.float32)
    return [f"r{i:04d}" for i in range(n)], vectors, [{"fp": str(i)} for i in range(n)]


def _write(store: VectorStore, collection: str, n: int) -> list[str]:
    ids, vectors, metas = _records(n)
    store.upsert(collection, ids, vectors, ids, metas)
    return ids


def test_a_store_says_where_it_lives(
    request: pytest.FixtureRequest, writable: VectorStore, tmp_path: Path
) -> None:
    """A local store names its folder and no server; a server store names its address and no folder."""
    if "local" in request.node.callspec.params["writable"]:
        assert writable.local_path == str(tmp_path / "chroma") and writable.server is None
        assert str(tmp_path / "chroma") in writable.describe()
    else:
        assert writable.server == request.getfixturevalue("chroma_address") and writable.local_path is None
        assert f"{writable.server[0]}:{writable.server[1]}" in writable.describe()


def test_count_tells_a_missing_collection_from_an_empty_one_and_creates_nothing(
    writable: VectorStore, collection: str
) -> None:
    assert writable.count(collection) is None
    assert writable.count(collection) is None  # counting did not create it
    ids = _write(writable, collection, 5)
    assert writable.count(collection) == 5
    writable.delete(collection, ids[:2])
    assert writable.count(collection) == 3
    writable.delete(collection, ids[2:])
    assert writable.count(collection) == 0


def test_drop_removes_a_collection_and_a_write_makes_it_again(writable: VectorStore, collection: str) -> None:
    _write(writable, collection, 4)
    writable.drop(collection)
    assert writable.count(collection) is None
    writable.drop(collection)  # a missing collection is ignored
    ids, vectors, metas = _records(2, seed=1)
    writable.upsert(collection, ids, vectors, ids, metas)
    assert writable.count(collection) == 2
    assert writable.fingerprints(collection) == {"r0000": "0", "r0001": "1"}


def test_compact_keeps_every_record(request: pytest.FixtureRequest, writable: VectorStore, collection: str) -> None:
    """Compacting gives back only free space: what the store held, it still holds; a server's files are its
    operator's, so a server store never compacts."""
    ids = _write(writable, collection, 600)
    writable.delete(collection, ids[20:])
    done = writable.compact()
    if writable.server is not None:
        assert done is False
    assert writable.count(collection) == 20
    kept = writable.vectors(collection, ids[:20])
    assert sorted(kept) == ids[:20]
    assert np.allclose(kept[ids[3]], _records(600)[1][3], atol=1e-6)


def test_a_local_store_compacts_once_most_of_its_file_is_free(tmp_path: Path, collection: str) -> None:
    """Records written and deleted leave free pages in Chroma's SQLite file; compacting gives them back,
    and a second compaction finds nothing worth doing."""
    store = ChromaVectorStore.local(str(tmp_path / "chroma"))
    ids = _write(store, collection, 3000)
    store.delete(collection, ids[10:])
    sqlite = tmp_path / "chroma" / "chroma.sqlite3"
    before = sqlite.stat().st_size
    assert store.compact() is True
    assert sqlite.stat().st_size < before
    assert store.compact() is False
    assert ChromaVectorStore.reopen_local(str(tmp_path / "chroma")).count(collection) == 10


@pytest.fixture(params=["exact", "index-exact"])
def read_only(request: pytest.FixtureRequest) -> VectorStore:
    """The read-only exact store (what a read-only open searches), bare or as the index wraps it."""
    ids, vectors, metas = _records(3)
    exact = ExactVectorStore({"chunks": (ids, vectors, metas)}.__getitem__, "the records of this test")
    return exact if request.param == "exact" else IndexVectorStore(exact, _no_hosted)


def test_the_read_only_store_counts_refuses_to_drop_and_has_nothing_to_compact(read_only: VectorStore) -> None:
    assert read_only.local_path is None and read_only.server is None
    assert read_only.count("chunks") == 3
    with pytest.raises(VectorStoreError, match="read-only"):
        read_only.drop("chunks")
    assert read_only.compact() is False
    assert read_only.count("chunks") == 3

