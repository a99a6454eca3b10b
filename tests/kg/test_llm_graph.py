"""The LLM path end to end: an index of the workshop corpus built by LLMExtractor + LLMReporter.

The model is the scripted OpenAI-compatible server of ``tests/agent/chat_server.py``,
answering every extraction and report request from the text it is sent.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

from agrag_lab.cli import main
from agrag_lab.datasets import workshop
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.graph import Graph
from agrag_lab.kg.extract.llm_extraction import LLMExtractor
from agrag_lab.kg.extract.llm_reports import LLMReporter
from agrag_lab.recipes import BUILTINS, RECIPES, Recipe

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agent"))
from chat_server import ScriptedChat, graph_reply, serve

QUESTION = "Who worked with Babbage?"


def _is_extraction(request: dict[str, Any]) -> bool:
    return str(request["messages"][0]["content"]).startswith("You extract")


def _runnable(recipe: Recipe, cross_encoder: Path) -> Recipe:
    return recipe.replace(**{"rerank.model": str(cross_encoder)}) if recipe.rerank.kind == "cross_encoder" else recipe


def test_the_llm_path_builds_the_workshop_graph_and_every_recipe_runs(
    tmp_path: Path,
    embedder: SentenceTransformerEmbedder,
    cross_encoder_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
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
            # calls, tokens, the time waited and failures in the ingest report, next to its wall time
            spent = re.search(r"(\d+) LLM calls \(0 retries, 0 failed\), ([\d,]+) prompt \+ ([\d,]+) completion "
                              r"tokens, [\d.]+ s; \d+ cached answers; 0 chunks and 0 communities failed", report.llm)
            assert spent and int(spent.group(1)) > 0 and int(spent.group(2).replace(",", "")) > 0, report.llm
            assert f"LLM scripted at {url}/chat/completions" in str(report) and report.seconds > 0
            err = capsys.readouterr().err  # a tqdm bar for each LLM step
            assert re.search(r"LLM extraction: 100%.*\| (\d+)/\1", err) and re.search(r"LLM reports: 100%", err)
            store = graph.graph_store
            ada = next(e for e in store.entities() if e.name == "Ada Lovelace")
            assert ada.label == "Person" and ada.description  # the model's description of her
            reports = {r.community_id: r for r in store.reports()}
            assert reports and all(r.findings and r.rating is not None and r.full_content for r in reports.values())
            assert all(r.summary.startswith("This community is about") for r in reports.values())  # the LLM's
            assert all(set(r.chunk_ids) <= set(store.graph.current_chunks) for r in reports.values())
            engine = graph.engine()
            runs = {}
            for name, recipe in RECIPES.items():  # the six built-ins and GRAPH_HYBRID
                run = engine.run(QUESTION, _runnable(recipe, cross_encoder_path))
                assert run.results and all(m.ok for m in run.trace.methods), name
                runs[name] = run
            assert set(runs) == {*BUILTINS, "GRAPH_HYBRID"}
            # THEMATIC and the community step read the LLM's reports
            for name in ("THEMATIC", "GRAPH_EXPAND", "HYBRID_RERANKED"):
                shown = [r for r in runs[name].results if r.kind == "community"]
                assert shown, name
                for hit in shown:
                    written = reports[hit.id]
                    assert hit.title == written.title and written.summary in hit.text, name
            added = runs["GRAPH_EXPAND"].trace.outcome.communities
            assert added and {a.community for a in added} <= set(reports)
            calls = len(chat.requests)
            assert calls > len(reports)
            # a re-ingest of the unchanged corpus makes no call
            again = graph.ingest(ws.revisions)
            assert again.unchanged == len(ws.revisions) and len(chat.requests) == calls
            assert again.llm.startswith(f"LLM scripted at {url}/chat/completions: 0 LLM calls")
            # the revised document back at its first version: its chunks' answers come from the cache
            extractions = sum(1 for r in chat.requests if _is_extraction(r))
            back = graph.ingest(ws.documents)
            assert back.changed == 1 and graph.extractor.cache_hits > 0
            assert sum(1 for r in chat.requests if _is_extraction(r)) == extractions
            calls = len(chat.requests)
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
        captured = capsys.readouterr()
        assert "2 new" in captured.out and "LLM scripted at" in captured.out
        assert "LLM extraction: 100%" in captured.err  # tqdm, on stderr
        assert main(["graph", "--index", str(index), "--extractor", "llm"]) == 0
        out = capsys.readouterr().out
        assert "Charles Babbage" in out and "0 LLM calls" in out  # rebuilt from the caches
    monkeypatch.setenv("AGRAG_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    assert main(["graph", "--index", str(index), "--extractor", "llm"]) == 0  # cached: no endpoint needed
    monkeypatch.delenv("AGRAG_LLM_BASE_URL")
    assert main(["graph", "--index", str(index), "--extractor", "llm"]) == 2
    assert "AGRAG_LLM_BASE_URL" in capsys.readouterr().err


def test_an_unreachable_endpoint_is_a_recorded_failure_naming_it(tmp_path: Path, embedder: SentenceTransformerEmbedder,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGRAG_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("AGRAG_LLM_MODEL", "scripted")
    with Graph.open(tmp_path / "idx", embedder=embedder, extractor="llm") as graph:
        graph.extractor.settings = graph.extractor.client.settings  # type: ignore[union-attr]
        report = graph.ingest(workshop().documents[:1])
    assert "cannot reach the LLM endpoint http://127.0.0.1:9/v1/chat/completions" in next(
        iter(graph.extractor.failures.values())  # type: ignore[union-attr]
    )
    assert re.search(r"[1-9]\d* chunks and \d+ communities failed", report.llm)
