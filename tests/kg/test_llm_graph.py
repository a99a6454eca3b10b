"""The LLM path end to end: an index of the workshop corpus built by LLMExtractor + LLMReporter.

The model is the scripted OpenAI-compatible server of ``tests/agent/chat_server.py``,
answering every extraction and report request from the text it is sent.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agrag_lab.cli import main
from agrag_lab.datasets import workshop
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.graph import Graph
from agrag_lab.kg.llm_extraction import LLMExtractor
from agrag_lab.kg.llm_reports import LLMReporter
from agrag_lab.recipes import BUILTINS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agent"))
from chat_server import ScriptedChat, graph_reply, serve


def test_the_llm_path_builds_the_workshop_graph_and_every_recipe_runs(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat = ScriptedChat([], default=graph_reply)
    ws = workshop()
    with serve(chat) as url:
        monkeypatch.setenv("AGRAG_LLM_BASE_URL", url)
        monkeypatch.setenv("AGRAG_LLM_MODEL", "scripted")
        with Graph.open(tmp_path / "idx", embedder=embedder, extractor="llm") as graph:
            assert isinstance(graph.extractor, LLMExtractor) and isinstance(graph.reporter, LLMReporter)
            report = graph.ingest(ws.documents)
            graph.ingest(ws.revisions)
            assert "LLM scripted at" in report.llm and "0 chunks and 0 communities failed" in report.llm
            assert "LLM calls" in str(report)
            store = graph.graph_store
            ada = next(e for e in store.entities() if e.name == "Ada Lovelace")
            assert ada.label == "Person" and ada.description  # the model's description of her
            reports = store.reports()
            assert reports and all(r.findings and r.rating is not None and r.full_content for r in reports)
            assert all(set(r.chunk_ids) <= set(store.graph.current_chunks) for r in reports)
            engine = graph.engine()
            ran = []
            for name, recipe in BUILTINS.items():
                if recipe.rerank.kind == "cross_encoder":
                    continue  # needs a cross-encoder model, which this offline machine has not
                run = engine.run("Who worked with Babbage?", recipe)
                assert run.results, name
                ran.append(name)
            assert {"ENTITY", "CHUNK", "HYBRID", "GRAPH_EXPAND", "THEMATIC"} <= set(ran)
            calls = len(chat.requests)
            assert calls > len(reports)
        # the index remembers the choice; a rebuild reads every answer from the caches: no call
        with Graph.open(tmp_path / "idx", embedder=embedder) as graph:
            assert isinstance(graph.extractor, LLMExtractor)
            graph.sync()
            assert len(chat.requests) == calls
            assert graph.extractor.cache_hits == 0 and graph.reporter.cache_hits == len(graph.graph_store.reports())


def test_cli_ingest_and_graph_with_the_llm_extractor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ada.md").write_text("# Ada Lovelace\n\nAda Lovelace worked with Charles Babbage in London.\n")
    (docs / "engine.md").write_text("# Analytical Engine\n\nCharles Babbage designed the Analytical Engine.\n")
    index = tmp_path / "idx"
    with serve(ScriptedChat([], default=graph_reply)) as url:
        monkeypatch.setenv("AGRAG_LLM_BASE_URL", url)
        monkeypatch.setenv("AGRAG_LLM_MODEL", "scripted")
        assert main(["ingest", str(docs), "--index", str(index), "--extractor", "llm"]) == 0
        out = capsys.readouterr().out
        assert "2 new" in out and "LLM scripted at" in out
        assert main(["graph", "--index", str(index), "--extractor", "llm"]) == 0
        out = capsys.readouterr().out
        assert "Charles Babbage" in out and "0 LLM calls" in out  # rebuilt from the caches
    monkeypatch.setenv("AGRAG_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    assert main(["graph", "--index", str(index), "--extractor", "llm"]) == 0  # cached: no endpoint needed
    monkeypatch.delenv("AGRAG_LLM_BASE_URL")
    assert main(["graph", "--index", str(index), "--extractor", "llm"]) == 2
    assert "AGRAG_LLM_BASE_URL" in capsys.readouterr().err
