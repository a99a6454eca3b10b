"""How long ``agrag-lab mcp`` over stdio takes to answer a client (issue 19).

A client (the MCP Inspector, Claude Desktop, an IDE) spawns the server and
gives up when ``initialize`` is not answered within its connect timeout (the
Inspector CLI's default is 15 s). Measured here, per run, from spawn:

* ``initialize`` answered (what the connect timeout waits for);
* the first ``tools/call`` (``list_documents``) answered, sent right after
  ``initialize``: the index, the model and the graph must be loaded by then;
* the plain baseline, in the same run: a bare SDK ``MCPServer`` with one tool
  (``python -c``), spawned and asked the same two things; the floor set by
  Python and the ``mcp`` SDK.

The client speaks the protocol itself over the pipes (one JSON-RPC message a
line), so nothing but the server is timed. ``--tree`` runs the server from
another checkout (``PYTHONPATH``), e.g. main before a change.

Run: ``python -m benchmarks.mcp_startup --index PATH [--repeat 3] [--tree DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

TITLE = "MCP stdio start-up (issue 19)"
REPEATS = 3

BARE_SERVER = """
from mcp.server.mcpserver import MCPServer
server = MCPServer("bare")
@server.tool()
def list_documents() -> str:
    return "none"
server.run()
"""

_INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
}
_INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
_CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_documents", "arguments": {}}}


def _env(tree: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False",
                "TOKENIZERS_PARALLELISM": "false"})
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    return env


def _answer(process: subprocess.Popen[bytes], wanted: int) -> dict[str, Any]:
    assert process.stdout is not None
    while True:
        line = process.stdout.readline()
        if not line:
            raise RuntimeError(f"the server closed stdout (exit {process.wait()})")
        message: dict[str, Any] = json.loads(line)
        if message.get("id") == wanted:
            return message


def _send(process: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write((json.dumps(message) + "\n").encode())
    process.stdin.flush()


def time_server(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds from spawn to ``initialize`` answered, and to the first tool call answered."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, env=env)
    try:
        _send(process, _INITIALIZE)
        _answer(process, 1)
        initialized = time.perf_counter() - started
        _send(process, _INITIALIZED)
        _send(process, _CALL)
        answer = _answer(process, 2)
        called = time.perf_counter() - started
        if answer.get("error") or answer.get("result", {}).get("isError"):
            raise RuntimeError(f"list_documents failed: {answer}")
    finally:
        if process.stdin is not None:
            process.stdin.close()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return initialized, called


def bench(index: Path, *, repeat: int = REPEATS, tree: Path | None = None) -> dict[str, Any]:
    """Median seconds of ``agrag-lab mcp`` and of the bare SDK server, and their ratios."""
    env = _env(tree)
    ours = [sys.executable, "-m", "agrag_lab.cli", "mcp", "--index", str(index)]
    bare = [sys.executable, "-c", BARE_SERVER]
    runs: dict[str, list[tuple[float, float]]] = {"agrag-lab mcp": [], "bare MCPServer": []}
    for _ in range(repeat):  # interleaved, so both see the same load
        runs["agrag-lab mcp"].append(time_server(ours, env))
        runs["bare MCPServer"].append(time_server(bare, env))
    out: dict[str, Any] = {"repeat": repeat, "tree": str(tree) if tree else "this checkout"}
    for name, samples in runs.items():
        out[name] = {
            "initialize_s": round(statistics.median(s[0] for s in samples), 2),
            "first_call_s": round(statistics.median(s[1] for s in samples), 2),
        }
    ours_m, bare_m = out["agrag-lab mcp"], out["bare MCPServer"]
    out["initialize_over_bare"] = round(ours_m["initialize_s"] / bare_m["initialize_s"], 2)
    out["first_call_over_bare"] = round(ours_m["first_call_s"] / bare_m["first_call_s"], 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=REPEATS)
    parser.add_argument("--tree", type=Path, default=None, help="run the server from this checkout")
    args = parser.parse_args()
    print(json.dumps(bench(args.index, repeat=args.repeat, tree=args.tree), indent=2))


if __name__ == "__main__":
    main()
