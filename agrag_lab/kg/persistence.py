"""Atomic, stable JSON persistence of a graph, its communities and reports.

:func:`atomic_write_text` writes a temporary file in the destination folder,
flushes and fsyncs it, then ``os.replace``-s it over the destination (and
fsyncs the folder where the platform allows). A crash at any point leaves
either the old file or the new one, never a half-written file.

The JSON is stable: the same graph always serialises to the same bytes.

Examples
--------
>>> import json, pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> atomic_write_text(folder / "x.json", json.dumps({"a": 1}))
>>> (folder / "x.json").read_text()
'{"a": 1}'
>>> sorted(p.name for p in folder.iterdir())
['x.json']
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from agrag_lab.errors import IndexFormatError
from agrag_lab.kg.communities import Community
from agrag_lab.kg.model import KnowledgeGraph
from agrag_lab.kg.reports import CommunityReport

__all__ = ["FORMAT", "FORMAT_VERSION", "atomic_write_text", "dumps", "loads"]

#: Written into every file, checked on load.
FORMAT = "agrag-lab/knowledge-graph"
FORMAT_VERSION = 1


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Replace the file at ``path`` with ``text`` (UTF-8) atomically.

    Raises
    ------
    OSError
        The folder is missing or not writable; the old file is untouched and
        no temporary file is left behind.
    """
    target = Path(path)
    fd, temp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise
    with contextlib.suppress(OSError, AttributeError):
        folder = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


def _community_dict(c: Community) -> dict[str, Any]:
    return {
        "id": c.id,
        "level": c.level,
        "members": list(c.members),
        "parent": c.parent,
        "children": list(c.children),
    }


def _report_dict(r: CommunityReport) -> dict[str, Any]:
    return {
        "community_id": r.community_id,
        "level": r.level,
        "title": r.title,
        "summary": r.summary,
        "key_entities": list(r.key_entities),
        "key_relations": [list(k) for k in r.key_relations],
        "chunk_ids": list(r.chunk_ids),
        "key_entity_names": list(r.key_entity_names),
        **({"full_content": r.full_content} if r.full_content else {}),
        **({"findings": [list(f) for f in r.findings]} if r.findings else {}),
        **({"rating": r.rating} if r.rating is not None else {}),
        **({"rating_explanation": r.rating_explanation} if r.rating_explanation else {}),
    }


def dumps(
    graph: KnowledgeGraph,
    communities: Iterable[Community],
    reports: Iterable[CommunityReport],
) -> str:
    """Serialise to stable JSON text (same input, same bytes)."""
    data = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "graph": graph.to_dict(),
        "communities": [_community_dict(c) for c in communities],
        "reports": [_report_dict(r) for r in reports],
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _parse(
    data: Mapping[str, Any],
) -> tuple[KnowledgeGraph, tuple[Community, ...], tuple[CommunityReport, ...]]:
    graph = KnowledgeGraph.from_dict(data["graph"])
    communities = tuple(
        Community(
            c["id"],
            int(c["level"]),
            tuple(c["members"]),
            c["parent"],
            tuple(c["children"]),
        )
        for c in data["communities"]
    )
    reports = tuple(
        CommunityReport(
            r["community_id"],
            int(r["level"]),
            r["title"],
            r["summary"],
            tuple(r["key_entities"]),
            tuple((s, t, o) for s, t, o in r["key_relations"]),
            tuple(r["chunk_ids"]),
            tuple(r["key_entity_names"]),
            r.get("full_content", ""),
            tuple((a, b) for a, b in r.get("findings", ())),
            r.get("rating"),
            r.get("rating_explanation", ""),
        )
        for r in data["reports"]
    )
    return graph, communities, reports


def loads(
    text: str, source: str = "<string>"
) -> tuple[KnowledgeGraph, tuple[Community, ...], tuple[CommunityReport, ...]]:
    """Parse :func:`dumps` output.

    Raises
    ------
    IndexFormatError
        The text is not JSON, not a knowledge-graph file, of another format
        version, or damaged.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise IndexFormatError(
            f"{source} is not valid JSON ({exc}); it is derived from the documents: rebuild it with "
            "`agrag-lab repair --index DIR` (DIR: the index folder holding it) or restore a backup"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise IndexFormatError(f"{source} is not an agrag_lab knowledge-graph file (no format {FORMAT!r})")
    if data.get("version") != FORMAT_VERSION:
        raise IndexFormatError(
            f"{source} has knowledge-graph format version {data.get('version')!r}; this agrag_lab "
            f"reads version {FORMAT_VERSION}: rebuild the graph with this version"
        )
    try:
        return _parse(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise IndexFormatError(
            f"{source} is damaged ({type(exc).__name__}: {exc}); it is derived from the documents: rebuild it "
            "with `agrag-lab repair --index DIR` (DIR: the index folder holding it) or restore a backup"
        ) from None
