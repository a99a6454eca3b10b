"""What an evidence session may read: :class:`Scope`, resolved into document ids at one index generation.

A :class:`Scope` names documents (``document_ids``) and/or a metadata
predicate (``where``: every key must equal the document's metadata value).
:func:`resolve_scope` turns it, once, into a :class:`ResolvedScope`:

* ``readable``: every stored document (removed ones included) that matches.
  Ids of these documents can be fetched, navigated and cited, in any of their
  versions (a removed document is hidden from search but its ids keep working,
  as ``Graph.remove`` promises).
* ``searchable``: ``readable`` minus removed documents. ``discover``,
  ``find_entities`` and ``explore`` only see these, and only their current
  versions (the stores hold nothing else).

The predicate is evaluated against each document's current metadata; a
matching document is readable in all its versions. Documents ingested after
the session was opened are not in its scope.

Examples
--------
>>> from agrag_lab.storage.documents_db import DocumentRecord
>>> docs = [
...     DocumentRecord("a", "A", "markdown", {"era": "victorian"}, "0" * 12, False),
...     DocumentRecord("b", "B", "markdown", {"era": "napoleonic"}, "1" * 12, False),
...     DocumentRecord("c", "C", "markdown", {"era": "victorian"}, "2" * 12, True),
... ]
>>> r = resolve_scope(docs, Scope(where={"era": "victorian"}), generation=3)
>>> sorted(r.readable), sorted(r.searchable)
(['a', 'c'], ['a'])
>>> resolve_scope(docs, Scope(document_ids=frozenset({"b", "zzz"})), 3).readable
frozenset({'b'})
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from agrag_lab.errors import ScopeArgumentError
from agrag_lab.evidence.errors import EvidenceArgumentError
from agrag_lab.storage.documents_db import DocumentRecord
from agrag_lab.storage.where import matches, where_clause

#: A metadata value a scope predicate can compare with.
Scalar = str | int | float | bool

__all__ = [
    "ResolvedScope",
    "Scalar",
    "Scope",
    "ScopeArgumentError",
    "matches_where",
    "resolve_scope",
    "scope_from_args",
]


@dataclass(frozen=True)
class Scope:
    """The documents an evidence session may read.

    Parameters
    ----------
    document_ids : collection of str, optional
        Only these documents (ids that do not exist are simply not readable).
        ``None`` means every document.
    where : mapping of str to scalar, optional
        Only documents whose metadata has each key with exactly this value,
        compared type-strictly by :func:`agrag_lab.storage.where.same_value`
        (``True`` matches only ``True``, not ``1``; ``"1"`` does not match
        ``1``; ``1`` matches ``1.0``). ``None`` or ``{}`` means no predicate.

    Examples
    --------
    >>> Scope(document_ids={"ada-lovelace"}).document_ids
    frozenset({'ada-lovelace'})
    >>> Scope().unrestricted
    True
    >>> Scope(document_ids="ada-lovelace")
    Traceback (most recent call last):
    ...
    agrag_lab.errors.EvidenceArgumentError: Scope.document_ids must be a collection of document ids, not the string 'ada-lovelace'; write document_ids={'ada-lovelace'}
    """

    document_ids: frozenset[str] | None = None
    where: Mapping[str, Scalar] | None = None

    def __post_init__(self) -> None:
        ids: Any = self.document_ids
        if isinstance(ids, str):
            raise EvidenceArgumentError(
                f"Scope.document_ids must be a collection of document ids, not the string {ids!r}; "
                f"write document_ids={{{ids!r}}}"
            )
        if ids is not None:
            frozen = frozenset(ids)
            bad = sorted(repr(i) for i in frozen if not isinstance(i, str))
            if bad:
                raise EvidenceArgumentError(f"Scope.document_ids must hold strings; got {', '.join(bad)}")
            object.__setattr__(self, "document_ids", frozen)
        if self.where is not None:
            if not isinstance(self.where, Mapping):
                raise EvidenceArgumentError(
                    f"Scope.where must be a mapping of metadata keys to values, not {type(self.where).__name__}"
                )
            for key, value in self.where.items():
                if not isinstance(key, str) or not isinstance(value, (str, int, float, bool)):
                    raise EvidenceArgumentError(
                        f"Scope.where: {key!r} must map a string key to a str, int, float or bool, "
                        f"not {type(value).__name__}"
                    )
            object.__setattr__(self, "where", MappingProxyType(dict(self.where)))

    @property
    def unrestricted(self) -> bool:
        """Whether the scope names no documents and no predicate (everything)."""
        return self.document_ids is None and not self.where

    def __hash__(self) -> int:
        items = None if self.where is None else tuple(sorted(self.where.items(), key=lambda kv: kv[0]))
        return hash((self.document_ids, items))


def matches_where(metadata: Mapping[str, Any], where: Mapping[str, Scalar] | None) -> bool:
    """Whether document ``metadata`` satisfies the predicate ``where``.

    Examples
    --------
    >>> matches_where({"era": "victorian", "year": 1843}, {"era": "victorian"})
    True
    >>> matches_where({"era": "victorian"}, {"year": 1843})
    False
    >>> matches_where({}, None)
    True
    >>> matches_where({"live": 1}, {"live": True})
    False
    """
    if not where:
        return True
    return matches(where_clause(where), metadata)


@dataclass(frozen=True)
class ResolvedScope:
    """A scope resolved into document ids, fixed for the life of a session.

    Attributes
    ----------
    readable : frozenset of str
        Documents whose ids may be fetched, navigated and cited (removed ones
        included).
    searchable : frozenset of str
        Documents that search may return (``readable`` minus removed ones).
    listed : frozenset of str or None
        The document ids the caller named (``Scope.document_ids``), kept as
        given; used only to say "out of scope" about an id without looking
        anything up.
    unrestricted : bool
        The caller asked for everything.
    generation : int
        The index generation when the scope was resolved.
    """

    readable: frozenset[str]
    searchable: frozenset[str]
    listed: frozenset[str] | None
    unrestricted: bool
    generation: int

    def can_read(self, document_id: str) -> bool:
        """Whether ids of ``document_id`` may be read."""
        return document_id in self.readable

    def can_search(self, document_id: str) -> bool:
        """Whether search may return passages of ``document_id``."""
        return document_id in self.searchable


def resolve_scope(records: Iterable[DocumentRecord], scope: Scope, generation: int) -> ResolvedScope:
    """Resolve ``scope`` against the stored documents (removed ones included).

    Parameters
    ----------
    records : iterable of DocumentRecord
        Every stored document, e.g. ``db.documents(include_removed=True)``.
    scope : Scope
        What the caller asked for.
    generation : int
        The index generation the records were read at.
    """
    readable: set[str] = set()
    searchable: set[str] = set()
    for record in records:
        if scope.document_ids is not None and record.id not in scope.document_ids:
            continue
        if not matches_where(record.metadata, scope.where):
            continue
        readable.add(record.id)
        if not record.removed:
            searchable.add(record.id)
    return ResolvedScope(frozenset(readable), frozenset(searchable), scope.document_ids, scope.unrestricted, generation)


# -- from the command line -------------------------------------------------------------


def _scalar(text: str) -> Scalar:
    """A ``--scope-where`` value: a JSON number or boolean, else the text itself.

    Examples
    --------
    >>> _scalar("1843"), _scalar("true"), _scalar("victorian")
    (1843, True, 'victorian')
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return text
    return value if isinstance(value, (int, float, bool)) else text


def scope_from_args(documents: Sequence[str] | None, where: Sequence[str] | None) -> Scope | None:
    """The scope of ``--scope-documents ID ...`` and ``--scope-where KEY=VALUE`` values (``None``: everything).

    Raises
    ------
    ScopeArgumentError
        A ``--scope-where`` value without ``=`` or without a key.

    Examples
    --------
    >>> scope_from_args(["ada-lovelace"], ["year=1843"]).where["year"]
    1843
    >>> scope_from_args(None, None) is None
    True
    """
    predicate: dict[str, Scalar] = {}
    for item in where or ():
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ScopeArgumentError(f"--scope-where {item!r}: write KEY=VALUE, e.g. era=victorian")
        predicate[key] = _scalar(value)
    if documents is None and not predicate:
        return None
    return Scope(document_ids=frozenset(documents) if documents is not None else None, where=predicate or None)
