"""A real ``chroma run`` server for the tests that put vectors on one (started, waited for, stopped)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agrag_lab.errors import VectorStoreError
from agrag_lab.storage.vectors import ChromaVectorStore

#: Seconds a server may take to answer: `chroma run` imports for tens of seconds on a busy 2-core machine.
START_SECONDS = 180


def free_port() -> int:
    """A port nothing listens on at 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def chroma_command() -> str:
    """The ``chroma`` command of this interpreter's environment (else the one on PATH)."""
    exe = Path(sys.executable).parent / "chroma"
    return str(exe) if exe.exists() else (shutil.which("chroma") or "chroma")


@contextmanager
def chroma_server(folder: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """A ``chroma run`` server keeping its data in ``folder``, on a free 127.0.0.1 port, killed on exit."""
    port = free_port()
    proc = subprocess.Popen(
        [chroma_command(), "run", "--host", "127.0.0.1", "--port", str(port), "--path", str(folder)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + START_SECONDS
    while time.time() < deadline:
        try:
            ChromaVectorStore.http("127.0.0.1", port)
            break
        except VectorStoreError:
            time.sleep(0.3)
    else:
        proc.kill()
        pytest.fail(f"chroma run did not start within {START_SECONDS} s")
    try:
        yield proc, port
    finally:
        proc.kill()
        proc.wait()
