"""A pre-flight of a local Chroma folder, in a child process: damaged files are an error, never a SIGSEGV.

Chroma's native library reads its HNSW files (``data_level0.bin``,
``header.bin``, ...) without checking them: a garbled file crashes the whole
process with a segmentation fault, no message, no traceback. So before an
index opens its ``chroma/`` folder, :func:`check_chroma_folder` lets a child
process open every collection, count it and run one query; if the child dies
by a signal or fails, the parent gets a :class:`VectorStoreError` that says
so and how to repair the folder, and stays alive.

Only *persisted* HNSW segments are read from disk (a folder with an
``index_metadata.pickle``: Chroma writes one once a collection passes its
``sync_threshold``, 1,000 records); smaller ones are rebuilt from Chroma's
own log at every open, so a folder without persisted segments needs no
check at all. A child costs a Python start and a Chroma import (seconds on a
loaded machine), so a verdict of "sound" is cached in ``chroma-check.json``
next to the folder, keyed by the size and modification time of every file
of the persisted segments: an unchanged folder is checked once. A writer
that has just used the folder records it as sound (:func:`record_sound`),
so the next open does not check it again.

Examples
--------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp()) / "chroma"
>>> check_chroma_folder(folder) is None   # no folder yet: nothing to check
True
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

__all__ = ["CHECK_FILE", "check_chroma_folder", "folder_signature", "persisted_segments", "record_sound"]

#: The cached verdict, next to the Chroma folder.
CHECK_FILE = "chroma-check.json"
#: Seconds the child may take (it loads every HNSW index once).
TIMEOUT = 600

_CHILD = """
import sys
import numpy as np
sys.modules["rfc3987_syntax"] = None  # jsonschema's IRI checker, most of chromadb's import (storage.vectors.import_chromadb)
import chromadb
from chromadb.config import Settings

client = chromadb.PersistentClient(path=sys.argv[1], settings=Settings(anonymized_telemetry=False, allow_reset=False))
for name in sorted(c if isinstance(c, str) else c.name for c in client.list_collections()):
    coll = client.get_collection(name)
    if coll.count():  # the calls a search makes: count, then a query that loads the HNSW index
        dimension = len(coll.get(limit=1, include=["embeddings"])["embeddings"][0])
        coll.query(query_embeddings=[np.full(dimension, 0.5, dtype=np.float32)], n_results=1, include=["distances"])
"""


def persisted_segments(folder: Path) -> list[Path]:
    """The HNSW segment folders Chroma will load from disk (those with an ``index_metadata.pickle``)."""
    return sorted(p.parent for p in folder.glob("*/index_metadata.pickle"))


def folder_signature(folder: Path) -> str:
    """A digest of the name, size and modification time of every file of the persisted segments."""
    rows = []
    for segment in persisted_segments(folder):
        for path in sorted(segment.iterdir()):
            if path.is_file():
                st = path.stat()
                rows.append(f"{path.relative_to(folder)}\0{st.st_size}\0{st.st_mtime_ns}")
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()


def _cache_path(folder: Path) -> Path:
    return folder.parent / CHECK_FILE


def _cached_sound(folder: Path, signature: str) -> bool:
    try:
        data = json.loads(_cache_path(folder).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("sound") == signature


def record_sound(folder: Path) -> None:
    """Cache that ``folder`` as it is now is sound (a read-only folder simply keeps no cache).

    Nothing is written for a folder without persisted segments: it needs no check.
    """
    if not folder.is_dir() or not persisted_segments(folder):
        return
    with contextlib.suppress(OSError):
        _cache_path(folder).write_text(json.dumps({"sound": folder_signature(folder)}), encoding="utf-8")


def check_chroma_folder(folder: Path, *, use_cache: bool = True) -> str | None:
    """Why the Chroma folder cannot be read safely, or None when it can (or does not exist yet).

    Parameters
    ----------
    folder : Path
        A Chroma ``PersistentClient`` folder.
    use_cache : bool
        Trust a cached verdict for an unchanged folder (see the module docstring).

    Returns
    -------
    str or None
        What went wrong in the child (the signal that killed it, or its last
        error line); None when every collection opened, counted and answered.
    """
    if not (folder / "chroma.sqlite3").exists() or not persisted_segments(folder):
        return None  # nothing Chroma reads from disk unchecked (a garbled chroma.sqlite3 is a Python error)
    signature = folder_signature(folder)
    if use_cache and _cached_sound(folder, signature):
        return None
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(folder)], capture_output=True, text=True, env=env,
            timeout=TIMEOUT, check=False,
        )
    except subprocess.TimeoutExpired:
        return f"reading it took over {TIMEOUT} s in a check process"
    if done.returncode < 0:
        try:
            name = signal.Signals(-done.returncode).name
        except ValueError:
            name = f"signal {-done.returncode}"
        return f"Chroma's native library crashed reading it ({name})"
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        return f"Chroma cannot read it ({lines[-1].strip() if lines else f'exit status {done.returncode}'})"
    if folder_signature(folder) == signature:  # the child's own reads may touch files; keep what it saw
        record_sound(folder)
    return None
