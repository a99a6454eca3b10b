"""A long-lived ``agrag-lab mcp --transport http`` process (issue 42, findings 2, 3 and the peer recipes).

* Another process ingests (the real ``agrag-lab ingest``): new and open
  sessions of the running server list the new document and find it by keyword,
  by vector and with a recipe, without a restart.
* A flood of ``initialize`` requests from 127.0.0.1, the address of every local
  client, does not end a neighbour's active session.
* The ``search`` tool takes every recipe name the CLI takes (the peer recipes too).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest
from ada_corpus import ADA_JACQUARD
from mcp import Client
from mcp_support import HttpServer, data, http_server, server_env, text

from agrag_lab import Graph, recipes
from agrag_lab.embedding import SentenceTransformerEmbedder

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
NEW_DOCUMENT = "# Herman Hollerith\n\nHerman Hollerith built the Zorblax tabulator for the 1890 census.\n"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Path:
    path = tmp_path_factory.mktemp("long-lived") / "ix"
    with Graph.open(path, embedder=embedder) as graph:
        graph.ingest(ADA_JACQUARD[:2])
    return path


@pytest.fixture(scope="module")
def server(index: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    with http_server(index, tmp_path_factory.mktemp("long-lived-server"), scope=()) as running:
        yield running


def _ingest(index: Path, folder: Path) -> None:
    (folder / "hollerith.md").write_text(NEW_DOCUMENT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "agrag_lab.cli", "ingest", str(folder / "hollerith.md"), "--index", str(index)],
        env={**server_env(), "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=900, check=False,
    )
    assert done.returncode == 0, done.stderr


def _documents(answer: dict[str, object]) -> list[str]:
    return [d["id"] for d in answer["documents"]]  # type: ignore[attr-defined, index]


async def test_a_running_server_sees_another_processes_ingest(server: HttpServer, index: Path, tmp_path: Path) -> None:
    with anyio.fail_after(1200):
        async with Client(server.url, mode="legacy") as before:
            listed = data(await before.call_tool("list_documents", {}))
            assert sorted(_documents(listed)) == ["babbage", "lovelace"]
            missing = data(await before.call_tool("search_evidence", {"query": "Zorblax tabulator", "mode": "keyword"}))
            assert missing["hits"] == []
            handle = data(await before.call_tool("open_session", {}))["session"]

            await anyio.to_thread.run_sync(_ingest, index, tmp_path)

            # the client connected before the ingest finds the new document, and the evidence session it
            # opened before reads it: its scope was resolved again
            found = data(await before.call_tool("search_evidence", {"query": "Zorblax tabulator", "mode": "keyword"}))
            assert [h["location"]["document_id"] for h in found["hits"]][:1] == ["hollerith"], found
            new_id = found["hits"][0]["id"]
            fetched = data(await before.call_tool("fetch_evidence", {"ids": [new_id], "session": handle}))
            assert "Zorblax" in json.dumps(fetched), fetched
            checked = data(await before.call_tool("check_citations", {"ids": [new_id], "session": handle}))
            assert checked["all_valid"], checked
            async with Client(server.url) as after:
                assert sorted(_documents(data(await after.call_tool("list_documents", {})))) == [
                    "babbage", "hollerith", "lovelace"]
                for mode in ("keyword", "vector", "hybrid"):
                    found = data(await after.call_tool("search_evidence", {"query": "Zorblax tabulator census",
                                                                           "mode": mode, "limit": 3}))
                    assert found["hits"][0]["location"]["document_id"] == "hollerith", (mode, found)
                ranked = data(await after.call_tool("search", {"query": "Zorblax tabulator", "recipe": "CHUNK"}))
                assert ranked["results"][0]["document_id"] == "hollerith", ranked
                fetched = data(await after.call_tool("fetch_evidence", {"ids": [found["hits"][0]["id"]]}))
                assert "Zorblax" in json.dumps(fetched)


def _initialize(request_id: int) -> bytes:
    return json.dumps({
        "jsonrpc": "2.0", "id": request_id, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "flood", "version": "1"}},
    }).encode()


async def test_an_initialize_flood_from_127_0_0_1_does_not_end_a_neighbours_session(server: HttpServer) -> None:
    """Finding 3: 10,000 initialize requests ended an earlier client's session (404). Bounded here: 600
    (more than twice the server's 256 sessions), all from 127.0.0.1 like the neighbour."""
    with anyio.fail_after(900):
        async with Client(server.url, mode="legacy") as neighbour:
            first = data(await neighbour.call_tool("search_evidence", {"query": "Note G", "limit": 1}))
            async with httpx.AsyncClient(timeout=60) as flooder:
                statuses: dict[int, int] = {}
                for n in range(600):
                    answer = await flooder.post(server.url, headers=HEADERS, content=_initialize(n))
                    statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
                    if n % 50 == 0:  # the neighbour keeps working during the flood
                        again = await neighbour.call_tool("search_evidence", {"query": "Note G", "limit": 1})
                        assert not again.is_error, text(again)
            assert statuses.get(200, 0) > 0 and not set(statuses) - {200, 503}, statuses
            after = data(await neighbour.call_tool("search_evidence", {"query": "Note G", "limit": 1}))
            assert after["hits"] == first["hits"]
        # a newcomer still gets in: the flood's unused sessions give way
        async with Client(server.url, mode="legacy") as newcomer:
            assert data(await newcomer.call_tool("list_documents", {}))["documents"]


async def test_the_search_tool_takes_every_recipe_name_the_cli_takes(server: HttpServer, index: Path) -> None:
    names = recipes.names()
    assert {"GRAPHRAG_LOCAL", "LIGHTRAG_MIX", "HIPPORAG2"} <= set(names)
    with anyio.fail_after(900):
        async with Client(server.url) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools["search"].input_schema["properties"]["recipe"]["enum"]) == set(names)
            for name in names:
                answer = await client.call_tool("search", {"query": "Who worked with Babbage?", "recipe": name.lower()})
                assert not answer.is_error, (name, text(answer))
                assert data(answer)["recipe"] == name
    cli = subprocess.run(
        [sys.executable, "-m", "agrag_lab.cli", "search", "Babbage", "--index", str(index), "--recipe", names[-1]],
        env={**server_env(), "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=600, check=False,
    )
    assert cli.returncode == 0, cli.stderr
