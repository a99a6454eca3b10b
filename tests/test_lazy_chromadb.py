"""chromadb imported on a thread while a command starts (issue 30), and without jsonschema's IRI checker."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

RACE = """
import sys, tempfile, time
from agrag_lab.storage.vectors import ChromaVectorStore, prefetch_chromadb
thread = prefetch_chromadb()
time.sleep(float(sys.argv[1]))  # the thread is mid-import (or done)
store = ChromaVectorStore.local(tempfile.mkdtemp())
store.upsert("chunks", ["a"], [[1.0, 0.0]], ["t"], [{"fp": "x"}])
print(store.query("chunks", [1.0, 0.0], 1), "rfc3987_syntax" in sys.modules, thread.name)
"""


@pytest.mark.parametrize("wait", [0.0, 0.4])
def test_a_store_opened_while_chromadb_imports_on_a_thread_waits_for_it(wait: float, tmp_path: Path) -> None:
    """The first use of Chroma waits for the thread's import; it never gets a half-imported module."""
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", RACE, str(wait)], capture_output=True, text=True, env=env,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    # the record is found; jsonschema's IRI checker was never imported, and nothing marks it missing afterwards
    assert done.stdout.strip() == "[('a', 1.0)] False import-chromadb"
