"""Atomic, stable persistence of a graph, its communities and reports: JSON, gzip-compressed on disk.

:func:`dumps` gives stable JSON text (the same graph always serialises to the
same bytes). :func:`write_file` saves it atomically (a temporary file in the
destination folder, fsync, then ``os.replace``: a crash leaves the old file or
the new one, never a half-written one), gzip-compressed when the name ends in
``.gz`` (an index folder's ``graph.json.gz``: a fifth of the JSON's bytes,
readable with ``zcat``); :func:`read_file` reads either form. A compressed
file ends with :data:`END_MARK`, so :func:`is_complete` tells a file cut short
without decompressing it.

Examples
--------
>>> import json, pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> write_file(folder / "x.json.gz", '{"a": 1}')
>>> read_file(folder / "x.json.gz"), is_complete(folder / "x.json.gz")
('{"a": 1}', True)
>>> sorted(p.name for p in folder.iterdir())
['x.json.gz']
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from agrag_lab.errors import IndexFormatError
from agrag_lab.kg.communities import Community
from agrag_lab.kg.model import KnowledgeGraph
from agrag_lab.kg.reports import CommunityReport
from agrag_lab.storage.atomic import write_bytes_atomic, write_text_atomic

__all__ = [
    "END_MARK", "FORMAT", "FORMAT_VERSION", "community_from_dict", "community_to_dict", "dumps", "is_complete", "loads",
    "read_file", "report_from_dict", "report_to_dict", "stored_size", "write_file",
]

#: Written into every file, checked on load.
FORMAT = "agrag-lab/knowledge-graph"
FORMAT_VERSION = 1
#: An empty gzip member (``gzip.compress(b"", mtime=0)``), written after the graph's own: gzip readers
#: (``zcat``, :func:`gzip.decompress`) read the two as one text, and a file cut short lacks it.
END_MARK = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00"
_GZIP_MAGIC = b"\x1f\x8b"
#: zlib level of the graph file: 9 saves 0.6% more for 50% more time (MuSiQue-100's 22.9 MB -> 4.4 MB).
COMPRESS_LEVEL = 6


def write_file(path: str | os.PathLike[str], text: str) -> None:
    """Save :func:`dumps` text at ``path`` atomically: gzip-compressed when its name ends in ``.gz``, else plain.

    Raises
    ------
    OSError
        The folder is not writable; the old file is untouched.
    """
    target = Path(path)
    if target.suffix != ".gz":
        write_text_atomic(target, text)
        return
    data = gzip.compress(text.encode("utf-8"), compresslevel=COMPRESS_LEVEL, mtime=0)
    write_bytes_atomic(target, data + END_MARK)


def read_file(path: str | os.PathLike[str]) -> str:
    """The text of a graph file written by :func:`write_file` (either form, told apart by its first bytes).

    Raises
    ------
    IndexFormatError
        The file cannot be read, or its compressed data is damaged or cut short.
    """
    source = os.fspath(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise IndexFormatError(
            f"cannot read knowledge graph {source!r} ({exc.strerror or exc}); "
            "an index folder rebuilds it from its documents with `agrag-lab repair --index DIR`; or check the path"
        ) from None
    try:
        if data.startswith(_GZIP_MAGIC):
            data = gzip.decompress(data)
        return data.decode("utf-8")
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as exc:
        raise IndexFormatError(
            f"{source} is damaged ({type(exc).__name__}: {exc}); it is derived from the documents: rebuild it "
            "with `agrag-lab repair --index DIR` (DIR: the index folder holding it) or restore a backup"
        ) from None


def stored_size(path: str | os.PathLike[str]) -> int:
    """Bytes of JSON text a graph file holds (a compressed one's from its gzip trailer, modulo 2**32).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "g.json.gz"
    >>> write_file(path, "{" + " " * 5000 + "}")
    >>> path.stat().st_size < 100, stored_size(path)
    (True, 5002)
    """
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if fh.read(2) != _GZIP_MAGIC or size < len(END_MARK) + 4:
            return size
        fh.seek(size - len(END_MARK) - 4)
        return int.from_bytes(fh.read(4), "little")


def is_complete(path: str | os.PathLike[str]) -> bool:
    """Whether a graph file ends as :func:`write_file` ends it (cheap: reads its last bytes only).

    A compressed file ends with :data:`END_MARK`, a plain one with ``}``.
    """
    with open(path, "rb") as fh:
        head = fh.read(2)
        fh.seek(max(0, os.fstat(fh.fileno()).st_size - 64))
        tail = fh.read()
    return tail.endswith(END_MARK) if head == _GZIP_MAGIC else tail.rstrip().endswith(b"}")


def community_to_dict(c: Community) -> dict[str, Any]:
    """The stable JSON form of a community (:func:`community_from_dict` reads it back)."""
    return {
        "id": c.id,
        "level": c.level,
        "members": list(c.members),
        "parent": c.parent,
        "children": list(c.children),
    }


def report_to_dict(r: CommunityReport) -> dict[str, Any]:
    """The stable JSON form of a community report (:func:`report_from_dict` reads it back)."""
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
        "communities": [community_to_dict(c) for c in communities],
        "reports": [report_to_dict(r) for r in reports],
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def community_from_dict(c: Mapping[str, Any]) -> Community:
    """A community from its stored dict (the inverse of the file's community entries)."""
    return Community(c["id"], int(c["level"]), tuple(c["members"]), c["parent"], tuple(c["children"]))


def report_from_dict(r: Mapping[str, Any]) -> CommunityReport:
    """A community report from its stored dict (the inverse of the file's report entries)."""
    return CommunityReport(
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


def _parse(
    data: Mapping[str, Any],
) -> tuple[KnowledgeGraph, tuple[Community, ...], tuple[CommunityReport, ...]]:
    graph = KnowledgeGraph.from_dict(data["graph"])
    communities = tuple(community_from_dict(c) for c in data["communities"])
    reports = tuple(report_from_dict(r) for r in data["reports"])
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
