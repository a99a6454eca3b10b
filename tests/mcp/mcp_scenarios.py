"""Checks run through a real MCP client against a server with the SCOPE of mcp_support.

Each takes a connected :class:`mcp.Client` and, where the transport keeps no
connection state, the evidence session handle to use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_support import SCOPE, TOOLS, data, text

from agrag_lab import recipes


@dataclass(frozen=True)
class Probe:
    """Ids computed from the index itself, to ask the server about."""

    outside: str  # a real chunk id of a document outside the scope
    missing: str  # the same shape, naming a document that does not exist
    superseded: str  # chunk 0 of the old version of analytical-engine (in scope)
    inside_unknown: str  # an in-scope document, a chunk number that does not exist


def in_scope(evidence_id: str) -> bool:
    return evidence_id.split("@", 1)[0] in SCOPE


def with_session(arguments: dict[str, Any], session: str | None) -> dict[str, Any]:
    return {**arguments, "session": session} if session is not None else arguments


async def check_tool_list(client: Client) -> None:
    listed = (await client.list_tools()).tools
    assert {t.name for t in listed} == TOOLS
    for tool in listed:
        assert tool.description and len(tool.description) > 80, tool.name
        assert tool.input_schema["type"] == "object"
        assert tool.output_schema is not None, tool.name
    by_name = {t.name: t for t in listed}
    limit = by_name["search_evidence"].input_schema["properties"]["limit"]
    assert limit["maximum"] == 50 and limit["minimum"] == 1
    assert by_name["navigate"].input_schema["properties"]["to"]["enum"] == [
        "parent", "children", "siblings", "prev", "next", "table",
    ]
    assert by_name["search"].input_schema["properties"]["recipe"]["enum"] == list(recipes.names())  # the peers too
    assert recipes.RECOMMENDED.name in by_name["search"].input_schema["properties"]["recipe"]["enum"]
    assert by_name["search_evidence"].input_schema["additionalProperties"] is False


async def check_every_tool(client: Client, probe: Probe, session: str | None) -> str:
    """Call every tool once with good arguments; return the session handle used."""
    found = data(await client.call_tool("search_evidence", {"query": "Note G Bernoulli numbers", "limit": 5}))
    assert found["status"] in ("ok", "truncated") and found["hits"]
    for hit in found["hits"]:
        assert in_scope(hit["id"]) and hit["snippet"] and hit["title"]
        assert hit["location"]["document_id"] == hit["id"].split("@")[0]
    first, second = found["hits"][0]["id"], found["hits"][1]["id"]

    fetched = data(await client.call_tool("fetch_evidence", with_session({"ids": [first, probe.superseded]}, session)))
    handle = fetched["session"]
    assert session is None or handle == session
    current, old = fetched["items"]
    assert current["ok"] and current["text"] and current["version_status"] == "current"
    assert old["ok"] and old["version_status"] == "superseded"

    nav = data(await client.call_tool("navigate", {"id": first, "to": "parent"}))
    assert nav["items"] and all(in_scope(i["id"]) for i in nav["items"])
    nxt = data(await client.call_tool("navigate", {"id": first, "to": "next"}))
    assert all(in_scope(i["id"]) for i in nxt["items"])

    ents = data(await client.call_tool("find_entities", {"query": "Ada Lovelace", "limit": 3}))
    assert ents["entities"]
    for entity in ents["entities"]:
        assert all(in_scope(p["id"]) for p in entity["passages"])
    explored = data(await client.call_tool("explore", {"entity": ents["entities"][0]["id"], "depth": 1, "limit": 10}))
    assert explored["edges"]
    for edge in explored["edges"]:
        assert edge["kind"] in ("assertion", "path")
        assert all(in_scope(s["id"]) for s in edge["support"])

    said = " ".join(w.strip(".,;:!?()[]*#|") for w in current["text"].split()[:8])  # a claim the passage states
    answer = f"{said} [{first}]. Another claim [{second}]."
    checked = data(await client.call_tool("check_citations", with_session({"answer": answer}, handle)))
    assert [c["reason"] for c in checked["checks"]] == ["fetched", "not_fetched"]
    assert checked["all_valid"] is False and checked["session"] == handle
    by_ids = data(await client.call_tool("check_citations", with_session({"ids": [first]}, handle)))
    assert by_ids["all_valid"] is True

    rendered = data(await client.call_tool("render_citations", with_session({"answer": answer}, handle)))
    assert rendered["body"].startswith(f"{said} [1]. Another claim [?].")
    assert "Sources" in rendered["text"] and rendered["references"][0]["id"] == first

    recommended = data(
        await client.call_tool("search", {"query": "Who worked with Babbage?", "recipe": recipes.RECOMMENDED.name.lower()})
    )
    assert recommended["recipe"] == recipes.RECOMMENDED.name and recommended["results"]
    assert all(in_scope(p) for r in recommended["results"] for p in r["passages"])

    ranked = data(await client.call_tool("search", {"query": "Who worked with Babbage?", "recipe": "HYBRID", "limit": 5}))
    assert ranked["recipe"] == "HYBRID" and ranked["results"]
    for result in ranked["results"]:
        assert "fused score" in result["explanation"]
        assert all(in_scope(p) for p in result["passages"])
        assert result["document_id"] is None or result["document_id"] in SCOPE

    opened = data(await client.call_tool("open_session", {}))
    assert opened["session"].startswith("es-") and opened["scope_restricted"] is True
    return str(handle)


def _masked(message: str, evidence_id: str) -> str:
    return message.replace(evidence_id, "<ID>")


async def check_scope(client: Client, probe: Probe, session: str | None) -> None:
    """An id outside the scope is indistinguishable from one that does not exist."""
    items = data(await client.call_tool(
        "fetch_evidence", with_session({"ids": [probe.outside, probe.missing, probe.inside_unknown]}, session)
    ))["items"]
    outside, missing, inside_unknown = items
    assert not outside["ok"] and not missing["ok"] and not inside_unknown["ok"]
    assert outside["reason"] == missing["reason"] == inside_unknown["reason"] == "unknown"
    assert _masked(outside["message"], probe.outside) == _masked(missing["message"], probe.missing)
    assert _masked(outside["message"], probe.outside) == _masked(inside_unknown["message"], probe.inside_unknown)

    nav_out = await client.call_tool("navigate", {"id": probe.outside, "to": "next"})
    nav_missing = await client.call_tool("navigate", {"id": probe.missing, "to": "next"})
    assert nav_out.is_error and nav_missing.is_error
    assert _masked(text(nav_out), probe.outside) == _masked(text(nav_missing), probe.missing)

    session_args = with_session({"ids": [probe.outside, probe.missing]}, session)
    checks = data(await client.call_tool("check_citations", session_args))["checks"]
    assert checks[0]["reason"] == checks[1]["reason"]
    assert _masked(checks[0]["message"], probe.outside.split("@")[0]) == _masked(
        checks[1]["message"], probe.missing.split("@")[0]
    )

    for query in ("Lord Byron poet Childe Harold", "Byron"):
        hits = data(await client.call_tool("search_evidence", {"query": query, "mode": "keyword", "limit": 50}))["hits"]
        assert all(in_scope(h["id"]) for h in hits)
    for name in ("Lord Byron",):
        ents = data(await client.call_tool("find_entities", {"query": name, "limit": 20}))["entities"]
        for entity in ents:
            assert all(in_scope(p["id"]) for p in entity["passages"])

    # arguments cannot widen the scope
    widened = await client.call_tool(
        "search_evidence", {"query": "Byron", "document_ids": ["lord-byron"], "scope": {"document_ids": None}}
    )
    assert widened.is_error and "scope is fixed" in text(widened)


BAD_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("search_evidence", {"query": 5}, "query: input should be a valid string"),
    ("search_evidence", {"query": "Babbage", "limit": "many"}, "limit: input should be a valid integer"),
    ("search_evidence", {"query": "Babbage", "mode": "fuzzy"}, "mode: must be one of 'keyword', 'vector' or 'hybrid'"),
    ("search_evidence", {"query": ""}, "query: must not be empty"),
    ("search_evidence", {"query": "   \t "}, "query: must not be blank"),
    ("search_evidence", {}, "query: required"),
    ("search_evidence", {"query": "Babbage", "limit": 10**9}, "limit: must be at most 50"),
    ("search_evidence", {"query": "Babbage", "limit": 0}, "limit: must be at least 1"),
    ("find_entities", {"query": "Babbage", "limit": 10**6}, "limit: must be at most 50"),
    ("explore", {"entity": "Charles Babbage", "depth": 99}, "depth: must be at most 3"),
    ("explore", {"entity": "Nobody At All"}, "unknown entity"),
    ("fetch_evidence", {"ids": "not-a-list"}, "ids: input should be a valid list"),
    ("fetch_evidence", {"ids": []}, "ids: needs at least 1 item"),
    ("fetch_evidence", {"ids": [f"ada-lovelace@0123456789ab#c{i}" for i in range(51)]}, "ids: takes at most 50 items"),
    ("navigate", {"id": "not-an-id", "to": "next"}, "has no '@'"),
    ("navigate", {"id": "ada-lovelace@XYZ#c1", "to": "next"}, "must be 8-64 lowercase hex digits"),
    ("navigate", {"id": "ada-lovelace@0123456789ab#c1", "to": "up"}, "to: must be one of"),
    ("check_citations", {}, "give exactly one of answer"),
    ("render_citations", {"answer": "x" * 20_001}, "answer: is too long"),
    ("search", {"query": "Babbage", "recipe": "/etc/passwd.toml"}, "recipe: must be one of"),
    ("search", {"query": " "}, "query: must not be blank"),
    ("open_session", {"extra": 1}, "unexpected argument(s) 'extra'"),
]


async def check_bad_arguments(client: Client, session: str | None) -> None:
    """Each bad call is an error result with a clear message; the server keeps serving."""
    for name, arguments, expected in BAD_CALLS:
        args = dict(arguments)
        if name in ("check_citations", "render_citations") and session is not None:
            args["session"] = session
        result = await client.call_tool(name, args)
        assert result.is_error, (name, arguments, text(result))
        assert expected in text(result), (name, arguments, text(result))
    # a malformed id inside a batch is an error entry, not a failed call
    items = data(await client.call_tool("fetch_evidence", with_session({"ids": ["nope"]}, session)))["items"]
    assert items[0]["reason"] == "malformed" and "has no '@'" in items[0]["message"]
    # an unknown tool is a protocol error (-32602) that names the tools
    with pytest.raises(MCPError) as caught:
        await client.call_tool("delete_everything", {})
    assert caught.value.error.code == -32602
    assert "Unknown tool" in caught.value.error.message and "search_evidence" in caught.value.error.message
    # still serving
    ok = data(await client.call_tool("search_evidence", {"query": "Babbage", "limit": 1}))
    assert len(ok["hits"]) == 1
