"""LIGHTRAG_* recipes against LightRAG 1.5.7's own ``aquery_data``, HIPPORAG2 against HippoRAG's own code (fixtures recorded by ``make peers``).

``tests/fixtures/peers/parity/lightrag.json`` holds what LightRAG's own query code selected
(entities, relationships and chunks, in its order) over its own working directory
(``tests/fixtures/peers/lightrag/``), with our model's vectors and the keywords the scripted
model answered. The recipes run here on that directory imported, through the engine, with the
same keywords (a keyword function built from the fixture): the ledger's ``entities``,
``relations`` and result passages are compared with LightRAG's. ``docs/peers/LIGHTRAG_*.md``
list the figures and every difference with its reason.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from agrag_lab import Graph, recipes
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.llm.client import LLMSettings
from agrag_lab.retrieval.methods import REGISTRY
from agrag_lab.retrieval.methods.keyword_graph import COSINE_THRESHOLD, KeywordGraph
from agrag_lab.retrieval.query_keywords import Keywords, query_keywords, rule_keywords
from agrag_lab.retrieval.trace import MethodTrace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agent"))
from chat_server import ScriptedChat, say, serve

PEERS = Path(__file__).resolve().parent.parent / "fixtures" / "peers"
PARITY = json.loads((PEERS / "parity" / "lightrag.json").read_text(encoding="utf-8"))
QUESTIONS = sorted(PARITY["questions"])
MODES = {"local": "LIGHTRAG_LOCAL", "global": "LIGHTRAG_GLOBAL", "hybrid": "LIGHTRAG_HYBRID", "mix": "LIGHTRAG_MIX"}
#: Passages near LightRAG's cosine threshold (0.2) in mix's vector search: our passage vectors embed
#: the document title with the text (LightRAG's the chunk text alone), so these fall on the other
#: side of it (q2: ours 0.2003-0.2004 by model backend, LightRAG's under; q3: ours 0.190, LightRAG's over).
VECTOR_TEXT_DIFFERS = {
    ("q2", "mix"): {"doc-26cd456ffeb41ada06405e5b9db38459-chunk-000"},
    ("q3", "mix"): {"doc-2ec587590c638a4a7964a722e88ca007-chunk-000"},
}


#: Entities whose cosines to a keyword string are equal at our vector store's 5 decimals (LightRAG's
#: nano-vectordb orders them by their float32 values, we by entity id): q5 0.479583, q6 the three sworn
#: brothers' records. Their order among themselves is the only difference left (docs/peers/LIGHTRAG_LOCAL.md).
NEAR_TIES = {"q5": {"张角", "巨鹿"}, "q6": {"关羽", "刘备", "张飞"}}


@pytest.fixture(scope="module")
def lightrag_graph(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Iterator[Graph]:
    path = tmp_path_factory.mktemp("peer-lightrag") / "index"
    with Graph.open(path, embedder=embedder) as graph:
        graph.import_lightrag(PEERS / "lightrag")
    with Graph.open(path, embedder=embedder, read_only=True) as graph:
        yield graph


def _recorded(query: str, names: Sequence[str]) -> Keywords:
    words = next(q["keywords"] for q in PARITY["questions"].values() if q["query"] == query)
    return Keywords(tuple(words["low_level_keywords"]), tuple(words["high_level_keywords"]), "recorded")


@pytest.fixture(scope="module")
def runs(lightrag_graph: Graph) -> dict[tuple[str, str], MethodTrace]:
    """Each question in each mode, with LightRAG's own keywords (the method's keyword function swapped)."""
    engine = lightrag_graph.engine()
    out: dict[tuple[str, str], MethodTrace] = {}
    for mode, recipe_name in MODES.items():
        recipe = recipes.get(recipe_name)
        (name,) = recipe.methods
        saved = REGISTRY[name]
        assert isinstance(saved, KeywordGraph)
        REGISTRY[name] = KeywordGraph(name, entities=saved.entities, relations=saved.relations,
                                      passages=saved.passages, keywords=_recorded)
        try:
            for qid in QUESTIONS:
                (out[qid, mode],) = engine.run(PARITY["questions"][qid]["query"], recipe).trace.methods
        finally:
            REGISTRY[name] = saved
    return out


def _names(graph: Graph) -> dict[str, str]:
    return {e.id: e.name for e in graph.graph_store.entities()}


def _lightrag_chunk(graph: Graph, key: str) -> str:
    info = graph.graph_store.item_info(key)
    assert info is not None and info.builder_id, key
    return info.builder_id


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("qid", QUESTIONS)
def test_same_entities_relations_and_passages_as_lightrag(
    qid: str, mode: str, runs: dict[tuple[str, str], MethodTrace], lightrag_graph: Graph,
) -> None:
    peer = PARITY["questions"][qid]["modes"][mode]
    method = runs[qid, mode]
    names = _names(lightrag_graph)
    entities = [names[h.key] for h in method.legs["entities"]]
    relations = {tuple(sorted(names[end] for end in h.key.split("|")[:2])) for h in method.legs["relations"]}
    passages = [_lightrag_chunk(lightrag_graph, h.key) for h in method.hits]
    assert set(entities) == set(peer["entities"]) and len(entities) == len(peer["entities"])
    assert relations == {tuple(sorted(r)) for r in peer["relationships"]}
    assert set(passages) ^ set(peer["chunks"]) <= VECTOR_TEXT_DIFFERS.get((qid, mode), set())
    if peer["status"] == "failure":  # LightRAG found nothing over its threshold: neither do we
        assert not method.hits and method.status == "empty"


def test_order_agrees_where_the_inputs_are_the_same(runs: dict[tuple[str, str], MethodTrace], lightrag_graph: Graph) -> None:
    """Measured (docs/peers/LIGHTRAG_LOCAL.md): entity order 16/24, the rest near ties only (relation ends as
    LightRAG's vector records order them), relation order 16/24 (the rest ties), passage order 15/24 cases."""
    names = _names(lightrag_graph)
    same_entities = same_relations = same_passages = 0
    for (qid, mode), method in runs.items():
        peer = PARITY["questions"][qid]["modes"][mode]
        same_entities += [names[h.key] for h in method.legs["entities"]] == peer["entities"]
        same_passages += [_lightrag_chunk(lightrag_graph, h.key) for h in method.hits] == peer["chunks"]
        ends = [[names[end] for end in h.key.split("|")[:2]] for h in method.legs["relations"]]
        same_relations += ends == peer["relationships"]  # LightRAG's ends, in its order
    assert same_entities >= 16 and same_relations >= 16 and same_passages >= 15
    for (qid, mode), method in runs.items():  # where the entity order differs, only tied names swap
        peer = PARITY["questions"][qid]["modes"][mode]["entities"]
        ours = [names[h.key] for h in method.legs["entities"]]
        swapped = {a for a, b in zip(ours, peer, strict=True) if a != b} | {b for a, b in zip(ours, peer, strict=True) if a != b}
        assert swapped <= NEAR_TIES.get(qid, set()), (qid, mode, ours, peer)


def test_every_step_is_in_the_ledger(runs: dict[tuple[str, str], MethodTrace]) -> None:
    method = runs["q4", "hybrid"]
    assert [h.key for h in method.legs["low_keywords"]] == ["Ishmael", "Manhattoes"]
    assert [h.key for h in method.legs["high_keywords"]] == ["arrive", "after", "leaving"]
    assert method.legs["keyword_source"][0].key == "recorded"
    assert all(h.score >= COSINE_THRESHOLD for h in method.legs["entities"][:2])
    chosen = {h.key for leg in ("entity_passages", "relation_passages") for h in method.legs[leg]}
    assert {h.key for h in method.hits} == chosen  # every result passage came through an entity or a relation
    assert not chosen & {h.key for h in runs["q4", "local"].legs.get("vector_passages", ())}
    assert "vector_passages" in runs["q4", "mix"].legs


def test_offline_rule_finds_lightrags_keywords(lightrag_graph: Graph) -> None:
    """The offline rule over the graph's names gives the keywords the scripted model gave LightRAG,
    but for q4's 'Manhatto' (the scripted model knew the form 'Manhatto' of 'Manhattoes'; the graph does not)."""
    names = [n for e in lightrag_graph.graph_store.entities() for n in (e.name, *e.aliases)]
    for qid in QUESTIONS:
        q = PARITY["questions"][qid]
        ours = rule_keywords(q["query"], names)
        assert ours.source == "rule" and list(ours.high) == q["keywords"]["high_level_keywords"]
        low = set(q["keywords"]["low_level_keywords"]) - ({"Manhattoes"} if qid == "q4" else set())
        assert set(ours.low) - {"Manhatto"} == low


def test_the_recipe_uses_the_offline_rule_without_an_llm(lightrag_graph: Graph, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGRAG_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("AGRAG_LLM_MODEL", raising=False)
    run = lightrag_graph.engine().run(PARITY["questions"]["q2"]["query"], recipes.get("LIGHTRAG_HYBRID"))
    (method,) = run.trace.methods
    assert method.legs["keyword_source"][0].key == "rule"
    assert [h.key for h in method.legs["low_keywords"]] == ["Sherlock Holmes"]
    assert run.results and run.results[0].id == method.hits[0].key


def test_keywords_come_from_the_configured_llm() -> None:
    chat = ScriptedChat([say('{"high_level_keywords": ["residence"], "low_level_keywords": ["Sherlock Holmes", " "]}')])
    with serve(chat) as url:
        words = query_keywords("Where did Sherlock Holmes live?", [], LLMSettings(url, "scripted"))
    assert words == Keywords(("Sherlock Holmes",), ("residence",), "llm scripted")
    assert "Where did Sherlock Holmes live?" in chat.requests[0]["messages"][-1]["content"]


# -- HIPPORAG2 against HippoRAG's own retrieval code, on the same imported graph ------------------

HIPPORAG = json.loads((PEERS / "parity" / "hipporag.json").read_text(encoding="utf-8"))


#: Questions where HippoRAG's own order rests on ties it breaks arbitrarily: equal fact scores
#: (np.argsort, q5, q6) or equal seed weights at the top-5 cut (a Python set's order, q4).
HIPPORAG_TIES = {"q4", "q5", "q6"}


@pytest.mark.parametrize("qid", QUESTIONS)
def test_hipporag2_ranks_passages_as_hipporags_own_code(qid: str, lightrag_graph: Graph) -> None:
    """The same facts, in order, and the same passages in the same order with the same PageRank scores
    as HippoRAG's get_fact_scores / rerank_facts / graph_search_with_fact_entities / run_ppr (igraph PRPACK);
    where HippoRAG breaks a tie arbitrarily, the same top two passages."""
    peer = HIPPORAG["questions"][qid]
    run = lightrag_graph.engine().run(peer["query"], recipes.get("HIPPORAG2"))
    (method,) = run.trace.methods
    ours = [h.key for h in method.hits]
    assert [r.id for r in run.results] == ours
    if qid in HIPPORAG_TIES:
        assert ours[:2] == peer["passages"][:2]
        return
    assert [h.key.split("|")[:2] for h in method.legs["facts"]] == peer["facts"]
    assert ours == peer["passages"][: len(ours)]
    assert [h.score for h in method.hits] == pytest.approx(peer["scores"][: len(ours)], rel=1e-3, abs=1e-6)


#: HippoRAG's PyPI release (2.0.0a3, ``make peers`` without HIPPORAG_SRC) on the same input. Its
#: graph_search_with_fact_entities weighs an entity by the *last* of its facts' scores, where the source
#: (c617143) and HIPPORAG2 take their mean: the facts agree, the passage order only where no entity ends
#: two of the top facts.
HIPPORAG_PYPI = json.loads((PEERS / "parity" / "hipporag-pypi.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("qid", QUESTIONS)
def test_hipporag2_facts_are_the_pypi_releases(qid: str, lightrag_graph: Graph) -> None:
    peer = HIPPORAG_PYPI["questions"][qid]
    assert HIPPORAG_PYPI["peer"].startswith("hipporag 2.0.0a3 (PyPI")
    run = lightrag_graph.engine().run(peer["query"], recipes.get("HIPPORAG2"))
    (method,) = run.trace.methods
    facts = [h.key.split("|")[:2] for h in method.legs["facts"]]
    if qid in HIPPORAG_TIES:  # equal fact scores: which of them HippoRAG keeps, and in which order, is arbitrary
        assert len(facts) == len(peer["facts"])
        return
    assert facts == peer["facts"]
    if peer["passages"] == HIPPORAG["questions"][qid]["passages"]:  # no entity ends two top facts
        assert [h.key for h in method.hits] == peer["passages"][: len(method.hits)]
