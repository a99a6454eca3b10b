"""LIGHTRAG_* on a working directory LightRAG built with another model than ours, searched through that model.

``tests/fixtures/peers/lightrag_dim/`` is written by lightrag-hku 1.5.7's own insert (``make peers``, step
``lightrag_dim``) with the static model distilled from the bundled one (model2vec,
``static-all-MiniLM-L6-v2-256``: 256 dimensions, served by ``peers/server.py``), vector files included;
``parity/lightrag_dim.json`` is what LightRAG's own ``aquery_data`` selected on it. The import reads the
vectors' length from the vector files, reuses the builder's vectors and embeds queries through the same
endpoint: the entity, relation and chunk lists equal LightRAG's, in order, on every question and mode.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from lightrag_parity_runs import MODES, peer_selection, recorded_runs, selection

from agrag_lab import Graph
from agrag_lab.embedding import EndpointEmbedder
from agrag_lab.retrieval.trace import MethodTrace
from peers import server

PEERS = Path(__file__).resolve().parent.parent / "fixtures" / "peers"
FOLDER = PEERS / "lightrag_dim"
PARITY = json.loads((PEERS / "parity" / "lightrag_dim.json").read_text(encoding="utf-8"))
QUESTIONS = sorted(PARITY["questions"])
MODEL = PARITY["settings"]["embedding_model"]


@pytest.fixture(scope="module")
def builder_graph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Graph]:
    path = tmp_path_factory.mktemp("peer-lightrag-dim") / "index"
    with server.serve() as url:
        with Graph.open(path, embedder=EndpointEmbedder(MODEL, url)) as graph:
            report = graph.import_lightrag(FOLDER)
        assert report.reused > 0 and report.embedded == 0
        with Graph.open(path, read_only=True) as graph:
            yield graph


@pytest.fixture(scope="module")
def runs(builder_graph: Graph) -> dict[tuple[str, str], MethodTrace]:
    return recorded_runs(builder_graph, PARITY)


def test_the_builders_model_is_another_than_ours() -> None:
    assert PARITY["settings"]["embedding_dim"] == 256 and MODEL == "static-all-MiniLM-L6-v2-256"
    raw = json.loads((FOLDER / "vdb_entities.json").read_text(encoding="utf-8"))
    assert raw["embedding_dim"] == 256


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("qid", QUESTIONS)
def test_the_same_lists_in_the_same_order_as_lightrag(
    qid: str, mode: str, runs: dict[tuple[str, str], MethodTrace], builder_graph: Graph,
) -> None:
    ours = selection(builder_graph, runs[qid, mode])
    peer = peer_selection(PARITY, qid, mode)
    assert ours.entities == peer.entities
    assert ours.relations == peer.relations
    assert ours.chunks == peer.chunks
    if PARITY["questions"][qid]["modes"][mode]["status"] == "failure":  # nothing over LightRAG's threshold
        assert not runs[qid, mode].hits and runs[qid, mode].status == "empty"
