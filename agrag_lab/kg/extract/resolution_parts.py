"""Entity resolution of a corpus read in parts: :func:`~agrag_lab.kg.extract.resolution.resolve`'s result, no mention list held.

:func:`resolve_parts` returns what :func:`~agrag_lab.kg.extract.resolution.resolve` of
every part's mention records, concatenated in part order, returns, while it
holds one part's records at a time. Resolution's rules are corpus-wide, but
each needs only tallies or one document's mentions, and a document's mentions
lie in one part (the streamed build gives whole documents per slice):

1. **Groups** (keys joined by aliases and singular forms): a union of keys;
   the union-find keeps the smallest key as a group's root, whatever the
   order the keys come in. Read 1 tallies mentions, label votes and given
   label votes per key; they are summed per group once the groups are known.
2. **Short forms**, rounds one and two: a mention's choice needs the corpus's
   index of groups and the tallies (global, one entry per key or group) and
   which groups its own document names, and how often (that document's
   mentions, all in the part being read). Read 2 runs round one and keeps,
   per group, the set of roots its mentions went to (the redirect of round
   two); read 3 runs round two, keeps each mention's root as a number, and
   tallies forms, label votes, given names and aliases per root.
3. **Canonical names** and the merge of groups that end under one name: from
   the per-root tallies, merged by summing them (what
   :func:`~agrag_lab.kg.extract.resolution.resolve` recomputes over the mentions).

What is held: per key, its group and tallies; per group, the short-form index;
per part, one small integer per mention (``array('i')``).

Examples
--------
>>> from agrag_lab.kg.extract.resolution import resolve
>>> parts = [[MentionRecord("Charles Babbage", "Person", "d1")],
...          [MentionRecord("Babbage", "Entity", "d2"), MentionRecord("Babbage's", "Entity", "d2")]]
>>> found = resolve_parts(len(parts), parts.__getitem__)
>>> whole = resolve([m for part in parts for m in part])
>>> found.entities == whole.entities, [list(a) for a in found.assignments]
(True, [[0], [0, 0]])
"""

from __future__ import annotations

from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from agrag_lab.kg.extract.resolution import (
    _CORPUS_RATIO,
    _NONE,
    MentionRecord,
    ResolvedEntity,
    _canonical,
    _clean_surface,
    _compatible,
    _dominant,
    _Index,
    _UnionFind,
    _vote_label,
)
from agrag_lab.kg.schema import GENERIC, GraphSchema
from agrag_lab.kg.text import match_key, singular_key

__all__ = ["PartsResolution", "resolve_parts"]


@dataclass(frozen=True)
class PartsResolution:
    """Resolved entities (sorted by key, as :class:`~agrag_lab.kg.extract.resolution.Resolution`'s) and, per part, the
    index of each of its mentions' entity (``-1``: a name with an empty key)."""

    entities: tuple[ResolvedEntity, ...]
    assignments: tuple[array[int], ...]


@dataclass
class _Tally:
    """Per root (or key): mentions, label votes, given label votes."""

    counts: Counter[str]
    labels: dict[str, Counter[str]]
    given: dict[str, Counter[str]]


@dataclass
class _Forms:
    """Per root, what :func:`agrag_lab.kg.extract.resolution._entities` counts over the mentions."""

    forms: dict[str, Counter[str]]
    given_names: dict[str, Counter[str]]
    votes: dict[str, Counter[str]]
    given_labels: dict[str, Counter[str]]
    extra_aliases: dict[str, set[str]]


def _groups(parts: int, read: Callable[[int], Sequence[MentionRecord]]) -> tuple[_UnionFind, _Tally]:
    """Read 1: the union of keys (aliases, then singular forms) and the per-key tallies."""
    uf = _UnionFind()
    tally = _Tally(Counter(), defaultdict(Counter), defaultdict(Counter))
    for k in range(parts):
        for mention in read(k):
            key = match_key(mention.name)
            if not key:
                continue
            uf.find(key)
            for alias in mention.aliases:
                alias_key = match_key(alias)
                if alias_key:
                    uf.union(key, alias_key)
            tally.counts[key] += 1
            tally.labels[key][mention.label] += 1
            if mention.given:
                tally.given[key][mention.label] += 1
    by_singular: dict[str, str] = {}
    for key in sorted(uf.parent):
        if " " in key:
            other = by_singular.setdefault(singular_key(key), key)
            if other != key:
                uf.union(other, key)
    return uf, tally


def _per_root(uf: _UnionFind, tally: _Tally) -> _Tally:
    """The per-key tallies summed per group, in the order the whole resolution counts them (first mention first)."""
    out = _Tally(Counter(), defaultdict(Counter), defaultdict(Counter))
    for key, count in tally.counts.items():
        root = uf.find(key)
        out.counts[root] += count
        out.labels[root].update(tally.labels[key])
        if key in tally.given:
            out.given[root].update(tally.given[key])
    return out


class _Assigner:
    """Rounds one and two of :func:`agrag_lab.kg.extract.resolution.resolve`'s short forms, a part's mentions at a time."""

    def __init__(self, uf: _UnionFind, tally: _Tally, schema: GraphSchema) -> None:
        groups: dict[str, set[str]] = defaultdict(set)
        for key in list(uf.parent):
            groups[uf.find(key)].add(key)
        self.uf = uf
        self.counts = tally.counts
        self.labels = {r: _vote_label(tally.labels.get(r, _NONE), tally.given.get(r, _NONE), schema) for r in groups}
        self.index = _Index(groups, self.labels, schema)
        self.schema = schema

    def roots(self, mentions: Sequence[MentionRecord], redirect: Mapping[str, str]) -> tuple[list[str], list[str]]:
        """Each mention's key and root (``""`` for an empty key); the part holds whole documents."""
        uf, schema = self.uf, self.schema
        keys = [match_key(m.name) for m in mentions]
        documents: dict[str, set[str]] = defaultdict(set)
        local_counts: Counter[tuple[str, str]] = Counter()
        for mention, key in zip(mentions, keys, strict=True):
            if key:
                root = uf.find(key)
                documents[root].add(mention.document_id)
                local_counts[(root, mention.document_id)] += 1
        roots: list[str] = []
        cache: dict[tuple[str, str, str], str] = {}
        for mention, key in zip(mentions, keys, strict=True):
            if not key:
                roots.append("")
                continue
            own = uf.find(key)
            if mention.given:
                roots.append(own)
                continue
            memo = (mention.name, mention.label, mention.document_id)
            if memo not in cache:
                found = {
                    redirect.get(r, r)
                    for r in self.index.candidates(key, mention.name)
                    if r != own and _compatible(mention.label, self.labels[r], schema)
                } - {own}
                local = {r for r in found if mention.document_id in documents.get(r, ())}
                if local:
                    in_document = Counter({r: local_counts[(r, mention.document_id)] for r in local})
                    cache[memo] = _dominant(local, in_document) or _dominant(local, self.counts) or own
                else:
                    choice = {r for r in found if self.counts[own] <= _CORPUS_RATIO * self.counts[r]}
                    cache[memo] = _dominant(choice, self.counts) or own
            roots.append(cache[memo])
        return keys, roots


def _count_forms(forms: _Forms, mentions: Sequence[MentionRecord], roots: Sequence[str]) -> None:
    for mention, root in zip(mentions, roots, strict=True):
        if not root:
            continue
        surface = _clean_surface(mention.name)
        forms.forms[root][surface] += 1
        forms.votes[root][mention.label] += 1
        if mention.given:
            forms.given_names[root][surface] += 1
            forms.given_labels[root][mention.label] += 1
            forms.extra_aliases[root].update(_clean_surface(a) for a in mention.aliases)


def _entities(forms: _Forms, schema: GraphSchema) -> list[ResolvedEntity]:
    entities = []
    for root in sorted(forms.forms):
        name = _canonical(forms.forms[root], forms.given_names.get(root, _NONE))
        aliases = (set(forms.forms[root]) | forms.extra_aliases.get(root, set())) - {name, ""}
        label = _vote_label(forms.votes[root], forms.given_labels.get(root, _NONE), schema)
        entities.append(ResolvedEntity(root, name, label, tuple(sorted(aliases))))
    return entities


def _merge(forms: _Forms, merged: Mapping[str, str]) -> None:
    """Fold each merged root's tallies into its twin's (the tallies of the mentions re-assigned to the twin)."""
    for root, twin in merged.items():
        tables: tuple[dict[str, Counter[str]], ...] = (forms.forms, forms.given_names, forms.votes,
                                                       forms.given_labels)
        for table in tables:
            found = table.pop(root, None)
            if found:
                table[twin].update(found)
        aliases = forms.extra_aliases.pop(root, None)
        if aliases:
            forms.extra_aliases[twin] |= aliases


def resolve_parts(
    parts: int, read: Callable[[int], Sequence[MentionRecord]], schema: GraphSchema = GENERIC
) -> PartsResolution:
    """Resolve the mention records of ``parts`` parts, each read three times with ``read(k)``, as
    :func:`~agrag_lab.kg.extract.resolution.resolve` resolves them all at once (see the module docstring).

    Parameters
    ----------
    parts : int
        How many parts.
    read : callable
        ``read(k)`` returns part ``k``'s records, the same each time; a document's
        records all lie in one part.
    schema : GraphSchema
        As :func:`~agrag_lab.kg.extract.resolution.resolve`'s.

    Returns
    -------
    PartsResolution
        The whole resolution's entities; its assignment cut per part.
    """
    uf, per_key = _groups(parts, read)
    assigner = _Assigner(uf, _per_root(uf, per_key), schema)
    del per_key
    targets: dict[str, set[str]] = defaultdict(set)
    for k in range(parts):
        keys, first = assigner.roots(read(k), {})
        for key, root in zip(keys, first, strict=True):
            if key:
                targets[uf.find(key)].add(root)
    redirect = {g: next(iter(t)) for g, t in targets.items() if len(t) == 1 and g not in t}
    del targets
    numbers: dict[str, int] = {"": -1}
    names: list[str] = []
    forms = _Forms(defaultdict(Counter), defaultdict(Counter), defaultdict(Counter), defaultdict(Counter),
                   defaultdict(set))
    coded: list[array[int]] = []
    for k in range(parts):
        mentions = read(k)
        _keys, roots = assigner.roots(mentions, redirect)
        _count_forms(forms, mentions, roots)
        part = array("i")
        for root in roots:
            number = numbers.get(root)
            if number is None:
                number = numbers[root] = len(names)
                names.append(root)
            part.append(number)
        coded.append(part)
    entities = _entities(forms, schema)
    same: dict[str, ResolvedEntity] = {}
    merged: dict[str, str] = {}
    for entity in entities:
        name_key = match_key(entity.name)
        twin = same.setdefault(singular_key(name_key) if " " in name_key else name_key, entity)
        if twin is not entity and _compatible(entity.label, twin.label, schema):
            merged[entity.key] = twin.key
    if merged:
        _merge(forms, merged)
        entities = _entities(forms, schema)
    position = {e.key: i for i, e in enumerate(entities)}
    final = array("i", (position[merged.get(root, root)] for root in names))
    assignments = tuple(array("i", (final[n] if n >= 0 else -1 for n in part)) for part in coded)
    return PartsResolution(tuple(entities), assignments)
