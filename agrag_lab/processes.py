"""Child processes and ports: the one way a server the project starts is given a port and stopped.

JupyterLab (``agrag-lab lab``), the browser and MCP test servers, and the benchmarks' Chroma and FalkorDB
servers all take a free port from :func:`free_port` and are stopped by :func:`stop_process`.
"""

from __future__ import annotations

import socket
import subprocess
from typing import Any

__all__ = ["free_port", "stop_process"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def stop_process(process: subprocess.Popen[Any], *, timeout: float = 30.0) -> None:
    """Stop a child process: ``terminate``, then ``kill`` if it has not exited within ``timeout`` seconds.

    The one way the lab, the browser and MCP test servers and the benchmarks' Chroma server are stopped.

    Examples
    --------
    >>> import sys
    >>> child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    >>> stop_process(child, timeout=5)
    >>> child.poll() is not None
    True
    """
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=timeout)
