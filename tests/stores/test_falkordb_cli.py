"""``--falkordb`` on the command line: sync pushes only what differs, search reads the server, errors say what to do."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agrag_lab import Document, Graph
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore


def _agrag(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}
    return subprocess.run([sys.executable, "-m", "agrag_lab.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=900, env=env, stdin=subprocess.DEVNULL)


def test_sync_search_and_a_folder_that_records_its_server(
    falkordb_server: tuple[str, int], tmp_path: Path, embedder: SentenceTransformerEmbedder,
    small_docs: list[Document], caplog: pytest.LogCaptureFixture,
) -> None:
    host, port = falkordb_server
    address = f"{host}:{port}/cli"
    index = tmp_path / "ix"
    with Graph.open(index, embedder=embedder) as graph:
        graph.ingest(small_docs)
    FalkorDBGraphStore.connect(host, port, graph="cli").clear()

    first = _agrag("sync", "--index", index, "--falkordb", address)
    assert first.returncode == 0, first.stderr
    assert f"the FalkorDB graph {address} holds the index's graph" in first.stdout
    again = _agrag("sync", "--index", index, "--falkordb", address)
    assert again.returncode == 0 and "written {}" in again.stdout and "removed {}" in again.stdout  # nothing differs

    local = _agrag("search", "loom in Lyon", "--index", index, "--recipe", "GRAPH_EXPAND")
    served = _agrag("search", "loom in Lyon", "--index", index, "--recipe", "GRAPH_EXPAND", "--falkordb", address)
    assert served.returncode == 0, served.stderr
    untimed = [re.sub(r"\(\d+ ms\)", "", done.stdout) for done in (served, local)]  # the header line's run time
    assert untimed[0] == untimed[1] and served.stdout.strip()

    doctor = _agrag("doctor", "--index", index, "--falkordb", address)
    assert f"graph server: {address} holds the index's current graph" in doctor.stdout

    with caplog.at_level(logging.WARNING), Graph.open(index, embedder=embedder, read_only=True):
        pass
    assert f"its graph also lives in the FalkorDB server {address}" in caplog.text


def test_a_down_server_and_a_bad_address_are_explained(tmp_path: Path) -> None:
    from agrag_lab.graph_stores.falkordb.server import free_port

    port = free_port()
    down = _agrag("search", "x", "--index", tmp_path, "--falkordb", f"127.0.0.1:{port}")
    assert down.returncode == 2 and "Traceback" not in down.stderr
    assert f"no FalkorDB server answers at 127.0.0.1:{port}" in down.stderr
    assert f"python -m agrag_lab.graph_stores.falkordb.server --port {port}" in down.stderr
    bad = _agrag("sync", "--index", tmp_path, "--falkordb", "localhost")
    assert bad.returncode == 2 and "HOST:PORT" in bad.stderr
