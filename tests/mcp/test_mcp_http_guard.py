"""The HTTP server only its owner can reach (issue 31, findings 5, 6 and 8).

The real EvidenceServer over the session's workshop index, served by uvicorn in
this process on 127.0.0.2 (a loopback address that is not the SDK's default, the
one finding 5 was probed on) at a free port, driven by raw HTTP requests.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from agrag_lab import Graph
from agrag_lab.errors import ServiceError
from agrag_lab.evidence import Scope
from agrag_lab.mcp import EvidenceServer
from agrag_lab.mcp.cli import _token
from agrag_lab.mcp.http_guard import allowed_hosts, invalid_request

pytestmark = pytest.mark.anyio

HOST = "127.0.0.2"
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
LEGACY = "2025-11-25"


def initialize(request_id: int = 1, version: str = LEGACY) -> bytes:
    return json.dumps({
        "jsonrpc": "2.0", "id": request_id, "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}},
    }).encode()


@asynccontextmanager
async def serving(graph: Graph, **options: Any) -> AsyncIterator[tuple[str, EvidenceServer]]:
    per_client = options.pop("sessions_per_client", 32)
    total = options.pop("max_sessions", 256)
    server = EvidenceServer(graph, Scope(document_ids=frozenset({"ada-lovelace"})), transport="http",
                            sessions_per_client=per_client, max_sessions=total)
    urls: list[str] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(lambda: server.serve_http(HOST, 0, ready=urls.append, **options))
        with anyio.fail_after(60):
            while not urls:
                await anyio.sleep(0.05)
        try:
            yield urls[0], server
        finally:
            tg.cancel_scope.cancel()


async def test_host_and_origin_are_checked_on_a_host_that_is_not_the_default(workshop_graph: Graph) -> None:
    async with serving(workshop_graph) as (url, _), httpx.AsyncClient(timeout=30) as http:
        port = url.split(":")[2].split("/")[0]
        evil_host = await http.post(url, headers={**HEADERS, "Host": "evil.com"}, content=initialize())
        assert evil_host.status_code == 421
        evil_origin = await http.post(url, headers={**HEADERS, "Origin": "http://evil.com"}, content=initialize())
        assert evil_origin.status_code == 403
        own = await http.post(url, headers={**HEADERS, "Origin": f"http://{HOST}:{port}"}, content=initialize())
        assert own.status_code == 200, own.text
    assert allowed_hosts("10.1.2.3", ["proxy.example"]) == [
        "10.1.2.3", "10.1.2.3:*", "proxy.example", "proxy.example:*"
    ]


async def test_an_allowed_origin_is_accepted(workshop_graph: Graph) -> None:
    async with serving(workshop_graph, allowed_origins=["https://app.example"]) as (url, _), \
            httpx.AsyncClient(timeout=30) as http:
        ok = await http.post(url, headers={**HEADERS, "Origin": "https://app.example"}, content=initialize())
        assert ok.status_code == 200, ok.text


async def test_a_bearer_token_is_required_when_set(workshop_graph: Graph) -> None:
    async with serving(workshop_graph, token="s3cret-token") as (url, _), httpx.AsyncClient(timeout=30) as http:
        missing = await http.post(url, headers=HEADERS, content=initialize())
        assert missing.status_code == 401 and "bearer token is required" in missing.text
        assert missing.headers["www-authenticate"].startswith("Bearer")
        wrong = await http.post(url, headers={**HEADERS, "Authorization": "Bearer nope"}, content=initialize())
        assert wrong.status_code == 401
        right = await http.post(url, headers={**HEADERS, "Authorization": "Bearer s3cret-token"}, content=initialize())
        assert right.status_code == 200, right.text


def _args(host: str, token_file: Path | None = None) -> argparse.Namespace:
    return argparse.Namespace(host=host, token_file=token_file)


def test_a_host_that_is_not_loopback_always_gets_a_token(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    generated = _token(_args("0.0.0.0"))
    assert generated and len(generated) >= 32
    assert f"'Authorization: Bearer {generated}'" in capsys.readouterr().err
    assert _token(_args("127.0.0.1")) is None  # loopback: optional
    path = tmp_path / "token"
    path.write_text("mine\n", encoding="utf-8")
    path.chmod(0o640)
    with pytest.raises(ServiceError, match="chmod 600"):
        _token(_args("0.0.0.0", path))
    path.chmod(0o600)
    assert _token(_args("0.0.0.0", path)) == _token(_args("127.0.0.1", path)) == "mine"


INVALID = [
    ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}, None),
    ({"jsonrpc": "2.0", "id": [1], "method": "ping"}, None),
    ({"jsonrpc": "2.0", "id": True, "method": "ping"}, None),
    ({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, None),
    ({"jsonrpc": "1.0", "id": 3, "method": "ping"}, 3),
    ({"id": 4, "method": "ping"}, 4),
    ({"jsonrpc": "2.0", "id": 5, "method": 7}, 5),
    ({"jsonrpc": "2.0", "id": 6, "method": "tools/list", "params": [1, 2]}, 6),
    ({"jsonrpc": "2.0", "id": 7}, 7),
    ({"jsonrpc": "2.0"}, None),
    ([], None),
    ([{"jsonrpc": "2.0", "id": 8, "method": "ping"}], None),
    ("ping", None),
    (42, None),
]


async def test_invalid_requests_get_invalid_request(workshop_graph: Graph) -> None:
    async with serving(workshop_graph) as (url, _), httpx.AsyncClient(timeout=30) as http:
        for body, answered_id in INVALID:
            response = await http.post(url, headers=HEADERS, content=json.dumps(body).encode())
            assert response.status_code == 400, (body, response.status_code, response.text)
            answer = response.json()
            assert answer["error"]["code"] == -32600, (body, answer)
            assert answer["id"] == answered_id, (body, answer)
            assert "Invalid Request" in answer["error"]["message"]
        not_json = await http.post(url, headers=HEADERS, content=b"{not json")
        assert not_json.json()["error"]["code"] == -32700  # the SDK's parse error
    assert invalid_request({"jsonrpc": "2.0", "id": "x", "result": {}}) is None


async def test_an_initialize_flood_does_not_lock_out_new_clients(workshop_graph: Graph) -> None:
    """Finding 6: initialize without DELETE, over and over, from one address; another client still gets in."""
    flood_transport = httpx.AsyncHTTPTransport(local_address="127.0.0.3")
    async with serving(workshop_graph, sessions_per_client=4, max_sessions=8) as (url, server), \
            httpx.AsyncClient(timeout=30, transport=flood_transport) as flooder, \
            httpx.AsyncClient(timeout=30) as newcomer:
        manager = server.mcp.session_manager
        first = await newcomer.post(url, headers=HEADERS, content=initialize())
        assert first.status_code == 200, first.text
        kept = first.headers["mcp-session-id"]
        ready = await newcomer.post(url, headers={**HEADERS, "mcp-session-id": kept, "mcp-protocol-version": LEGACY},
                                    content=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        assert ready.status_code == 202, ready.text  # what every client sends next: the session is in use
        for n in range(60):
            answer = await flooder.post(url, headers=HEADERS, content=initialize(n))
            assert answer.status_code == 200, (n, answer.status_code, answer.text)
        live = manager._server_instances
        assert len(live) <= 8 and kept in live  # the flood evicted only the flooder's own sessions
        late = await newcomer.post(url, headers=HEADERS, content=initialize(99))
        assert late.status_code == 200, late.text
        assert len(manager._server_instances) <= 8


async def test_sessions_are_bounded_per_client_secret_not_per_address(workshop_graph: Graph) -> None:
    """Issue 42, finding 3: every local client is 127.0.0.1, so the address tells no one apart. A client that
    sends a secret of its own is bounded by it; a flood without one ends only unused sessions."""
    async with serving(workshop_graph, sessions_per_client=2, max_sessions=6) as (url, server), \
            httpx.AsyncClient(timeout=30) as http:
        live = server.mcp.session_manager._server_instances

        async def open_session(n: int, secret: str | None = None, use: bool = True) -> str:
            headers = {**HEADERS, **({"x-agrag-client-secret": secret} if secret else {})}
            answer = await http.post(url, headers=headers, content=initialize(n))
            assert answer.status_code == 200, answer.text
            sid = answer.headers["mcp-session-id"]
            if use:  # what every client sends next
                ready = await http.post(url, headers={**HEADERS, "mcp-session-id": sid, "mcp-protocol-version": LEGACY},
                                        content=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                assert ready.status_code == 202, ready.text
            return sid

        a1, a2 = await open_session(1, "secret-a"), await open_session(2, "secret-a")
        b1 = await open_session(3, "secret-b")
        a3 = await open_session(4, "secret-a")  # past its own bound of 2: its least recently used ends
        assert a1 not in live and {a2, a3, b1} <= set(live)
        neighbour = await open_session(5)  # no secret: a client of its own
        for n in range(40):  # a flood of unused sessions, from the same address as everyone
            answer = await http.post(url, headers=HEADERS, content=initialize(100 + n))
            assert answer.status_code == 200, answer.text
        assert {a2, a3, b1, neighbour} <= set(live) and len(live) <= 6
        for n in range(2):  # the flood's two unused sessions give way to clients that use theirs
            await open_session(200 + n)
        assert {a2, a3, b1, neighbour} <= set(live) and len(live) <= 6
        full = await http.post(url, headers=HEADERS, content=initialize(300))  # all six in use: told to retry
        assert full.status_code == 503 and "retry-after" in full.headers, full.text
        assert {a2, a3, b1, neighbour} <= set(live)
