"""The one metadata predicate: Chroma-style ``where`` filters, built and evaluated.

Every filter on scalar metadata in agrag_lab goes through this module: the
scope's ``where`` (:mod:`agrag_lab.evidence.scope`), the in-memory vector
index (:class:`agrag_lab.storage.vectors.InMemoryVectorIndex`) and so the
graph store's exact similarity search (:mod:`agrag_lab.retrieval.store`), so
a value matches in the same cases everywhere, and the same cases as in
Chroma, which stores booleans, integers, floats and strings apart. It sits on
the lowest floor (``storage/``), which ``kg/``, ``retrieval/`` and
``evidence/`` may all import.

Equality is type-strict:

* a boolean equals only the same boolean (``True`` does not match ``1``);
* a string equals only the same string (``"1"`` does not match ``1``);
* numbers compare by value (``1`` matches ``1.0``);
* a missing key matches nothing.

Examples
--------
>>> where = where_clause({"document_id": ["a", "b"], "live": True})
>>> where
{'$and': [{'document_id': {'$in': ['a', 'b']}}, {'live': {'$eq': True}}]}
>>> matches(where, {"document_id": "a", "live": True}), matches(where, {"document_id": "a", "live": 1})
(True, False)
>>> same_value(True, 1), same_value(1, 1.0), same_value("1", 1)
(False, True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from agrag_lab.errors import ArgumentError

__all__ = ["Metadata", "Where", "compile_where", "matches", "same_value", "where_clause"]

Metadata = Mapping[str, str | int | float | bool]
Where = dict[str, Any]


def same_value(a: Any, b: Any) -> bool:
    """Type-strict equality of two metadata scalars (see the module docstring).

    Examples
    --------
    >>> same_value(False, 0), same_value(2, 2.0), same_value("x", "x")
    (False, True, True)
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    return bool(a == b)


def where_clause(conditions: Mapping[str, Any]) -> Where | None:
    """Build a Chroma ``where`` from ``{key: value | list-of-values}``.

    Examples
    --------
    >>> where_clause({"document_id": ["a", "b"], "current": True})
    {'$and': [{'document_id': {'$in': ['a', 'b']}}, {'current': {'$eq': True}}]}
    >>> where_clause({}) is None
    True
    """
    parts: list[Where] = []
    for key, value in conditions.items():
        if isinstance(value, (list, tuple, set, frozenset)):
            parts.append({key: {"$in": sorted(value)}})
        else:
            parts.append({key: {"$eq": value}})
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else {"$and": parts}


def _member(values: Iterable[Any]) -> Callable[[Any], bool]:
    """Type-strict membership in ``values``, by hashing (one set per type family)."""
    texts = frozenset(v for v in values if isinstance(v, str))
    flags = frozenset(v for v in values if isinstance(v, bool))
    numbers = frozenset(v for v in values if not isinstance(v, (str, bool)))

    def test(value: Any) -> bool:
        if isinstance(value, str):
            return value in texts
        if isinstance(value, bool):
            return value in flags
        return value is not None and value in numbers

    return test


def compile_where(where: Where | None) -> Callable[[Metadata], bool]:
    """``where`` as a test of one record's metadata (sets built once, for many records).

    Examples
    --------
    >>> test = compile_where({"document_id": {"$in": ["a", "b"]}})
    >>> [test({"document_id": d}) for d in ("a", "c")]
    [True, False]
    >>> compile_where({"year": 1843})({"year": 1843.0})  # Chroma's short form of '$eq'
    True
    """
    if where is None:
        return lambda metadata: True
    if "$and" in where:
        parts = [compile_where(part) for part in where["$and"]]
        return lambda metadata: all(part(metadata) for part in parts)
    if len(where) != 1:
        raise ArgumentError(f"a where filter holds one key, or '$and' of filters: {where!r} holds {len(where)}")
    ((key, cond),) = where.items()
    if not isinstance(cond, Mapping):  # Chroma's short form of {key: {"$eq": value}}
        cond = {"$eq": cond}
    if set(cond) == {"$in"}:
        member = _member(cond["$in"])
        return lambda metadata: key in metadata and member(metadata[key])
    if set(cond) != {"$eq"}:
        raise ArgumentError(f"the where filter {where!r} uses {sorted(cond)}: write it with '$eq', '$in' and '$and'")
    expected = cond["$eq"]
    return lambda metadata: key in metadata and same_value(metadata[key], expected)


def matches(where: Where | None, metadata: Metadata) -> bool:
    """Evaluate a ``where`` built by :func:`where_clause` against one record.

    Examples
    --------
    >>> matches({"document_id": {"$in": ["a"]}}, {"document_id": "a"})
    True
    >>> matches({"year": {"$eq": 1843}}, {})
    False
    """
    return compile_where(where)(metadata)
