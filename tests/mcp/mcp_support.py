"""Helpers of the MCP tests: the server command, an HTTP server subprocess, result access."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.types import CallToolResult

#: The documents the test servers may read (analytical-engine has a revised version).
SCOPE = ("ada-lovelace", "charles-babbage", "luigi-menabrea", "analytical-engine", "jacquard-loom")
#: A document of the workshop corpus outside SCOPE.
OUTSIDE = "lord-byron"

#: Every tool the server must serve.
TOOLS = {
    "search_evidence", "fetch_evidence", "navigate", "find_entities", "explore",
    "check_citations", "render_citations", "search", "list_documents", "open_session",
}

STARTUP_SECONDS = 600  # loading the model on a busy 2-core machine can take minutes


def server_env() -> dict[str, str]:
    """The environment of a server subprocess: offline, no telemetry."""
    env = dict(os.environ)
    env.update({
        "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False",
        "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1",
    })
    return env


def server_args(index: Path, *extra: str, scope: Sequence[str] = SCOPE) -> list[str]:
    """``python -m agrag_lab.cli mcp --index INDEX --scope-documents SCOPE... EXTRA...`` (no scope: everything)."""
    scoped = ["--scope-documents", *scope] if scope else []
    return ["-m", "agrag_lab.cli", "mcp", "--index", str(index), *scoped, *extra]


@dataclass
class HttpServer:
    """A running ``agrag-lab mcp --transport http`` subprocess."""

    process: subprocess.Popen[bytes]
    url: str
    stderr_path: Path
    stdout_path: Path

    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def stdout(self) -> str:
        return self.stdout_path.read_text(encoding="utf-8", errors="replace")


@contextmanager
def http_server(
    index: Path, folder: Path, extra: Sequence[str] = (), scope: Sequence[str] = SCOPE
) -> Iterator[HttpServer]:
    """Start the HTTP server on a free 127.0.0.1 port (``--port 0``); stop it afterwards (``extra``: more options,
    ``scope``: the readable documents, none for everything)."""
    err, out = folder / "server.stderr", folder / "server.stdout"
    with err.open("wb") as e, out.open("wb") as o:
        process = subprocess.Popen(
            [sys.executable, *server_args(index, "--transport", "http", "--port", "0", "--workers", "2", *extra,
                                          scope=scope)],
            stdout=o, stderr=e, stdin=subprocess.DEVNULL, env=server_env(),
        )
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        url = None
        while url is None:
            text = err.read_text(encoding="utf-8", errors="replace")
            for line in text.splitlines():
                if "serving http://" in line:
                    url = line.split("serving ", 1)[1].strip()
            if url is None:
                if process.poll() is not None:
                    raise RuntimeError(f"the MCP server exited with {process.returncode}:\n{text}")
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the MCP server did not start in {STARTUP_SECONDS} s:\n{text}")
                time.sleep(0.5)
        yield HttpServer(process, url, err, out)
    finally:
        from agrag_lab.processes import stop_process

        stop_process(process)


def data(result: CallToolResult) -> dict[str, Any]:
    """The structured content of a successful tool result."""
    assert not result.is_error, text(result)
    assert result.structured_content is not None
    return dict(result.structured_content)


def text(result: CallToolResult) -> str:
    """The text of a tool result (an error message for a failed call)."""
    return "".join(getattr(c, "text", "") for c in result.content)
