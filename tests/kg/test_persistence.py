from __future__ import annotations

import os
from pathlib import Path

import pytest

from agrag_lab.errors import IndexFormatError
from agrag_lab.graph_stores.networkx import NetworkXGraphStore


def test_save_and_load_round_trip(store: NetworkXGraphStore, tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    store.save(path)
    loaded = NetworkXGraphStore.load(path)
    assert loaded.dumps() == store.dumps()
    assert loaded.graph == store.graph
    assert loaded.communities() == store.communities() and loaded.reports() == store.reports()
    assert loaded.graph.node_link() == store.graph.node_link()
    assert [p.name for p in tmp_path.iterdir()] == ["graph.json"]


def test_a_crash_before_replace_leaves_the_old_file(
    store: NetworkXGraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "graph.json"
    empty = NetworkXGraphStore(type(store.graph).create([], []))
    empty.save(path)
    before = path.read_bytes()

    def crash(*args: object, **kwargs: object) -> None:
        raise OSError("simulated crash during os.replace")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="simulated crash"):
        store.save(path)
    assert path.read_bytes() == before
    assert NetworkXGraphStore.load(path).entities() == []
    assert [p.name for p in tmp_path.iterdir()] == ["graph.json"]  # no temp file left


def test_a_crash_mid_write_leaves_the_old_file(
    store: NetworkXGraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "graph.json"
    store.save(path)
    before = path.read_bytes()
    real_fsync = os.fsync

    def crash(fd: int) -> None:
        raise OSError("simulated power loss before fsync")

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(OSError, match="power loss"):
        NetworkXGraphStore(type(store.graph).create([], [])).save(path)
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert path.read_bytes() == before
    assert NetworkXGraphStore.load(path).dumps() == store.dumps()


def test_damaged_or_foreign_files_raise_index_format_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    with pytest.raises(IndexFormatError, match="cannot read"):
        NetworkXGraphStore.load(missing)
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "agrag-lab/knowledge-graph", "vers')
    with pytest.raises(IndexFormatError, match="not valid JSON"):
        NetworkXGraphStore.load(broken)
    foreign = tmp_path / "foreign.json"
    foreign.write_text('{"nodes": []}')
    with pytest.raises(IndexFormatError, match="not an agrag_lab knowledge-graph"):
        NetworkXGraphStore.load(foreign)
    old = tmp_path / "old.json"
    old.write_text('{"format": "agrag-lab/knowledge-graph", "version": 0}')
    with pytest.raises(IndexFormatError, match="version 0"):
        NetworkXGraphStore.load(old)
    damaged = tmp_path / "damaged.json"
    damaged.write_text('{"format": "agrag-lab/knowledge-graph", "version": 1, "graph": {}}')
    with pytest.raises(IndexFormatError, match="damaged"):
        NetworkXGraphStore.load(damaged)
