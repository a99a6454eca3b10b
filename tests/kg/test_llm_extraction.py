"""LLM extraction and reports against the scripted OpenAI-compatible server (no model needed)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agrag_lab.documents import Chunk
from agrag_lab.graph_stores.build import build_store
from agrag_lab.ids import version_hash
from agrag_lab.kg.communities import Community
from agrag_lab.kg.extract.extraction import DocumentContext, Extractor
from agrag_lab.kg.extract.llm_extraction import LLMExtractor
from agrag_lab.kg.extract.llm_reports import LLMReporter
from agrag_lab.kg.extract.pipeline import extract_chunks
from agrag_lab.kg.extract.reports import ExtractiveReporter
from agrag_lab.kg.reports import CommunityReporter, report_text
from agrag_lab.llm import ChatClient, LLMError, LLMSettings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agent"))
from chat_server import ScriptedChat, extraction_answer, graph_reply, say, serve

TEXT = "Ada Lovelace worked with Charles Babbage on the Analytical Engine. Luigi Menabrea wrote about it in Turin."
CHUNK = Chunk("ada", version_hash(TEXT), 0, TEXT, 0, len(TEXT), "paragraph", 0, ())
CONTEXT = DocumentContext("ada", "Ada Lovelace")
GOOD = {
    "entities": [
        {"name": "Ada Lovelace", "type": "person", "description": "A mathematician."},
        {"name": "Charles Babbage", "type": "Person", "description": "Designer of engines."},
        {"name": "Analytical Engine", "type": "MACHINE", "description": "A general-purpose computer design."},
        {"name": "Turin", "type": "Spaceship", "description": "A city."},
    ],
    "relationships": [
        {"source": "Ada Lovelace", "target": "Charles Babbage", "type": "worked with",
         "description": "Lovelace worked with Babbage.", "strength": 9},
    ],
}


def settings(url: str, **kw: Any) -> LLMSettings:
    return LLMSettings(url, "scripted", backoff=0.01, **kw)


def test_a_good_answer_becomes_typed_entities_and_described_relations() -> None:
    chat = ScriptedChat([say(json.dumps(GOOD))])
    with serve(chat) as url:
        x = LLMExtractor(settings(url))
        assert isinstance(x, Extractor)
        result = x.extract(CHUNK, CONTEXT)
    assert not result.failure
    labels = {m.name: m.label for m in result.entities}
    assert labels == {"Ada Lovelace": "Person", "Charles Babbage": "Person", "Analytical Engine": "Machine",
                      "Turin": "Entity"}  # unknown types become the schema default
    engine = next(m for m in result.entities if m.name == "Analytical Engine")
    assert TEXT[engine.start : engine.end] == "Analytical Engine" and engine.description.startswith("A general")
    (rel,) = result.relations
    assert (rel.source, rel.type, rel.target, rel.strength) == ("Ada Lovelace", "WORKED_WITH", "Charles Babbage", 9)
    assert rel.description == "Lovelace worked with Babbage."
    request = chat.requests[0]
    assert request["response_format"] == {"type": "json_object"}
    assert "Person" in request["messages"][0]["content"] and "WORKED_WITH" in request["messages"][0]["content"]
    assert x.stats.calls == 1 and x.stats.prompt_tokens > 0


def test_malformed_json_is_shown_to_the_model_once() -> None:
    chat = ScriptedChat([say("Sure! Here are the entities: Ada, Babbage"), say(f"```json\n{json.dumps(GOOD)}\n```")])
    with serve(chat) as url:
        result = LLMExtractor(settings(url)).extract(CHUNK, CONTEXT)
    assert len(result.entities) == 4 and not result.failure
    retry = chat.requests[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "Sure! Here are the entities: Ada, Babbage"}
    assert "not valid JSON" in retry[-1]["content"]


def test_a_schema_violation_twice_records_the_failure() -> None:
    bad = {"entities": [{"name": "Ada Lovelace", "type": "Person"}],
           "relationships": [{"source": "Ada Lovelace", "target": "Babbage", "strength": "very strong"}]}
    chat = ScriptedChat([say(json.dumps(bad)), say(json.dumps({"entities": [{"type": "Person"}]}))])
    with serve(chat) as url:
        x = LLMExtractor(settings(url))
        result = x.extract(CHUNK, CONTEXT)
    assert "relationships.0.strength" in chat.requests[1]["messages"][-1]["content"]
    assert result.entities == () and "invalid JSON twice" in result.failure
    assert "entities.0.name" in result.failure
    assert x.failures == {CHUNK.id: result.failure}


def test_a_timeout_is_a_recorded_failure_naming_the_endpoint() -> None:
    with serve(ScriptedChat([say(json.dumps(GOOD))], delay=1.0)) as url:
        x = LLMExtractor(settings(url, timeout=0.2, max_retries=0))
        result = x.extract(CHUNK, CONTEXT)
    assert f"{url}/chat/completions did not answer within 0.2 s" in result.failure
    assert x.stats.failures == 1


def test_a_429_is_retried_after_a_back_off() -> None:
    chat = ScriptedChat([say(json.dumps(GOOD))], statuses=[429, 503])
    with serve(chat) as url:
        x = LLMExtractor(settings(url))
        result = x.extract(CHUNK, CONTEXT)
    assert len(result.entities) == 4
    assert len(chat.requests) == 3 and x.stats.retries == 2 and x.stats.calls == 3


def test_an_unreachable_endpoint_names_it() -> None:
    client = ChatClient(LLMSettings("http://127.0.0.1:9/v1", "m", max_retries=0))
    with pytest.raises(LLMError, match=r"cannot reach the LLM endpoint http://127\.0\.0\.1:9/v1/chat/completions"):
        client.complete([{"role": "user", "content": "hi"}])


def test_answers_are_cached_by_model_prompt_and_content(tmp_path: Path) -> None:
    chat = ScriptedChat([say(json.dumps(GOOD))])
    with serve(chat) as url:
        first = LLMExtractor(settings(url), cache_dir=tmp_path).extract(CHUNK, CONTEXT)
        again = LLMExtractor(settings(url), cache_dir=tmp_path)
        assert again.extract(CHUNK, CONTEXT) == first
        assert len(chat.requests) == 1 and again.cache_hits == 1 and again.stats.calls == 0
        other_model = LLMExtractor(LLMSettings(url, "another", max_retries=0), cache_dir=tmp_path)
        assert other_model.extract(CHUNK, CONTEXT).failure  # a miss: the script is used up, the server says 500
    assert len(chat.requests) == 2


def test_extract_many_runs_concurrently_in_order() -> None:
    people = [f"Person {c.upper()}{c * 3}" for c in "abcdefghijkl"]
    texts = [f"{p} met Other Person in Big City." for p in people]
    chunks = [Chunk(f"d{i}", version_hash(t), 0, t, 0, len(t), "paragraph", 0, ()) for i, t in enumerate(texts)]
    chat = ScriptedChat([], default=graph_reply)
    seen: list[int] = []

    def progress(items: Any, total: int, what: str) -> Any:
        seen.append(total)
        return items

    with serve(chat) as url:
        x = LLMExtractor(settings(url, concurrency=4))
        results = x.extract_many([(c, DocumentContext(c.document_id, "")) for c in chunks], progress)
    assert [r.entities[0].name for r in results] == people
    assert seen == [12] and len(chat.requests) == 12


def test_the_scripted_model_reads_the_chunk() -> None:
    answer = extraction_answer(TEXT)
    assert [e["name"] for e in answer["entities"]][:3] == ["Ada Lovelace", "Charles Babbage", "Analytical Engine"]


def test_llm_reports_have_graphrag_fields_and_cite_shown_chunks() -> None:
    texts = [TEXT, "Charles Babbage designed the Difference Engine in London. Ada Lovelace admired the Difference Engine."]
    chunks = [Chunk(f"d{i}", version_hash(t), 0, t, 0, len(t), "paragraph", 0, ()) for i, t in enumerate(texts)]
    items = extract_chunks([(c, DocumentContext(c.document_id, ""), True) for c in chunks])
    base = build_store(items)
    community = max(base.communities(), key=lambda c: len(c.members))
    text_of = {c.id: c.text for c in chunks}
    chat = ScriptedChat([], default=graph_reply)
    with serve(chat) as url:
        reporter = LLMReporter(settings(url))
        assert isinstance(reporter, CommunityReporter)
        report = reporter.report(community, base.graph, lambda c: text_of.get(c, ""))
    extractive = ExtractiveReporter().report(community, base.graph, lambda c: text_of.get(c, ""))
    assert report.title != extractive.title and report.rating is not None and report.rating_explanation
    assert report.findings and all("[Data: Sources (" in explanation for _s, explanation in report.findings)
    assert set(report.chunk_ids) <= set(text_of) and report.chunk_ids
    assert report.key_entities == extractive.key_entities
    assert report.full_content.startswith(f"# {report.title}")
    assert report.findings[0][0] in report_text(report)


def test_a_report_citing_unseen_chunks_is_corrected_then_falls_back() -> None:
    texts = [TEXT]
    chunk = Chunk("d0", version_hash(TEXT), 0, TEXT, 0, len(TEXT), "paragraph", 0, ())
    base = build_store(extract_chunks([(chunk, DocumentContext("d0", ""), True)]))
    community = Community("com-x", 0, tuple(base.graph.entities))
    wrong = {"title": "T", "summary": "S", "rating": 3, "findings": [{"summary": "F", "chunk_ids": ["nope"]}]}
    chat = ScriptedChat([say(json.dumps(wrong)), say(json.dumps(wrong))])
    with serve(chat) as url:
        reporter = LLMReporter(settings(url))
        report = reporter.report(community, base.graph, lambda c: texts[0] if c == "d0#c0" or c else "")
    assert "cites sources it was not shown" in chat.requests[1]["messages"][-1]["content"]
    assert "com-x" in reporter.failures and report.findings == ()  # the extractive report stands in
