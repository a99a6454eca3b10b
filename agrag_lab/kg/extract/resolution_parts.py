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
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agrag_lab.kg.extract.resolution import (
    FormTally,
    KeyGroups,
    MentionRecord,
    ResolvedEntity,
    ShortForms,
    redirect_of,
    same_name_twins,
)
from agrag_lab.kg.schema import GENERIC, GraphSchema
from agrag_lab.kg.text import match_key

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


def _groups(parts: int, read: Callable[[int], Sequence[MentionRecord]]) -> tuple[KeyGroups, _Tally]:
    """Read 1: the union of keys (aliases, then singular forms) and the per-key tallies."""
    groups = KeyGroups()
    tally = _Tally(Counter(), defaultdict(Counter), defaultdict(Counter))
    for k in range(parts):
        for mention in read(k):
            key = groups.add(mention)
            if not key:
                continue
            tally.counts[key] += 1
            tally.labels[key][mention.label] += 1
            if mention.given:
                tally.given[key][mention.label] += 1
    groups.join_singulars()
    return groups, tally


def _per_root(groups: KeyGroups, tally: _Tally) -> _Tally:
    """The per-key tallies summed per group, in the order the whole resolution counts them (first mention first)."""
    out = _Tally(Counter(), defaultdict(Counter), defaultdict(Counter))
    for key, count in tally.counts.items():
        root = groups.find(key)
        out.counts[root] += count
        out.labels[root].update(tally.labels[key])
        if key in tally.given:
            out.given[root].update(tally.given[key])
    return out


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
    groups, per_key = _groups(parts, read)
    per_root = _per_root(groups, per_key)
    del per_key
    short = ShortForms(groups, per_root.counts, per_root.labels, per_root.given, schema)
    targets: dict[str, set[str]] = defaultdict(set)
    for k in range(parts):
        mentions = read(k)
        keys = [match_key(m.name) for m in mentions]
        for key, root in zip(keys, short.assign(mentions, keys, {}), strict=True):
            if key:
                targets[groups.find(key)].add(root)
    redirect = redirect_of(targets)
    del targets
    numbers: dict[str, int] = {"": -1}
    names: list[str] = []
    forms = FormTally()
    coded: list[array[int]] = []
    for k in range(parts):
        mentions = read(k)
        roots = short.assign(mentions, [match_key(m.name) for m in mentions], redirect)
        forms.count(mentions, roots)
        part = array("i")
        for root in roots:
            number = numbers.get(root)
            if number is None:
                number = numbers[root] = len(names)
                names.append(root)
            part.append(number)
        coded.append(part)
    entities = forms.entities(schema)
    merged = same_name_twins(entities, schema)
    if merged:
        forms.merge(merged)
        entities = forms.entities(schema)
    position = {e.key: i for i, e in enumerate(entities)}
    final = array("i", (position[merged.get(root, root)] for root in names))
    assignments = tuple(array("i", (final[n] if n >= 0 else -1 for n in part)) for part in coded)
    return PartsResolution(tuple(entities), assignments)
