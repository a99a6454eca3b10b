"""Property: two indexes that differ only in documents outside the scope answer every tool identically.

Issue 42, finding 1: searched with the same scope, two such indexes gave
``keyword search: rank 1 (score 0.1880)`` and ``(score 0.6943)``: the BM25
score of an explanation counted the out-of-scope documents that hold the word.
Here the same scope is read from two indexes whose in-scope documents are the
same (ingested first, in one order) and whose other documents differ (many
copies of the query words in one, none in the other). Every field of every
evidence tool's answer (ids, ranks, scores, counts, explanations, warnings),
and the CLI's ``--explain``, must be equal.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ada_corpus import ADA_JACQUARD
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agrag_lab import Document, Graph
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.errors import AgragError
from agrag_lab.evidence import EvidenceSession, Scope
from agrag_lab.evidence.tools import run_tool
from agrag_lab.ids import find_evidence_ids

ROOT = Path(__file__).resolve().parents[2]
IN_SCOPE = ("babbage", "lovelace")
WORDS = ["Babbage", "Lovelace", "Analytical Engine", "Difference Engine", "Note G", "Byron", "loom", "engine",
         "who worked with Babbage?", "daughter", "Jacquard", "Lyon"]  # fmt: skip
#: Every recipe whose steps read passages, entities and the walk. Community reports are left out: the
#: communities are one partition of the whole graph, so which reports a scope may read depends on the
#: documents outside it (a known limit, written in README.md, "Security").
RECIPES = ["CHUNK", "HYBRID", "ENTITY", "GRAPH_HYBRID"]
#: Keys that hold wall-clock time, the one thing two runs may not share.
TIMING = frozenset({"seconds", "elapsed", "elapsed_ms", "ms"})


def _others(kind: str) -> list[Document]:
    """Out-of-scope documents: ``many`` repeats the query words (their BM25 document frequency), ``few`` does not."""
    if kind == "many":
        return [
            Document(f"other-{n}", f"Engines {n}", f"# Engines {n}\n\nCharles Babbage and the Analytical Engine, "
                     f"Ada Lovelace and Note G; the engine, the engine, Byron and his daughter. Copy {n}.\n")
            for n in range(6)
        ] + [ADA_JACQUARD[2]]
    return [Document("weather", "Weather", "# Weather\n\nRain fell on the harbour all week; the boats stayed in.\n")]


def _build(path: Path, kind: str, embedder: SentenceTransformerEmbedder) -> Graph:
    with Graph.open(path, embedder=embedder) as graph:
        graph.ingest([d for d in ADA_JACQUARD if d.id in IN_SCOPE])
        graph.ingest(_others(kind))
    return Graph.open(path, embedder=embedder, read_only=True)


@pytest.fixture(scope="module")
def pair(
    tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder
) -> Iterator[tuple[Graph, Graph]]:
    """Two indexes with the same in-scope documents and different others."""
    root = tmp_path_factory.mktemp("scope-pairs")
    a, b = _build(root / "many", "many", embedder), _build(root / "few", "few", embedder)
    yield a, b
    a.close()
    b.close()


def _sessions(pair: tuple[Graph, Graph]) -> tuple[EvidenceSession, EvidenceSession]:
    scope = Scope(document_ids=frozenset(IN_SCOPE))
    return pair[0].evidence(scope), pair[1].evidence(scope)


def _timeless(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _timeless(v) for k, v in data.items() if k not in TIMING}
    if isinstance(data, list):
        return [_timeless(v) for v in data]
    return data


def _answer(session: EvidenceSession, tool: str, arguments: dict[str, Any]) -> Any:
    try:
        return _timeless(run_tool(session, tool, arguments))
    except AgragError as exc:  # a refusal is an answer too, and must be the same
        return f"{type(exc).__name__}: {exc}"


def _ids_of(answer: Any) -> list[str]:
    return sorted(set(find_evidence_ids(json.dumps(answer, ensure_ascii=False))))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.sampled_from(WORDS), mode=st.sampled_from(["keyword", "vector", "hybrid"]),
       recipe=st.sampled_from(RECIPES), limit=st.integers(1, 8))
def test_every_tool_answers_alike_when_only_out_of_scope_documents_differ(
    pair: tuple[Graph, Graph], query: str, mode: str, recipe: str, limit: int
) -> None:
    first, second = _sessions(pair)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("search_evidence", {"query": query, "mode": mode, "limit": limit}),
        ("search", {"query": query, "recipe": recipe, "limit": limit}),
        ("find_entities", {"query": query, "limit": limit}),
        ("list_documents", {}),
    ]
    for tool, arguments in calls:
        a, b = _answer(first, tool, arguments), _answer(second, tool, arguments)
        assert a == b, (tool, arguments)
    # what the answers name, fetched, navigated, explored and cited, answers alike too
    found = _ids_of(_answer(first, "search_evidence", {"query": query, "mode": mode, "limit": limit}))
    entities = _answer(first, "find_entities", {"query": query, "limit": limit})
    for evidence_id in found[:3]:
        for tool, arguments in [
            ("fetch_evidence", {"ids": [evidence_id]}),
            ("navigate", {"id": evidence_id, "to": "next"}),
            ("check_citations", {"answer": f"{query} [{evidence_id}]."}),
            ("render_citations", {"answer": f"{query} [{evidence_id}]."}),
        ]:
            assert _answer(first, tool, arguments) == _answer(second, tool, arguments), (tool, arguments)
    for entity in (entities.get("entities", []) if isinstance(entities, dict) else [])[:2]:
        arguments = {"entity": entity["id"], "depth": 2}
        assert _answer(first, "explore", arguments) == _answer(second, "explore", arguments), arguments


def _cli_explain(index: Path, query: str, recipe: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    documents = [arg for d in IN_SCOPE for arg in ("--document", d)]
    done = subprocess.run(
        [sys.executable, "-m", "agrag_lab.cli", "search", query, "--index", str(index), "--recipe", recipe,
         "--explain", *documents], capture_output=True, text=True, env=env, check=False, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return re.sub(r"\(\d+ ms\)", "(time)", done.stdout + done.stderr)  # wall time: the one thing that may differ


def test_the_cli_explanation_is_the_same_when_only_out_of_scope_documents_differ(pair: tuple[Graph, Graph]) -> None:
    a = _cli_explain(pair[0].path, "Babbage Analytical Engine", "GRAPH_HYBRID")
    b = _cli_explain(pair[1].path, "Babbage Analytical Engine", "GRAPH_HYBRID")
    assert "keyword search: rank 1 (score" in a  # the keyword leg's own BM25 score is shown
    assert a.replace(str(pair[0].path), "IX") == b.replace(str(pair[1].path), "IX")
