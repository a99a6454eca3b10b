"""The LLM path: the real ChatClient against a scripted OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from chat_server import ScriptedChat, call, say, serve, tool_result

from agrag_lab import Graph
from agrag_lab.agent import AGENT_TOOLS, Agent, LLMError, LLMSettings
from agrag_lab.evidence.citations import find_citations

QUESTION = "Which numbers did Ada Lovelace show the Analytical Engine could calculate in Note G?"


def _settings(url: str) -> LLMSettings:
    return LLMSettings(url, "scripted", api_key="test-key", timeout=30)


def _remember_hits(chat: ScriptedChat) -> Any:
    """fetch_evidence arguments: the first hit of the last search (and remember both first hits)."""

    def arguments(body: dict[str, Any]) -> dict[str, Any]:
        hits = [h["id"] for h in tool_result(body)["hits"]]
        chat.state["hits"] = hits
        return {"ids": [hits[0]]}

    return arguments


def _answer(chat: ScriptedChat) -> Any:
    def content(body: dict[str, Any]) -> str:
        first, second = chat.state["hits"][:2]
        return (
            f"In Note G Lovelace showed how the engine could calculate the Bernoulli numbers [{first}]. "
            f"The Bernoulli numbers appear in formulas for sums of powers [{second}]."
        )

    return content


def test_a_rejected_citation_is_retried_and_fixed(workshop_graph: Graph) -> None:
    chat = ScriptedChat([])
    chat.script = [
        call("search_evidence", {"query": "Note G Bernoulli numbers", "limit": 5}),
        call("fetch_evidence", _remember_hits(chat)),
        say(_answer(chat)),  # cites the second hit without fetching it
        call("fetch_evidence", lambda body: {"ids": [chat.state["hits"][1]]}),
        say(_answer(chat)),
    ]
    with serve(chat) as url:
        answer = Agent(workshop_graph.evidence(), _settings(url)).ask(QUESTION)
    first, second = chat.state["hits"][:2]
    assert answer.all_valid and answer.cited_ids == (first, second)
    assert answer.policy == "llm:scripted"
    assert [s.tool for s in answer.steps] == [
        "search_evidence", "fetch_evidence", "check_citations", "fetch_evidence", "check_citations", "render_citations",
    ]
    assert any("rejected 1 citation" in n and second in n for n in answer.notes)
    retry = chat.requests[3]["messages"][-1]
    assert retry["role"] == "user" and second in retry["content"] and "not_fetched" in retry["content"]
    # what the model was sent
    first_request = chat.requests[0]
    assert first_request["model"] == "scripted" and first_request["temperature"] == 0
    assert [t["function"]["name"] for t in first_request["tools"]] == list(AGENT_TOOLS)
    assert first_request["messages"][0]["role"] == "system" and first_request["messages"][1]["content"] == QUESTION
    assert chat.headers[0]["authorization"] == "Bearer test-key"
    assert "Sources" in answer.text and "[1]" in answer.body and "[2]" in answer.body


def test_a_citation_still_rejected_after_the_retry_is_dropped_with_its_claim(workshop_graph: Graph) -> None:
    chat = ScriptedChat([])
    chat.script = [
        call("search_evidence", {"query": "Note G Bernoulli numbers", "limit": 5}),
        call("fetch_evidence", _remember_hits(chat)),
        say(_answer(chat)),
        say(_answer(chat)),  # the model insists
    ]
    session = workshop_graph.evidence()
    with serve(chat) as url:
        answer = Agent(session, _settings(url)).ask(QUESTION)
    first, second = chat.state["hits"][:2]
    assert answer.cited_ids == (first,)
    assert second not in answer.raw and second not in answer.text and "[?]" not in answer.text
    assert "sums of powers" not in answer.body
    assert "Removed 1 claim whose citation could not be verified" in answer.raw
    assert any(n.startswith("dropped the claim") and second in n for n in answer.notes)
    # nothing in the final answer is rejected by check_citations
    assert session.check_citations(answer.raw).all_valid
    assert [c for c, _, _ in find_citations(answer.raw)] == [first]


def test_bad_tool_calls_are_answered_with_errors(workshop_graph: Graph) -> None:
    chat = ScriptedChat([
        call("delete_index", {}),
        call("search_evidence", "{not json"),
        call("search_evidence", {"query": "   ", "limit": 500}),
        call("fetch_evidence", {"ids": ["nope", "lord-byron@0123456789ab#c0"]}),
        say("The passages I could read do not say."),
    ])
    with serve(chat) as url:
        answer = Agent(workshop_graph.evidence(), _settings(url)).ask("What is the airspeed of a swallow?")
    steps = answer.steps
    assert "unknown tool 'delete_index'" in (steps[0].error or "")
    assert "not valid JSON" in (steps[1].error or "")
    assert "query: must not be blank" in (steps[2].error or "") and "limit: must be at most 50" in (steps[2].error or "")
    assert steps[3].ok and steps[3].result_ids == ()
    assert '"error"' in chat.requests[1]["messages"][-1]["content"]
    reasons = [i["reason"] for i in tool_result(chat.requests[4])["items"]]
    assert reasons == ["malformed", "unknown"]
    assert answer.references == () and answer.body == "The passages I could read do not say."


def test_turn_limit(workshop_graph: Graph) -> None:
    chat = ScriptedChat([call("search_evidence", {"query": "Babbage"}) for _ in range(3)])
    with serve(chat) as url:
        answer = Agent(workshop_graph.evidence(), _settings(url), max_turns=3).ask("Who was Babbage?")
    assert any("no final answer within 3 turns" in n for n in answer.notes)
    assert answer.body == "The passages in scope do not answer this question."


def test_endpoint_errors_are_clear(workshop_graph: Graph) -> None:
    with serve(ScriptedChat([], fail_with=500)) as url, pytest.raises(LLMError, match="answered HTTP 500"):
        Agent(workshop_graph.evidence(), _settings(url)).ask(QUESTION)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(LLMError, match="cannot reach the LLM endpoint"):
        Agent(workshop_graph.evidence(), _settings(f"http://127.0.0.1:{port}/v1")).ask(QUESTION)


def test_settings_from_the_environment() -> None:
    assert LLMSettings.from_env({}) is None
    env = {"AGRAG_LLM_BASE_URL": "http://127.0.0.1:9/v1", "AGRAG_LLM_MODEL": "m", "AGRAG_LLM_API_KEY": "secret"}
    settings = LLMSettings.from_env(env)
    assert settings is not None and settings.api_key == "secret" and "secret" not in repr(settings)
    assert LLMSettings.from_env(env, model="other") == LLMSettings("http://127.0.0.1:9/v1", "other", "secret")
    with pytest.raises(LLMError, match="AGRAG_LLM_MODEL"):
        LLMSettings.from_env({"AGRAG_LLM_BASE_URL": "http://127.0.0.1:9/v1"})
    with pytest.raises(LLMError, match="not an http"):
        LLMSettings("ftp://x", "m")
