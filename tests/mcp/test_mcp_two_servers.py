"""Two MCP server processes over one FalkorDB server (the graph) and one Chroma server (the vectors) answer alike."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_support import HttpServer, data, http_server

from agrag_lab import Graph
from agrag_lab.errors import VectorStoreError
from agrag_lab.graph_stores.falkordb.server import free_port
from agrag_lab.storage.vectors import ChromaVectorStore

pytestmark = pytest.mark.anyio
QUESTIONS = ("Who wrote the notes on the Analytical Engine?", "punched cards loom", "Menabrea Turin")


@pytest.fixture(scope="module")
def servers(
    served_workshop_graph: Graph, falkordb_server: tuple[str, int], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[HttpServer]]:
    folder = tmp_path_factory.mktemp("two-servers")
    index = folder / "index"
    shutil.copytree(served_workshop_graph.path, index)
    port = free_port()
    chroma = subprocess.Popen(
        [str(Path(sys.executable).parent / "chroma"), "run", "--host", "127.0.0.1", "--port", str(port),
         "--path", str(folder / "chroma-server")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 600  # chroma run starts in about 2 minutes on a loaded machine
        while True:
            try:
                ChromaVectorStore.http("127.0.0.1", port)
                break
            except VectorStoreError:
                assert time.monotonic() < deadline, "chroma run did not start"
                time.sleep(0.3)
        synced = subprocess.run(
            [sys.executable, "-m", "agrag_lab.cli", "sync", "--index", str(index), "--chroma", f"127.0.0.1:{port}"],
            capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)
        assert synced.returncode == 0, synced.stderr
        host, fport = falkordb_server
        extra = ("--chroma", f"127.0.0.1:{port}", "--falkordb", f"{host}:{fport}/workshop")
        for i in (1, 2):
            (folder / f"s{i}").mkdir()
        with ExitStack() as stack:
            yield [stack.enter_context(http_server(index, folder / f"s{i}", extra)) for i in (1, 2)]
    finally:
        chroma.kill()
        chroma.wait()


def _answer(value: Any) -> Any:
    """A tool's answer without its session handle (each server mints its own) and timings."""
    if isinstance(value, dict):
        return {k: _answer(v) for k, v in value.items() if k not in ("session", "seconds", "spans", "elapsed_ms")}
    if isinstance(value, list):
        return [_answer(v) for v in value]
    return value


async def test_two_servers_give_the_same_answers(servers: list[HttpServer]) -> None:
    answers: list[list[Any]] = []
    with anyio.fail_after(600):
        for server in servers:
            got = []
            async with Client(server.url) as client:
                for question in QUESTIONS:
                    got.append(data(await client.call_tool("search_evidence", {"query": question, "limit": 5})))
                    got.append(data(await client.call_tool("search", {"query": question, "recipe": "GRAPH_EXPAND"})))
                got.append(data(await client.call_tool("find_entities", {"query": "Babbage"})))
                got.append(data(await client.call_tool("explore", {"entity": "Ada Lovelace"})))
            answers.append([_answer(a) for a in got])
    assert answers[0] == answers[1]
    assert any(a.get("hits") for a in answers[0])  # they answered, not only alike
