"""A folder of LLM answers keyed by model, prompt version and content hash.

Re-running an extraction or a report over unchanged text makes no call: the
key is the SHA-256 of ``[model, prompt version, content]``, so a new model or
a changed prompt (its version) misses, and so does changed content. Each
answer is one small JSON file, written atomically (safe with worker threads
and with a run that is interrupted).

Examples
--------
>>> import tempfile
>>> cache = ResponseCache(tempfile.mkdtemp())
>>> key = cache.key("qwen3", "extract-1", "Ada met Babbage.")
>>> cache.get(key) is None
True
>>> cache.put(key, {"entities": []})
>>> cache.get(key), len(cache)
({'entities': []}, 1)
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["ResponseCache"]


class ResponseCache:
    """JSON answers under ``folder`` (created when missing)."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    @staticmethod
    def key(model: str, prompt_version: str, content: str) -> str:
        """The cache key of one request."""
        raw = json.dumps([model, prompt_version, content], ensure_ascii=False)
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> Any | None:
        """The answer stored under ``key``, or ``None`` (also for a file that cannot be read)."""
        try:
            return json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def put(self, key: str, value: Any) -> None:
        """Store ``value`` (JSON-ready) under ``key``."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(value, handle, ensure_ascii=False)
        os.replace(tmp, path)

    def __len__(self) -> int:
        return sum(1 for _ in self.folder.glob("*/*.json"))
