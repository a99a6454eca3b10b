"""LightRAG's vector files (``vdb_entities.json``, ``vdb_relationships.json``, ``vdb_chunks.json``), read as values.

LightRAG keeps each vector store as one nano-vectordb JSON file: ``embedding_dim``,
``data`` (one record per item: ``__id__``, the item's fields, ``content`` — the text
it embedded) and the vectors in one of three forms, all read:

- ``matrix``: base64 of the float32 rows, in ``data`` order (every release);
- a record's ``vector``: base64 of the zlib-compressed float16 row (1.4 and later);
- a record's ``__vector__``: the row as a JSON list (the 2024 releases).

``matrix`` is preferred (full precision); a file with none of them has records and no vectors.

Examples
--------
>>> import base64, numpy as np
>>> raw = {"embedding_dim": 2, "data": [{"__id__": "a", "content": "x"}],
...        "matrix": base64.b64encode(np.array([[0.6, 0.8]], dtype=np.float32).tobytes()).decode()}
>>> found = vector_records(raw, "vdb_entities.json")
>>> found.dimension, found.rows[0]["__id__"], found.vectors.tolist()
(2, 'a', [[0.6000000238418579, 0.800000011920929]])
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agrag_lab.importing.errors import ImportSourceError
from agrag_lab.importing.model import StoredVectors

__all__ = ["CHUNKS_VDB", "ENTITIES_VDB", "RELATIONS_VDB", "VectorRecords", "read_vdb", "relation_ends", "stored_vectors",
           "vector_records"]

#: LightRAG's vector files, by what they hold.
ENTITIES_VDB = "vdb_entities.json"
RELATIONS_VDB = "vdb_relationships.json"
CHUNKS_VDB = "vdb_chunks.json"


@dataclass(frozen=True)
class VectorRecords:
    """One vector file: its vectors' length, its records (``data``) and their vectors (row ``i`` is record ``i``'s;
    ``None``: the file stores none)."""

    dimension: int
    rows: tuple[Mapping[str, Any], ...]
    vectors: np.ndarray | None

    def by(self, field: str) -> dict[str, int]:
        """Row of each record by one of its fields (``__id__``, ``entity_name``...), the first of a repeated value."""
        out: dict[str, int] = {}
        for i, row in enumerate(self.rows):
            out.setdefault(str(row.get(field, "")), i)
        return out


def _row(value: Any, dimension: int, name: str, at: int) -> np.ndarray:
    if isinstance(value, list):
        return np.asarray(value, dtype=np.float32)
    try:
        return np.frombuffer(zlib.decompress(base64.b64decode(str(value))), dtype=np.float16).astype(np.float32)
    except (binascii.Error, zlib.error, ValueError) as exc:
        raise ImportSourceError(f"{name}: record {at}'s vector cannot be read ({exc}); copy the file again "
                                "from the LightRAG working directory") from None


def vector_records(raw: Mapping[str, Any], name: str) -> VectorRecords:
    """The records and vectors of one parsed vector file (``name`` names it in errors)."""
    rows = tuple(r for r in raw.get("data") or () if isinstance(r, Mapping))
    dimension = int(raw.get("embedding_dim") or 0)
    vectors: np.ndarray | None = None
    if raw.get("matrix"):
        try:
            flat = np.frombuffer(base64.b64decode(str(raw["matrix"])), dtype=np.float32)
        except (binascii.Error, ValueError) as exc:
            raise ImportSourceError(f"{name}: its matrix cannot be read ({exc})") from None
        dimension = dimension or (flat.size // len(rows) if rows else 0)
        if not dimension or flat.size != dimension * len(rows):
            raise ImportSourceError(f"{name}: its matrix holds {flat.size} values, not {len(rows)} records of "
                                    f"{dimension}; copy the file again from the LightRAG working directory")
        vectors = flat.reshape(len(rows), dimension).copy()
    elif rows and all("vector" in r or "__vector__" in r for r in rows):
        vectors = np.stack([_row(r.get("vector", r.get("__vector__")), dimension, name, i) for i, r in enumerate(rows)])
        dimension = dimension or int(vectors.shape[1])
    if vectors is not None and vectors.shape[1] != dimension:
        raise ImportSourceError(f"{name}: its vectors have {vectors.shape[1]} values, its embedding_dim says {dimension}")
    return VectorRecords(dimension, rows, vectors)


def read_vdb(path: Path) -> VectorRecords | None:
    """The vector file at ``path`` (None: there is none)."""
    if not path.is_file():
        return None
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ImportSourceError(f"{path} cannot be read as JSON ({type(exc).__name__}); copy it again from the "
                                "LightRAG working directory") from None
    if not isinstance(raw, Mapping):
        raise ImportSourceError(f"{path} holds {type(raw).__name__}, not a LightRAG vector file")
    return vector_records(raw, path.name)


def stored_vectors(
    folder: Path, entity_of: Mapping[str, str], chunk_of: Mapping[str, str],
) -> StoredVectors | None:
    """The vectors of a working directory's vector files, by our ids (None: it has no vector file with vectors).

    ``entity_of`` maps LightRAG's entity names (as stored) to our entity ids, ``chunk_of`` its chunk ids to ours;
    a record naming neither is left out (the index embeds that item with the same model).
    """
    files = {name: read_vdb(folder / name) for name in (ENTITIES_VDB, RELATIONS_VDB, CHUNKS_VDB)}
    found = {name: v for name, v in files.items() if v is not None and v.vectors is not None and v.rows}
    if not found:
        return None
    dimensions = {v.dimension for v in found.values()}
    if len(dimensions) > 1:
        raise ImportSourceError(f"{folder}: the vector files hold vectors of different lengths {sorted(dimensions)}; "
                                "copy the whole working directory of one LightRAG run")
    entities: dict[str, np.ndarray] = {}
    relations: dict[frozenset[str], np.ndarray] = {}
    chunks: dict[str, np.ndarray] = {}
    for name, records in found.items():
        for row, vector in zip(records.rows, records.vectors if records.vectors is not None else (), strict=False):
            if name == ENTITIES_VDB and str(row.get("entity_name", "")) in entity_of:
                entities[entity_of[str(row["entity_name"])]] = vector
            elif name == RELATIONS_VDB:
                ends = [entity_of.get(str(row.get(k, ""))) for k in ("src_id", "tgt_id")]
                if all(ends):
                    relations[frozenset(e for e in ends if e)] = vector
            elif name == CHUNKS_VDB and str(row.get("__id__", "")) in chunk_of:
                chunks[chunk_of[str(row["__id__"])]] = vector
    kinds = frozenset(kind for kind, name in (("entities", ENTITIES_VDB), ("relations", RELATIONS_VDB),
                                              ("chunks", CHUNKS_VDB)) if name in found)
    return StoredVectors(dimensions.pop(), ", ".join(sorted(found)), entities, relations, chunks, kinds=kinds)


def relation_ends(relations: VectorRecords | None) -> dict[frozenset[str], tuple[str, str]]:
    """``(src_id, tgt_id)`` of each relation the builder's vector records hold, by its pair of names."""
    if relations is None:
        return {}
    out: dict[frozenset[str], tuple[str, str]] = {}
    for row in relations.rows:
        src, tgt = str(row.get("src_id", "")), str(row.get("tgt_id", ""))
        if src and tgt:
            out.setdefault(frozenset((src, tgt)), (src, tgt))
    return out
