"""A client we did not write: the official MCP Inspector CLI drives ``agrag-lab mcp`` over stdio.

Each call runs ``npx @modelcontextprotocol/inspector@INSPECTOR_VERSION --cli``,
which starts our stdio server as its child (the same command as
:func:`mcp_support.server_args`), speaks the protocol, prints one JSON object,
and stops the server. node and npm must be on the PATH; npm fetches the
pinned Inspector once and then serves it from its cache.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp_scenarios import Probe
from mcp_support import SCOPE, STARTUP_SECONDS, TOOLS, server_args, server_env

from agrag_lab import Graph
from agrag_lab.evidence import Scope

#: The Inspector release the test drives (pinned: its flags and output are the contract).
INSPECTOR_VERSION = "2.12.0"
#: The server's environment that the Inspector must pass on (it gives a stdio child a minimal one).
_PASSED = ("PYTHONPATH", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "ANONYMIZED_TELEMETRY",
           "TOKENIZERS_PARALLELISM", "OMP_NUM_THREADS", "HF_HOME", "SENTENCE_TRANSFORMERS_HOME",
           "AGRAG_LAB_STATE_DIR")


def _inspect(index: Path, folder: Path, *arguments: str) -> dict[str, Any]:
    """Run the Inspector CLI once against a fresh stdio server; the ``result`` it prints.

    The server is named in a session config file (``--config``), which is
    also where the Inspector takes the time to wait for an answer: loading
    the model on a busy machine can take longer than its 60 s default.
    """
    npx = shutil.which("npx")
    assert npx is not None, "the MCP Inspector test needs node and npm (npx) on the PATH"
    env = server_env()
    config = folder / "inspector.json"
    timeout_ms = STARTUP_SECONDS * 1000
    config.write_text(json.dumps({"mcpServers": {"agrag": {
        "command": sys.executable, "args": server_args(index),
        "env": {key: env[key] for key in _PASSED if key in env},
        "requestTimeout": timeout_ms, "connectionTimeout": timeout_ms,
    }}}), encoding="utf-8")
    command = [
        npx, "-y", f"@modelcontextprotocol/inspector@{INSPECTOR_VERSION}", "--cli",
        "--format", "json", "--config", str(config), "--server", "agrag", *arguments,
    ]
    inspector_env = {
        **os.environ, "MCP_INSPECTOR_SECRET_STORE": "memory", "MCP_CLIENT_CONFIG_PATH": str(folder / "client.json"),
    }
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=STARTUP_SECONDS + 300, env=inspector_env,
        cwd=Path(__file__).resolve().parents[2], stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"inspector exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    out: dict[str, Any] = json.loads(done.stdout)["result"]
    return out


def _structured(result: dict[str, Any]) -> dict[str, Any]:
    assert not result.get("isError"), result
    data = result.get("structuredContent")
    if data is None:
        data = json.loads(result["content"][0]["text"])
    assert isinstance(data, dict)
    return data


def _call(index: Path, folder: Path, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return _inspect(index, folder, "--method", "tools/call", "--tool-name", name, "--tool-args-json", json.dumps(arguments))


def test_inspector_lists_our_tools(workshop_path: Path, tmp_path: Path) -> None:
    """--strict: the Inspector also checks every tool schema for portability problems (exit 6)."""
    listed = _inspect(workshop_path, tmp_path, "--method", "tools/list", "--strict")
    tools = {t["name"]: t for t in listed["tools"]}
    assert set(tools) == TOOLS
    assert tools["list_documents"]["inputSchema"]["properties"]["limit"]["maximum"] == 500
    assert tools["fetch_evidence"]["annotations"]["readOnlyHint"] is False
    assert all(t["outputSchema"]["type"] == "object" for t in tools.values())


def test_inspector_calls_list_documents_discover_and_a_refused_fetch(
    workshop_path: Path, probe: Probe, tmp_path: Path
) -> None:
    documents = _structured(_call(workshop_path, tmp_path, "list_documents", {}))
    assert sorted(d["id"] for d in documents["documents"]) == sorted(SCOPE)
    assert all(d["chunks"] > 0 and len(d["version"]) >= 8 for d in documents["documents"])

    found = _structured(_call(workshop_path, tmp_path, "search_evidence", {"query": "Lord Byron poet", "mode": "keyword"}))
    assert found["hits"] and all(h["id"].split("@")[0] in SCOPE for h in found["hits"])

    # a real id of a document outside the scope reads exactly like one that does not exist
    fetched = _structured(_call(workshop_path, tmp_path, "fetch_evidence", {"ids": [probe.outside, probe.missing]}))
    outside, missing = fetched["items"]
    assert not outside["ok"] and outside["reason"] == missing["reason"] == "unknown"
    assert outside["message"].replace(probe.outside, "<ID>") == missing["message"].replace(probe.missing, "<ID>")
    assert fetched["session"].startswith("es-")


def test_a_session_outlives_the_server_process_three_inspector_calls_check_a_citation(
    workshop_path: Path, workshop_graph: Graph, tmp_path: Path
) -> None:
    """The Inspector starts a new stdio server per call: the handle of the first is resumed by the next two."""
    opened = _structured(_call(workshop_path, tmp_path, "open_session", {}))
    handle = opened["session"]
    assert handle.startswith("es-")
    in_scope = workshop_graph.evidence(Scope(document_ids=frozenset(SCOPE)))
    cited = in_scope.discover("Lord Byron poet", mode="keyword", limit=1).hits[0].id
    fetched = _structured(_call(workshop_path, tmp_path, "fetch_evidence", {"ids": [cited], "session": handle}))
    assert fetched["session"] == handle and fetched["items"][0]["ok"]
    answer = f"Byron was a poet [{cited}]."
    checked = _structured(_call(workshop_path, tmp_path, "check_citations", {"answer": answer, "session": handle}))
    assert checked["session"] == handle
    assert checked["all_valid"] is True, checked
    assert [(c["id"], c["reason"]) for c in checked["checks"]] == [(cited, "fetched")]
