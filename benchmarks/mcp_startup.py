"""How long ``agrag-lab mcp`` over stdio takes to answer a client (issue 19).

A client (the MCP Inspector, Claude Desktop, an IDE) spawns the server and
gives up when ``initialize`` is not answered within its connect timeout (the
Inspector CLI's default is 15 s). Measured here, per run, from spawn:

* ``initialize`` answered (what the connect timeout waits for);
* ``tools/list`` answered, sent right after ``initialize`` (issue 30: <= 2 s on an idle machine);
* the first ``tools/call`` (``list_documents``) answered, sent right after
  ``tools/list``: the index, the model and the graph must be loaded by then (issue 30: <= 5 s);
* the plain baseline, in the same run: a bare SDK ``MCPServer`` with one tool
  (``python -c``), spawned and asked the same three things; the floor set by
  Python and the ``mcp`` SDK.

The client speaks the protocol itself over the pipes (one JSON-RPC message a
line), so nothing but the server is timed. ``--before DIR`` also times the
server of another checkout (``PYTHONPATH``), e.g. main before a change,
interleaved with the others.

Run: ``python -m benchmarks.mcp_startup --index PATH [--repeat 3] [--before DIR]``;
``benchmarks/run.py`` calls :func:`bench` with the workshop index.
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
from typing import TYPE_CHECKING, Any

from benchmarks import compile_package

if TYPE_CHECKING:
    from agrag_lab import Graph

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
_LIST = {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}
_CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_documents", "arguments": {}}}


def _env(tree: Path | None) -> dict[str, str]:
    """The servers' environment: offline, no telemetry, agrag_lab imported from ``tree``."""
    env = dict(os.environ)
    env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False",
                "TOKENIZERS_PARALLELISM": "false"})
    env.pop("PYTHONPATH", None)
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


def time_server(command: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Seconds from spawn to ``initialize`` answered, to ``tools/list`` answered, and to the first tool call answered.

    The server runs in the folder its ``PYTHONPATH`` names (``python -m`` puts
    the working folder first on ``sys.path``).
    """
    started = time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, env=env, cwd=env.get("PYTHONPATH"))
    try:
        _send(process, _INITIALIZE)
        _answer(process, 1)
        initialized = time.perf_counter() - started
        _send(process, _INITIALIZED)
        _send(process, _LIST)
        _answer(process, 3)
        listed = time.perf_counter() - started
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
    return initialized, listed, called


def measure(index: Path, *, repeat: int = REPEATS, before: Path | None = None) -> dict[str, Any]:
    """Median seconds of ``agrag-lab mcp`` (this checkout, and ``before`` if given) and of the bare SDK server.

    The servers are spawned in turn within each repeat, so all see the same load.
    """
    compile_package()  # bytecode, as `make` leaves it (PYTHONDONTWRITEBYTECODE is set on our machines)
    if before is not None:
        compile_package(before)
    ours = [sys.executable, "-m", "agrag_lab.cli", "mcp", "--index", str(index.resolve())]
    commands: dict[str, tuple[list[str], dict[str, str]]] = {
        "agrag-lab mcp": (ours, _env(Path(__file__).resolve().parents[1])),
        "bare MCPServer": ([sys.executable, "-c", BARE_SERVER], _env(None)),
    }
    if before is not None:
        commands["agrag-lab mcp before"] = (ours, _env(before))
    runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, (command, env) in commands.items():
            runs[name].append(time_server(command, env))
    out: dict[str, Any] = {"repeat": repeat, "before": str(before) if before else None}
    for name, samples in runs.items():
        out[name] = {
            "initialize_s": round(statistics.median(s[0] for s in samples), 2),
            "tools_list_s": round(statistics.median(s[1] for s in samples), 2),
            "first_call_s": round(statistics.median(s[2] for s in samples), 2),
        }
    bare = out["bare MCPServer"]
    for name in runs:
        if name != "bare MCPServer":
            out[name]["initialize_over_bare"] = round(out[name]["initialize_s"] / bare["initialize_s"], 2)
            out[name]["tools_list_over_bare"] = round(out[name]["tools_list_s"] / bare["tools_list_s"], 2)
            out[name]["first_call_over_bare"] = round(out[name]["first_call_s"] / bare["first_call_s"], 2)
    return out


def bench(graph: Graph) -> list[str]:
    """The section of ``make bench`` (``benchmarks/run.py``), over the workshop index."""
    m = measure(graph.path)
    ours, bare = m["agrag-lab mcp"], m["bare MCPServer"]
    return [
        f"Spawn to answer over stdio, median of {m['repeat']} spawns each, interleaved; the client speaks "
        "JSON-RPC over the pipes itself. The baseline is a bare SDK `MCPServer` with one tool (`python -c`). "
        "A client's connect timeout waits for `initialize` (MCP Inspector CLI: 15 s unless `--connect-timeout`).",
        "",
        "| measure | agrag-lab mcp | bare MCPServer | ratio |",
        "|---|---|---|---|",
        f"| `initialize` answered | {ours['initialize_s']:.2f} s | {bare['initialize_s']:.2f} s "
        f"| **{ours['initialize_over_bare']:.2f}** |",
        f"| `tools/list` answered (issue 30 target <= 2 s idle) | {ours['tools_list_s']:.2f} s "
        f"| {bare['tools_list_s']:.2f} s | {ours['tools_list_over_bare']:.2f} |",
        f"| first `tools/call` (`list_documents`) answered (issue 30 target <= 5 s idle) | {ours['first_call_s']:.2f} s "
        f"| {bare['first_call_s']:.2f} s | {ours['first_call_over_bare']:.2f} |",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=REPEATS)
    parser.add_argument("--before", type=Path, default=None,
                        help="also time the server of this checkout (e.g. main before a change), in the same run")
    args = parser.parse_args()
    print(json.dumps(measure(args.index, repeat=args.repeat, before=args.before), indent=2))


if __name__ == "__main__":
    main()
