"""The server in-process (SDK client over the direct dispatcher), and its parts."""

from __future__ import annotations

import argparse
import re
import socket
from typing import Any

import pytest
from mcp import Client
from mcp_support import data, text

from agrag_lab import Graph
from agrag_lab.errors import ArgumentError, ServiceError
from agrag_lab.evidence import Scope
from agrag_lab.kg.scope import GraphScope
from agrag_lab.mcp import EvidenceServer, SessionRegistry, UnknownSessionError, scope_from_args


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _registry(**kwargs: Any) -> tuple[SessionRegistry, Clock, list[object]]:
    made: list[object] = []

    def factory() -> Any:
        made.append(object())
        return made[-1]

    clock = Clock()
    return SessionRegistry(factory, clock=clock, **kwargs), clock, made


def test_sessions_are_minted_unguessable_and_distinct() -> None:
    reg, _, made = _registry()
    handles = {reg.open()[0] for _ in range(50)}
    assert len(handles) == 50 and len(made) == 50
    assert all(h.startswith("es-") and len(h) >= 24 for h in handles)


def test_connection_keys_alias_one_session() -> None:
    reg, _, _ = _registry()
    h1, s1 = reg.for_connection("http:abc")
    h2, s2 = reg.for_connection("http:abc")
    h3, _ = reg.for_connection("http:def")
    assert (h1, s1) == (h2, s2) and h3 != h1
    assert reg.get(h1) is s1


def test_idle_sessions_expire() -> None:
    reg, clock, _ = _registry(idle_timeout=10)
    handle, _ = reg.open()
    kept, _ = reg.open()
    clock.now = 8
    reg.get(kept)
    clock.now = 15
    with pytest.raises(UnknownSessionError, match="was forgotten: it was unused for more than 10 s; call open_session"):
        reg.get(handle)
    assert reg.get(kept) is not None
    with pytest.raises(UnknownSessionError, match="unknown or expired evidence session handle"):
        reg.get("es-never-minted")


def test_least_recently_used_go_first() -> None:
    reg, clock, _ = _registry(max_sessions=3)
    handles = [reg.open()[0] for _ in range(3)]
    clock.now = 1
    reg.get(handles[0])
    reg.open()
    assert len(reg) == 3
    with pytest.raises(UnknownSessionError):
        reg.get(handles[1])
    reg.get(handles[0])


def test_one_client_cannot_evict_another() -> None:
    """300 opens by one client forget only its own oldest; the other client's session stays."""
    reg, clock, _ = _registry(max_sessions=256, per_client=32)
    victim, victim_session = reg.open("tcp:127.0.0.1:5000")
    attacker = []
    for n in range(300):
        clock.now = 1 + n
        attacker.append(reg.open("tcp:127.0.0.1:6000")[0])
    assert reg.get(victim) is victim_session
    assert reg.owned("tcp:127.0.0.1:6000") == 32 and len(reg) == 33
    assert all(reg.get(h) is not None for h in attacker[-32:])
    with pytest.raises(UnknownSessionError, match=r"opened more than 32 sessions .* at most 32 per client"):
        reg.get(attacker[0])


def test_past_the_total_the_greediest_client_loses_its_oldest() -> None:
    reg, clock, _ = _registry(max_sessions=6, per_client=4)
    few = [reg.open("few")[0] for _ in range(2)]
    many = []
    for n in range(4):
        clock.now = 1 + n
        many.append(reg.open("many")[0])
    clock.now = 10
    reg.get(few[0])
    reg.open("third")  # 7 > 6: "many" holds the most, its oldest goes
    assert [reg.owned(o) for o in ("few", "many", "third")] == [2, 3, 1]
    with pytest.raises(UnknownSessionError, match="at most 6 sessions in all"):
        reg.get(many[0])
    assert all(reg.get(h) is not None for h in few)


def test_bounds_below_one_are_refused() -> None:
    with pytest.raises(ArgumentError, match="per_client must be at least 1, got 0"):
        _registry(per_client=0)
    with pytest.raises(ArgumentError, match="idle_timeout must be above 0 seconds"):
        _registry(idle_timeout=0)


def test_scope_from_args() -> None:
    assert scope_from_args(None, None) is None
    scope = scope_from_args(["a", "b"], ["era=victorian", "year=1843", "live=true"])
    assert scope == Scope(document_ids=frozenset({"a", "b"}), where={"era": "victorian", "year": 1843, "live": True})
    with pytest.raises(argparse.ArgumentTypeError, match="KEY=VALUE"):
        scope_from_args(None, ["novalue"])


@pytest.fixture(scope="module")
def ada_only(workshop_graph: Graph) -> EvidenceServer:
    return EvidenceServer(workshop_graph, Scope(document_ids=frozenset({"ada-lovelace"})))


@pytest.mark.anyio
async def test_recipe_search_shows_entities_as_the_scope_sees_them(ada_only: EvidenceServer, workshop_graph: Graph) -> None:
    """The engine describes an entity from the whole graph; the tool shows only what the scope shows."""
    async with Client(ada_only.mcp) as client:
        out = data(await client.call_tool("search", {"query": "Charles Babbage", "recipe": "ENTITY", "limit": 10}))
    assert out["results"]
    scope = GraphScope(document_ids=frozenset({"ada-lovelace"}))
    for result in out["results"]:
        assert result["kind"] == "entity"
        entity = workshop_graph.graph_store.entity(result["id"], scope)
        assert entity is not None
        assert entity.description in result["text"]
        assert result["title"] == entity.name
        assert all(p.startswith("ada-lovelace@") for p in result["passages"])
        assert "chronology" not in result["text"]  # the timeline document's wording


@pytest.mark.anyio
async def test_scope_with_no_readable_document(workshop_graph: Graph) -> None:
    server = EvidenceServer(workshop_graph, Scope(document_ids=frozenset({"no-such-document"})))
    async with Client(server.mcp) as client:
        assert data(await client.call_tool("search_evidence", {"query": "Babbage"}))["hits"] == []
        assert data(await client.call_tool("search", {"query": "Babbage"}))["results"] == []
        assert data(await client.call_tool("find_entities", {"query": "Babbage"}))["entities"] == []


@pytest.mark.anyio
async def test_unrestricted_server_in_process(workshop_graph: Graph) -> None:
    server = EvidenceServer(workshop_graph)
    assert set(server.tool_names) >= {"search_evidence", "fetch_evidence", "check_citations"}
    async with Client(server.mcp) as client:
        hits = data(await client.call_tool("search_evidence", {"query": "Lord Byron", "mode": "keyword", "limit": 3}))
        assert any(h["id"].startswith("lord-byron@") for h in hits["hits"])
        opened = data(await client.call_tool("open_session", {}))
        assert opened["scope_restricted"] is False
        bad = await client.call_tool("explore", {"entity": "Charles Babbage", "relation_types": ["X"] * 21})
        assert bad.is_error and "relation_types: takes at most 20 items" in text(bad)


@pytest.mark.anyio
@pytest.mark.parametrize(("host", "message"), [
    ("127.0.0.1", "another process listens on that port: pass another --port, or --port 0 for a free one"),
    ("no-such-host.invalid", "check --host (an address of this machine"),
])
async def test_an_address_that_cannot_be_served_is_a_clear_error(
    workshop_graph: Graph, host: str, message: str
) -> None:
    """Was a traceback ending in ``OSError: [Errno 98] Address already in use``."""
    server = EvidenceServer(workshop_graph)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ServiceError, match=f"cannot serve MCP on {host}:{port} .*{re.escape(message)}"):
            await server.serve_http(host, port)
