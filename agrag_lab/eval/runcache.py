"""A folder of system runs, so that a new recipe does not re-run the others.

An evaluation's cost is its searches; scoring them is instant. :class:`RunCache`
keeps each system's projected rankings (a :class:`~agrag_lab.eval.systems.SystemRun`)
as one JSON file, named by the system and a digest of everything the rankings
depend on: the recipe's settings (or the baselines' name), the index's
fingerprint (its path, counts and write generation: a re-ingest or a rebuilt
graph changes it), the queries, and the projection depth and per-hit cap.
Change any of these and the run is computed again; change nothing and it is
read back.

Examples
--------
>>> import tempfile
>>> from agrag_lab.eval.systems import SystemRun
>>> cache = RunCache(tempfile.mkdtemp())
>>> key = cache.key("dense", {"what": "baseline"})
>>> cache.get(key) is None
True
>>> cache.put(key, SystemRun("dense", "baseline", {"q1": ("d1", "d2")}, 0.5))
>>> cache.get(key).rankings
{'q1': ('d1', 'd2')}
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agrag_lab.eval.systems import SystemRun
from agrag_lab.index.build import graph_file

if TYPE_CHECKING:
    from agrag_lab.graph import Graph

#: Bump when the stored format, or what a run means, changes.
FORMAT = 1


def index_fingerprint(graph: Graph) -> dict[str, Any]:
    """What identifies an index's contents: its folder, counts, write generations and graph file.

    The graph file's size and modification time change when the graph is rebuilt (a
    new extractor, :meth:`Graph.sync`) while the documents stay the same.
    """
    stored = graph_file(Path(graph.path))
    stat = stored.stat() if stored.is_file() else None
    return {
        "path": str(Path(graph.path).resolve()),
        "stats": graph.stats(),
        "generation": graph.db.generation(),
        "derived": graph.derived_generation(),
        "graph": (stat.st_size, stat.st_mtime_ns) if stat is not None else None,
    }


class RunCache:
    """System runs stored as JSON files under ``folder`` (created on first write)."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    def key(self, name: str, what: Mapping[str, Any]) -> str:
        """The file stem for system ``name`` whose rankings depend on ``what`` (JSON-safe)."""
        digest = hashlib.sha1(
            json.dumps({"format": FORMAT, **what}, sort_keys=True, default=str).encode("utf-8")
        ).hexdigest()[:16]
        safe = re.sub(r"[^A-Za-z0-9_.+-]", "_", name)[:60]
        return f"{safe}-{digest}"

    def get(self, key: str) -> SystemRun | None:
        """The stored run, or None when there is none (or it cannot be read)."""
        path = self.folder / f"{key}.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return SystemRun(
                data["name"],
                data["kind"],
                {q: tuple(r) for q, r in data["rankings"].items()},
                float(data["seconds"]),
                dict(data["failures"]),
                data["description"],
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, run: SystemRun) -> None:
        """Store ``run`` under ``key`` (written whole, then renamed, so a crash leaves no half file)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        data = {
            "name": run.name,
            "kind": run.kind,
            "rankings": {q: list(r) for q, r in run.rankings.items()},
            "seconds": run.seconds,
            "failures": run.failures,
            "description": run.description,
        }
        tmp = self.folder / f".{key}.tmp"
        tmp.write_text(json.dumps(data), encoding="utf-8")
        tmp.replace(self.folder / f"{key}.json")
