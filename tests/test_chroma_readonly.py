"""A Chroma folder this process cannot write: one clear error, not Chroma's "attempt to write a readonly database".

Chroma's client commits to its SQLite file as it starts, even to read (there is
no read-only client: chroma-core/chroma#1438), so a read-only open of an index
whose ``chroma/`` folder belongs to another user failed with SQLite's code 8 and
a hint to repair the folder, which would not help (the lab start failure seen
once, issue 31). The test opens a folder it may read but not write, as another
user (``nobody``, through ``setpriv``) when it runs as root, else after ``chmod``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from agrag_lab.storage.vectors import ChromaVectorStore

OPEN = """
import sys
from agrag_lab.storage.vectors import ChromaVectorStore
try:
    ChromaVectorStore.local(sys.argv[1])
except Exception as exc:
    print(type(exc).__name__, exc)
else:
    print("opened")
"""


@pytest.fixture
def readable_only() -> Iterator[Path]:
    """A Chroma folder with one record that others may read but not write (under /tmp, which all may enter)."""
    root = Path(tempfile.mkdtemp(prefix="agrag-chroma-ro-"))
    folder = root / "chroma"
    store = ChromaVectorStore.local(str(folder))
    store.upsert("chunks", ["d@0123456789ab#c0"], np.ones((1, 4), dtype=np.float32), ["t"], [{"fp": "x"}])
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    yield folder
    shutil.rmtree(root, ignore_errors=True)


def _open_elsewhere(folder: Path) -> str:
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False", "HOME": str(folder.parent)}
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        assert setpriv is not None, "running as root, the test needs setpriv (util-linux) to open as another user"
        command = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c", OPEN, str(folder)]
    else:
        for path in [folder, *folder.rglob("*")]:
            path.chmod(0o555 if path.is_dir() else 0o444)
        command = [sys.executable, "-c", OPEN, str(folder)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600, check=False)
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip()[-500:]


def test_a_chroma_folder_this_process_cannot_write_is_one_clear_error(readable_only: Path) -> None:
    said = _open_elsewhere(readable_only)
    assert said.startswith("VectorStoreError"), said
    assert "attempt to write a readonly database" in said  # Chroma's own words, kept as the cause
    assert "Chroma writes to its own SQLite file even to read" in said and "write access" in said
    assert "repair" not in said  # rebuilding the folder would not help
