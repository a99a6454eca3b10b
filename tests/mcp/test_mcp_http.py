"""The real SDK client against ``agrag-lab mcp --transport http`` (a subprocess on 127.0.0.1)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp_scenarios import Probe, check_bad_arguments, check_every_tool, check_scope, check_tool_list
from mcp_support import HttpServer, data, http_server, text

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def server(workshop_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    with http_server(workshop_path, tmp_path_factory.mktemp("mcp-http")) as running:
        yield running
    assert running.stdout() == "", "the server wrote to stdout"


def test_binds_loopback(server: HttpServer) -> None:
    assert server.url.startswith("http://127.0.0.1:") and server.url.endswith("/mcp")


async def test_every_tool_scope_and_bad_arguments(server: HttpServer, probe: Probe) -> None:
    with anyio.fail_after(300):
        async with Client(server.url) as client:
            assert client.protocol_version == "2026-07-28"
            await check_tool_list(client)
            session = data(await client.call_tool("open_session", {}))["session"]
            assert await check_every_tool(client, probe, session) == session
            await check_scope(client, probe, session)
            await check_bad_arguments(client, session)


async def test_sessionless_requests_need_a_handle(server: HttpServer) -> None:
    """2026-07-28 requests carry no connection state: fetch mints a handle, check needs it."""
    with anyio.fail_after(120):
        async with Client(server.url) as client:
            hit = data(await client.call_tool("search_evidence", {"query": "Difference Engine No. 2", "limit": 1}))
            cited = hit["hits"][0]["id"]
            fetched = data(await client.call_tool("fetch_evidence", {"ids": [cited]}))
            handle = fetched["session"]
            missing = await client.call_tool("check_citations", {"ids": [cited]})
            assert missing.is_error and "pass `session`" in text(missing)
            ok = data(await client.call_tool("check_citations", {"ids": [cited], "session": handle}))
            assert ok["all_valid"]
            unknown = await client.call_tool("check_citations", {"ids": [cited], "session": "es-not-a-real-handle"})
            assert unknown.is_error and "unknown or expired evidence session handle" in text(unknown)


async def test_two_clients_have_separate_fetch_memory(server: HttpServer) -> None:
    with anyio.fail_after(120):
        async with Client(server.url) as a, Client(server.url) as b:
            hits = data(await a.call_tool("search_evidence", {"query": "Analytical Engine store mill", "limit": 2}))
            first, second = (h["id"] for h in hits["hits"])
            sa = data(await a.call_tool("fetch_evidence", {"ids": [first]}))["session"]
            sb = data(await b.call_tool("fetch_evidence", {"ids": [second]}))["session"]
            assert sa != sb
            ca = data(await a.call_tool("check_citations", {"ids": [first, second], "session": sa}))
            cb = data(await b.call_tool("check_citations", {"ids": [first, second], "session": sb}))
            assert [c["valid"] for c in ca["checks"]] == [True, False]
            assert [c["valid"] for c in cb["checks"]] == [False, True]


async def test_legacy_clients_are_keyed_by_their_http_session(server: HttpServer) -> None:
    """2025-11-25 clients have an Mcp-Session-Id: each gets its own default evidence session."""
    with anyio.fail_after(120):
        async with Client(server.url, mode="legacy") as a, Client(server.url, mode="legacy") as b:
            assert a.protocol_version == "2025-11-25"
            hits = data(await a.call_tool("search_evidence", {"query": "Note G", "limit": 1}))
            cited = hits["hits"][0]["id"]
            sa = data(await a.call_tool("fetch_evidence", {"ids": [cited]}))["session"]
            ca = data(await a.call_tool("check_citations", {"answer": f"Note G [{cited}]."}))
            cb = data(await b.call_tool("check_citations", {"answer": f"Note G [{cited}]."}))
            assert ca["session"] == sa and ca["all_valid"]
            assert cb["session"] != sa and cb["checks"][0]["reason"] == "not_fetched"


async def test_one_client_opening_300_sessions_evicts_only_its_own(server: HttpServer) -> None:
    """The eviction attack: another client's fetches still check; the attacker loses its own oldest."""
    with anyio.fail_after(600):
        async with Client(server.url) as victim, Client(server.url) as attacker:
            hit = data(await victim.call_tool("search_evidence", {"query": "Note G Bernoulli numbers", "limit": 1}))
            cited = hit["hits"][0]["id"]
            mine = data(await victim.call_tool("fetch_evidence", {"ids": [cited]}))["session"]
            answers = [data(await attacker.call_tool("open_session", {})) for _ in range(300)]
            assert answers[0]["sessions_per_client"] == 32
            opened = [a["session"] for a in answers]
            assert len(set(opened)) == 300
            checked = data(await victim.call_tool("check_citations", {"ids": [cited], "session": mine}))
            assert checked["all_valid"], checked
            first = await attacker.call_tool("check_citations", {"ids": [cited], "session": opened[0]})
            assert first.is_error
            assert "opened more than 32 sessions (the server keeps at most 32 per client" in text(first)
            last = data(await attacker.call_tool("check_citations", {"ids": [cited], "session": opened[-1]}))
            assert last["checks"][0]["reason"] == "not_fetched"  # its newest sessions live on, empty


async def test_dns_rebinding_is_refused(server: HttpServer) -> None:
    """A request whose Host is not loopback is refused (the SDK's protection for 127.0.0.1)."""
    async with httpx.AsyncClient(timeout=30) as http:
        response = await http.post(
            server.url, headers={"Host": "evil.example", "Content-Type": "application/json",
                                 "Accept": "application/json, text/event-stream"},
            content=b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        )
    assert response.status_code in (403, 421)


QUERIES = [
    "Note G Bernoulli numbers",
    "Analytical Engine punched cards",
    "Babbage born London",
    "Menabrea paper Turin",
    "Jacquard loom Lyon",
]


async def test_twenty_concurrent_clients(server: HttpServer) -> None:
    """20 clients at once, mixed calls; every answer equals the one a lone client gets."""
    expected: dict[str, list[str]] = {}
    with anyio.fail_after(300):
        async with Client(server.url) as solo:
            for q in QUERIES:
                expected[q] = [h["id"] for h in data(await solo.call_tool("search_evidence", {"query": q, "limit": 5}))["hits"]]
            nav_from = expected[QUERIES[0]][0]
            expected_nav = [i["id"] for i in data(await solo.call_tool("navigate", {"id": nav_from, "to": "siblings"}))["items"]]
            expected_entities = [
                e["id"] for e in data(await solo.call_tool("find_entities", {"query": "Ada Lovelace", "limit": 3}))["entities"]
            ]

    failures: list[str] = []
    sessions: dict[int, tuple[str, str]] = {}

    async def one(n: int) -> None:
        rng = random.Random(n)
        query = QUERIES[n % len(QUERIES)]
        async with Client(server.url) as client:
            hits = [h["id"] for h in data(await client.call_tool("search_evidence", {"query": query, "limit": 5}))["hits"]]
            if hits != expected[query]:
                failures.append(f"client {n}: search {query!r} gave {hits}")
            mine = hits[n % len(hits)]
            fetched = data(await client.call_tool("fetch_evidence", {"ids": [mine]}))
            sessions[n] = (fetched["session"], mine)
            calls: list[tuple[str, dict[str, Any]]] = [
                ("navigate", {"id": nav_from, "to": "siblings"}),
                ("find_entities", {"query": "Ada Lovelace", "limit": 3}),
                ("search_evidence", {"query": "", "limit": 5}),  # a bad call among good ones
            ]
            rng.shuffle(calls)
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                if name == "navigate" and [i["id"] for i in data(result)["items"]] != expected_nav:
                    failures.append(f"client {n}: navigate differs")
                if name == "find_entities" and [e["id"] for e in data(result)["entities"]] != expected_entities:
                    failures.append(f"client {n}: find_entities differs")
                if name == "search_evidence" and not result.is_error:
                    failures.append(f"client {n}: an empty query was accepted")
            handle = fetched["session"]
            checked = data(await client.call_tool("check_citations", {"ids": [mine], "session": handle}))
            if not checked["all_valid"]:
                failures.append(f"client {n}: its own fetch is not valid: {checked}")

    with anyio.fail_after(600):
        async with anyio.create_task_group() as tg:
            for n in range(20):
                tg.start_soon(one, n)
    assert not failures, failures
    assert len({h for h, _ in sessions.values()}) == 20
    # no client sees another's fetches: client 0's handle does not validate an id only client 1 fetched
    async with Client(server.url) as client:
        (h0, id0), (_, id1) = sessions[0], sessions[1]
        if id0 != id1:
            check = data(await client.call_tool("check_citations", {"ids": [id1], "session": h0}))
            assert check["checks"][0]["reason"] == "not_fetched"
