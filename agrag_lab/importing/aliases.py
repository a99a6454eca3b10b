"""The ids a builder gave, kept as aliases of ours: :class:`Aliases` (pure values, no I/O).

An imported index answers to the ids its builder wrote, beside ours:

- GraphRAG: every table's ``id`` (a UUID or a hash, as written) and the number
  GraphRAG's answers cite (``[Data: Sources (12); Entities (5, 7)]``), written
  ``<kind>:<number>`` with ``kind`` one of :data:`KINDS` (``source:12`` is text
  unit 12, ``entity:5`` entity 5; the plural and ``text_unit`` are accepted):
  a row's ``human_readable_id``, except a text unit's, which GraphRAG's query
  numbers by its row in the table, from 0 (1.x writes ``human_readable_id``
  from 1 there, so its ``Sources (n)`` is the row whose number is n + 1;
  a table written with another pandas index is numbered by its labels:
  :func:`~agrag_lab.importing.tables.unit_numbers`).
- LightRAG: chunk ids (``chunk-<md5>``), document ids (``doc-<md5>``) and
  entity names (``entity:<name>``; a bare name is found by ``find_entities``).

Each alias maps to ``(kind, our id)``: a text unit or chunk to its evidence id
(``doc@version#c3``), a document to our document id, an entity to its entity
id, a relationship to ``source|target|type`` of our edge, a community or
report to its community id, a claim to the evidence id of its text unit.

Examples
--------
>>> a = Aliases({"9f2c": ("source", "carol@0123456789ab#c3"), "source:12": ("source", "carol@0123456789ab#c3")})
>>> a.resolve("Sources:12"), a.resolve("9f2c"), a.resolve("nothing")
(('source', 'carol@0123456789ab#c3'), ('source', 'carol@0123456789ab#c3'), None)
>>> a.shown("carol@0123456789ab#c3")
'9f2c'
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType

from agrag_lab.storage.meta_keys import IMPORT_ALIASES

__all__ = ["ALIASES_META", "KINDS", "Aliases", "alias_key", "graphrag_references", "load_aliases"]

#: Meta key (SQLite) of an index's aliases, as JSON ``{alias: [kind, our id]}``.
ALIASES_META = IMPORT_ALIASES
#: The kinds of builder ids, as GraphRAG's references name them (singular).
KINDS = ("document", "source", "entity", "relationship", "community", "report", "claim")
#: Other spellings of a kind.
_SYNONYMS = {
    "documents": "document", "doc": "document", "sources": "source", "text_unit": "source", "text_units": "source",
    "textunit": "source", "chunk": "source", "chunks": "source", "entities": "entity", "relationships": "relationship",
    "relation": "relationship", "relations": "relationship", "communities": "community", "reports": "report",
    "claims": "claim", "covariate": "claim", "covariates": "claim",
}
#: ``[Data: Sources (12, 3); Entities (5, 7, +more)]``: GraphRAG's reference groups.
_DATA_GROUP = re.compile(r"\[\s*Data\s*:\s*(?P<body>[^\[\]]*)\]", re.IGNORECASE)
_DATA_PART = re.compile(r"(?P<kind>[A-Za-z_ ]+?)\s*\((?P<ids>[^()]*)\)")


def kind_of(word: str) -> str | None:
    """The kind a word names (``Sources`` -> ``source``), or ``None``.

    Examples
    --------
    >>> kind_of("Sources"), kind_of("Text Units"), kind_of("apples")
    ('source', 'source', None)
    """
    key = word.strip().lower().replace(" ", "_")
    key = _SYNONYMS.get(key, key)
    return key if key in KINDS else None


def alias_key(kind: str, number: object) -> str:
    """The alias of a human-readable id: ``alias_key("entity", 5)`` -> ``'entity:5'``.

    Examples
    --------
    >>> alias_key("Entities", 5), alias_key("source", "12")
    ('entity:5', 'source:12')
    """
    return f"{kind_of(kind) or kind}:{str(number).strip()}"


@dataclass(frozen=True)
class Aliases:
    """Builder id -> ``(kind, our id)``, and the reverse (our id -> the builder ids, first given first)."""

    table: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    _back: Mapping[str, tuple[str, ...]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "table", MappingProxyType(dict(self.table)))
        back: dict[str, list[str]] = {}
        for alias, (_kind, ours) in self.table.items():
            back.setdefault(ours, []).append(alias)
        object.__setattr__(self, "_back", MappingProxyType({k: tuple(v) for k, v in back.items()}))

    def __len__(self) -> int:
        return len(self.table)

    def resolve(self, raw: object) -> tuple[str, str] | None:
        """``(kind, our id)`` of a builder id (exact, then ``kind:number`` in any spelling), or ``None``."""
        if not isinstance(raw, str) or not raw.strip():
            return None
        text = raw.strip()
        if text in self.table:
            return self.table[text]
        kind, sep, number = text.partition(":")
        if sep and kind_of(kind):
            return self.table.get(alias_key(kind, number))
        return None

    def resolve_as(self, raw: object, *kinds: str) -> str | None:
        """Our id of a builder id of one of ``kinds``, or ``None``."""
        found = self.resolve(raw)
        return found[1] if found is not None and found[0] in kinds else None

    def of(self, ours: str) -> tuple[str, ...]:
        """Every builder id of one of our ids (``()``: none)."""
        return self._back.get(ours, ())

    def shown(self, ours: str) -> str:
        """The builder id to show beside ours: the item's own ``id`` (not a ``kind:number`` short id, not the id
        of a claim mapped onto it: a claim has no item of its own and answers as its text unit), ``""`` when none.

        Examples
        --------
        >>> a = Aliases({"claim-7": ("claim", "c#c0"), "unit-1": ("source", "c#c0"), "source:1": ("source", "c#c0")})
        >>> a.shown("c#c0"), Aliases({"claim-7": ("claim", "c#c0")}).shown("c#c0")
        ('unit-1', 'claim-7')
        """
        given = self.of(ours)
        own = sorted(given, key=lambda g: self.table[g][0] == "claim")  # stable: the first given of each kind
        raw = [g for g in own if not kind_of(g.partition(":")[0]) or ":" not in g]
        return raw[0] if raw else (own[0] if own else "")

    def dumps(self) -> str:
        """JSON of the table (what the index keeps)."""
        return json.dumps({k: list(v) for k, v in sorted(self.table.items())}, ensure_ascii=False, separators=(",", ":"))


@lru_cache(maxsize=8)
def load_aliases(raw: str | None) -> Aliases:
    """The aliases kept as JSON (``None``: an index with none).

    Examples
    --------
    >>> load_aliases('{"entity:5": ["entity", "ent-scrooge"]}').resolve("Entities:5")
    ('entity', 'ent-scrooge')
    >>> len(load_aliases(None))
    0
    """
    if not raw:
        return Aliases()
    data = json.loads(raw)
    return Aliases({str(k): (str(v[0]), str(v[1])) for k, v in data.items()})


def graphrag_references(text: str) -> list[tuple[str, int, int]]:
    """``(alias, start, end)`` of every id in GraphRAG's reference groups of an answer
    (``[Data: Sources (12); Entities (5, 7, +more)]``); ``+more`` is no id.

    Examples
    --------
    >>> [a for a, _, _ in graphrag_references("Scrooge [Data: Sources (12); Entities (5, 7, +more)].")]
    ['source:12', 'entity:5', 'entity:7']
    """
    out: list[tuple[str, int, int]] = []
    for group in _DATA_GROUP.finditer(text):
        base = group.start("body")
        for part in _DATA_PART.finditer(group.group("body")):
            kind = kind_of(part.group("kind"))
            if kind is None:
                continue
            at = base + part.start("ids")
            for m in re.finditer(r"[^,\s]+", part.group("ids")):
                if m.group().startswith("+"):
                    continue
                out.append((alias_key(kind, m.group()), at + m.start(), at + m.end()))
    return out


def merged(*tables: Iterable[tuple[str, tuple[str, str]]]) -> Aliases:
    """One :class:`Aliases` from ``(alias, (kind, our id))`` pairs, the first of a repeated alias kept."""
    out: dict[str, tuple[str, str]] = {}
    for pairs in tables:
        for alias, target in pairs:
            if alias and alias not in out:
                out[alias] = target
    return Aliases(out)
