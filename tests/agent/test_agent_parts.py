"""The agent's parts: tool catalogue, claim dropping, text helpers, gold scoring."""

from __future__ import annotations

import json

import pytest

from agrag_lab import Graph
from agrag_lab.agent import AGENT_TOOLS, DESCRIPTIONS, call_tool, openai_tools
from agrag_lab.agent.claims import claims, drop_invalid, strip_citations
from agrag_lab.agent.policy import Candidate, choose, cite, shortlist
from agrag_lab.agent.text import overlaps, sentences, terms
from benchmarks.agent import score_answer

A, B, C = "ada@0123456789ab#c1", "babbage@0123456789ab#c2", "menabrea.l@0123456789ab#s10-40"


def test_openai_tool_schemas() -> None:
    tools = openai_tools()
    assert [t["function"]["name"] for t in tools] == list(AGENT_TOOLS)
    for tool in tools:
        fn = tool["function"]
        assert fn["description"] == DESCRIPTIONS[fn["name"]]
        assert fn["parameters"]["type"] == "object" and fn["parameters"]["additionalProperties"] is False
    search = tools[0]["function"]["parameters"]
    assert search["required"] == ["query"] and search["properties"]["limit"]["maximum"] == 50


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("search_evidence", {"query": "x", "limit": 51}, "limit: must be at most 50"),
        ("search_evidence", {"query": "x", "scope": "all"}, "scope: unexpected argument"),
        ("navigate", {"id": A}, "to: required"),
        ("explore", {"entity": "", "depth": 0}, "entity: must not be empty"),
        ("check_citations", {"answer": "x", "ids": [A]}, "give exactly one of answer"),
        ("fetch_evidence", "[1, 2]", "must be a JSON object"),
        ("search", {"query": "x"}, "unknown tool 'search'"),
    ],
)
def test_tool_calls_are_validated(workshop_graph: Graph, name: str, arguments: object, message: str) -> None:
    outcome = call_tool(workshop_graph.evidence(), name, arguments)  # type: ignore[arg-type]
    assert not outcome.ok and message in (outcome.error or "")


def test_a_tool_call_records_its_ids(workshop_graph: Graph) -> None:
    session = workshop_graph.evidence()
    found = call_tool(session, "search_evidence", json.dumps({"query": "Note G", "limit": 3}))
    assert found.ok and len(found.ids) == 3 and found.arguments == {"query": "Note G", "limit": 3}
    fetched = call_tool(session, "fetch_evidence", {"ids": [*found.ids[:2], "bad"]})
    assert fetched.ids == found.ids[:2] and session.fetched == found.ids[:2]


def test_claims_split_sentences_not_ids() -> None:
    text = f"Ada wrote it [{A}]. Mr. Babbage built it [{B}, {C}]! Then\nA list item [{A}]"
    parts = [text[s:e] for s, e in claims(text)]
    assert parts == [f"Ada wrote it [{A}].", f"Mr. Babbage built it [{B}, {C}]!", "Then", f"A list item [{A}]"]


def test_drop_invalid_keeps_supported_claims() -> None:
    text = f"One [{A}]. Two [{B}]. Three [{A}, {B}].\nFour {C}."
    out, notes = drop_invalid(text, {B: "not_fetched", C: "unknown"})
    assert out == f"One [{A}]. Three [{A}]."
    assert len(notes) == 3 and notes[0].startswith("dropped the claim 'Two.'")
    assert "removed the rejected citation(s)" in notes[1]
    assert drop_invalid(text, {}) == (text, [])
    assert strip_citations(f"x [{A}; {B}] y ({C})") == "x y"


def test_text_helpers() -> None:
    assert terms("Who is the mother of Ada?") == ["mother", "ada"]
    assert [s for _, _, s in sentences("| A | B |\n|---|---|\n| 1 | 2 |")] == ["| A | B |", "| 1 | 2 |"]
    text = "First one. Second (c. 1840) one. Third!"
    assert [text[a:b] for a, b, _ in sentences(text)] == ["First one.", "Second (c. 1840) one.", "Third!"]
    assert overlaps("x y The engine was to be controlled by punched cards z", "The engine was to be controlled by punched cards of the kind used")
    assert not overlaps("The engine was controlled", "The engine was to be controlled by punched cards of the kind used")


def test_choose_covers_the_question() -> None:
    pool = [
        Candidate(A, 1, "Babbage was born in London.", frozenset(terms("Babbage was born in London."))),
        Candidate(B, 2, "Babbage liked parties.", frozenset(terms("Babbage liked parties."))),
        Candidate(C, 3, "London is large.", frozenset(terms("London is large."))),
    ]
    q = {t: 1.0 for t in terms("Where was Babbage born?")}
    assert [c.id for c in choose(q, pool)] == [A]
    assert shortlist(q, pool, 1) == [pool[0]]
    assert choose({"zzz": 1.0}, pool) == []
    assert cite("No stop", A) == f"No stop [{A}]"


def test_gold_scoring() -> None:
    gold = [{"document_id": "ada", "passage": "Ada wrote Note G in 1843."}, {"document_id": "x", "passage": "Other."}]
    assert score_answer({A: "Intro. Ada wrote Note G in 1843. More."}, gold) == {
        "gold_passage": True, "all_gold_passages": False, "gold_document": True,
    }
    assert score_answer({}, gold)["gold_passage"] is False
