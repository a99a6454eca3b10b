"""Entity resolution: which mentions, across chunks and documents, name one entity.

Names are compared by :func:`~agrag_lab.kg.text.match_key` (case, diacritics,
possessive ``'s`` and punctuation folded; for matching only). Resolution then
works in three deterministic steps:

1. **Same key, same entity.** Mentions with equal keys are one group, and a
   given entity's aliases join its name's group ("Augusta Ada King" and
   "Ada Lovelace" when metadata says so).
2. **Short forms.** A mention whose tokens are a proper suffix of a longer
   name ("Babbage" of "Charles Babbage", "Stanley Hall" of "G. Stanley Hall"),
   a single first name of a person ("Ada"), a title form ("Lord Byron" →
   "Byron", "Countess of Lovelace" → "Lovelace"), an acronym of initials
   ("U.S.", "EU" → "European Union") or a name with abbreviated given names
   ("J. Strauss II" → "Johann Strauss II") resolves to the one longer
   group it can mean: first among the groups named in full in the *same
   document*, else in the whole corpus (there only if the short form is at
   most three times as frequent as the full name). Ambiguous short forms stay
   as they are. A short form with a definite label (say Place) never joins a group
   with a different definite label.
3. **Canonical name.** The most complete frequent form: a given name first,
   then multi-word forms, then frequency, then length.

Examples
--------
>>> ms = [
...     MentionRecord("Charles Babbage", "Person", "d1"),
...     MentionRecord("Babbage", "Entity", "d2"),
...     MentionRecord("Babbage's", "Entity", "d2"),
... ]
>>> r = resolve(ms)
>>> [(e.name, e.label, e.aliases) for e in r.entities]
[('Charles Babbage', 'Person', ('Babbage',))]
>>> r.assignment
(0, 0, 0)
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from agrag_lab.kg.extract import lexicon as lx
from agrag_lab.kg.schema import GENERIC, GraphSchema
from agrag_lab.kg.text import match_key, singular_key

__all__ = [
    "FormTally",
    "KeyGroups",
    "MentionRecord",
    "Resolution",
    "ResolvedEntity",
    "Resolver",
    "ShortForms",
    "redirect_of",
    "resolve",
    "same_name_twins",
    "title_core",
]


@dataclass(frozen=True)
class MentionRecord:
    """One mention as resolution sees it.

    ``given`` marks entities stated in document metadata: their name is
    authoritative and their ``aliases`` join the same entity.
    """

    name: str
    label: str
    document_id: str
    aliases: tuple[str, ...] = ()
    given: bool = False


@dataclass(frozen=True)
class ResolvedEntity:
    """One resolved entity: its match ``key``, canonical ``name``, ``label`` and other forms."""

    key: str
    name: str
    label: str
    aliases: tuple[str, ...]


@dataclass(frozen=True)
class Resolution:
    """Resolved entities (sorted by key) and, per input mention, the index of its entity.

    A mention whose name has an empty key (only punctuation) gets ``-1``.
    """

    entities: tuple[ResolvedEntity, ...]
    assignment: tuple[int, ...]


#: A resolver maps mention records to a :class:`Resolution` (``resolve`` is the default).
Resolver = Callable[[Sequence[MentionRecord], GraphSchema], Resolution]


def title_core(key: str) -> str:
    """Drop leading titles from a match key ("of" too, before a single name).

    Examples
    --------
    >>> title_core("lord byron"), title_core("countess of lovelace"), title_core("byron")
    ('byron', 'lovelace', 'byron')
    >>> title_core("chancellor of university of kansas")
    'chancellor of university of kansas'
    """
    tokens = key.split()
    if lx.head_label(tuple(tokens)) in ("Organization", "Place", "Machine", "Event"):
        return key  # "King's College London" is no title form of "College London"
    i = 0
    while i < len(tokens) - 1 and tokens[i] in lx.PERSON_TITLES:
        i += 1
    if 0 < i < len(tokens) - 1 and tokens[i] == "of":
        if i + 2 != len(tokens):
            return key  # "Chancellor of University of Kansas" is not a form of Kansas
        i += 1
    return " ".join(tokens[i:])


#: Corpus-wide, a short form joins a longer name only if it is at most this many
#: times more frequent than the longer name.
_CORPUS_RATIO = 3


_NONE: Counter[str] = Counter()  # shared empty counter for lookups; never mutated


class KeyGroups:
    """Step 1: match keys joined into groups (a union-find whose root is a group's smallest key).

    :meth:`add` joins a mention's key and its aliases' keys; :meth:`join_singulars`
    then joins each multi-word key with its singular form's, in key order.
    """

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def add(self, mention: MentionRecord) -> str:
        """Join ``mention``'s key with its aliases' keys; return its key (``""``, joined to nothing, if empty)."""
        key = match_key(mention.name)
        if not key:
            return key
        self.find(key)
        for alias in mention.aliases:
            alias_key = match_key(alias)
            if alias_key:
                self.union(key, alias_key)
        return key

    def join_singulars(self) -> None:
        """Join each multi-word key with the first key of its singular form ("Analytical Engines", "Analytical Engine")."""
        by_singular: dict[str, str] = {}
        for key in sorted(self.parent):
            if " " in key:
                other = by_singular.setdefault(singular_key(key), key)
                if other != key:
                    self.union(other, key)

    def find(self, key: str) -> str:
        parent = self.parent.setdefault(key, key)
        if parent != key:
            parent = self.find(parent)
            self.parent[key] = parent
        return parent

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            low, high = sorted((ra, rb))
            self.parent[high] = low


def _vote_label(labels: Counter[str], given: Counter[str], schema: GraphSchema) -> str:
    pool = given if given else labels
    definite = [(count, label) for label, count in pool.items() if label != schema.default_label]
    if not definite:
        return schema.default_label
    return min(definite, key=lambda item: (-item[0], schema.label_rank(item[1])))[1]


def _compatible(mention_label: str, group_label: str, schema: GraphSchema) -> bool:
    default = schema.default_label
    return default in (mention_label, group_label) or mention_label == group_label


def _canonical(forms: Counter[str], given_names: Counter[str]) -> str:
    if given_names:
        return min(given_names.items(), key=lambda item: (-item[1], item[0]))[0]

    def score(item: tuple[str, int]) -> tuple[int, int, int, int, int, str]:
        name, count = item
        key = match_key(name)
        tokens = len(key.split())
        plural = int(singular_key(key) != key)  # "Turing Machine" names the entity, not "Turing Machines"
        return (-int(tokens > 1), -count, plural, -tokens, -len(name), name)

    return min(forms.items(), key=score)[0]


class _Index:
    """Which groups a short form may refer to.

    Suffixes ("babbage"), first names of persons ("ada"), first and last
    names of persons ("henry babbage" of "henry prevost babbage"), title cores
    ("lord byron" → "byron"), acronyms ("eu") and abbreviated given names
    ("j strauss ii").
    """

    def __init__(self, groups: dict[str, set[str]], labels: dict[str, str], schema: GraphSchema) -> None:
        self.suffix: dict[tuple[str, ...], set[str]] = defaultdict(set)
        self.first: dict[str, set[str]] = defaultdict(set)
        self.initials: dict[str, set[str]] = defaultdict(set)
        self.abbreviated: dict[tuple[str, ...], set[str]] = defaultdict(set)
        self.first_last: dict[tuple[str, str], set[str]] = defaultdict(set)
        for root in sorted(groups):
            for key in sorted(groups[root]):
                for variant in {key, title_core(key)}:
                    tokens = tuple(variant.split())
                    for i in range(1, len(tokens)):
                        # "Kansas" is a suffix of "University of Kansas" but not a
                        # form of it: no suffix starts right after a connector.
                        if tokens[i - 1] in lx.NAME_CONNECTORS:
                            continue
                        particle = tokens[i] in lx.FOREIGN_CONNECTORS and labels[root] == "Person"
                        if tokens[i] not in lx.NAME_CONNECTORS or particle:  # "De Morgan" of "Augustus De Morgan"
                            self.suffix[tokens[i:]].add(root)
                    if variant != key and tokens:
                        self.suffix[tokens].add(root)
                tokens = tuple(key.split())
                if labels[root] == "Organization":  # "British Association" of "... for the Advancement of Science"
                    for i in range(2, len(tokens) - 1):
                        if tokens[i] in ("for", "of") and tokens[i - 1] not in lx.NAME_CONNECTORS:
                            self.suffix[tokens[:i]].add(root)
                            break
                if len(tokens) > 1 and labels[root] == "Person" and tokens[0] not in lx.PERSON_TITLES:
                    self.first[tokens[0]].add(root)
                    if len(tokens) > 2 and not lx.NAME_CONNECTORS.intersection(tokens):
                        self.first_last[(tokens[0], tokens[-1])].add(root)  # "Henry Babbage"
                for k in range(1, len(tokens)):
                    if len(tokens[k - 1]) < 2:
                        break
                    self.abbreviated[(*(t[0] for t in tokens[:k]), *tokens[k:])].add(root)
                words = [t for t in tokens if t not in lx.NAME_CONNECTORS]
                if len(words) > 1:
                    self.initials["".join(w[0] for w in words)].add(root)
                    self.initials["".join(t[0] for t in tokens)].add(root)
        self.schema = schema

    def candidates(self, key: str, surface: str) -> set[str]:
        tokens = tuple(key.split())
        found = set(self.suffix.get(tokens, ()))
        letters = surface.replace(".", "").replace(" ", "")
        if 2 <= len(letters) <= 6 and letters.isalpha() and letters.isupper():
            found |= self.initials.get(letters.casefold(), set())
        if len(tokens) == 1:
            found |= self.first.get(tokens[0], set())
        elif len(tokens) == 2:
            found |= self.first_last.get((tokens[0], tokens[1]), set())
        elif len(tokens[0]) == 1:  # "J. Strauss II" → "Johann Strauss II"
            found |= self.abbreviated.get(tokens, set())
        core = title_core(key)
        if core != key:
            found |= self.suffix.get(tuple(core.split()), set())
        return found


#: A short form that could mean several names resolves to the most mentioned one
#: when it has at least this many times the mentions of the next ("Babbage" in a
#: document that also names Henry Prevost Babbage still means Charles Babbage).
_DOMINANCE = 3


def _dominant(choice: set[str], counts: Counter[str]) -> str | None:
    """The one candidate, or the candidate that dominates the others by mentions."""
    if len(choice) == 1:
        return next(iter(choice))
    if not choice:
        return None
    ranked = sorted(choice, key=lambda r: (-counts[r], r))
    return ranked[0] if counts[ranked[0]] >= _DOMINANCE * counts[ranked[1]] else None


def resolve(mentions: Sequence[MentionRecord], schema: GraphSchema = GENERIC) -> Resolution:
    """Resolve ``mentions`` to entities (see the module docstring for the rules).

    The result does not depend on the order of ``mentions`` beyond the
    assignment list, which follows the input.

    Examples
    --------
    >>> ms = [
    ...     MentionRecord("Ada Lovelace", "Person", "a", ("Augusta Ada King",), given=True),
    ...     MentionRecord("Augusta Ada King", "Person", "b"),
    ...     MentionRecord("Lovelace", "Entity", "c"),
    ...     MentionRecord("Ada", "Entity", "c"),
    ... ]
    >>> r = resolve(ms)
    >>> [e.name for e in r.entities], r.assignment
    (['Ada Lovelace'], (0, 0, 0, 0))
    """
    groups = KeyGroups()
    keys = [groups.add(m) for m in mentions]
    groups.join_singulars()  # "Analytical Engines" is the "Analytical Engine"
    counts: Counter[str] = Counter()
    label_votes: dict[str, Counter[str]] = defaultdict(Counter)
    given_votes: dict[str, Counter[str]] = defaultdict(Counter)
    for mention, key in zip(mentions, keys, strict=True):
        if key:
            root = groups.find(key)
            label_votes[root][mention.label] += 1
            counts[root] += 1
            if mention.given:
                given_votes[root][mention.label] += 1
    short = ShortForms(groups, counts, label_votes, given_votes, schema)
    # Round two sees groups that round one merged away as their targets, so
    # "Lovelace" is not ambiguous between "Ada Lovelace" and "Countess of
    # Lovelace" once the latter resolved to the former.
    first = short.assign(mentions, keys, {})
    targets: dict[str, set[str]] = defaultdict(set)
    for key, root in zip(keys, first, strict=True):
        if key:
            targets[groups.find(key)].add(root)
    redirect = redirect_of(targets)
    roots = short.assign(mentions, keys, redirect) if redirect else first

    entities = _entities(mentions, roots, schema)
    merged = same_name_twins(entities, schema)
    if merged:
        roots = [merged.get(r, r) for r in roots]
        entities = _entities(mentions, roots, schema)
    position = {e.key: i for i, e in enumerate(entities)}
    return Resolution(tuple(entities), tuple(position[r] if r else -1 for r in roots))


class ShortForms:
    """Step 2 (short forms) over the corpus's groups: which group each mention joins.

    Parameters
    ----------
    groups : KeyGroups
        The corpus's keys, joined (step 1).
    counts : Counter
        Mentions per group root.
    labels, given : mapping
        Label votes and given label votes per group root.
    schema : GraphSchema
        Which labels are definite, and their rank.
    """

    def __init__(self, groups: KeyGroups, counts: Counter[str], labels: Mapping[str, Counter[str]],
                 given: Mapping[str, Counter[str]], schema: GraphSchema) -> None:
        members: dict[str, set[str]] = defaultdict(set)
        for key in list(groups.parent):
            members[groups.find(key)].add(key)
        self.groups = groups
        self.counts = counts
        self.labels = {r: _vote_label(labels.get(r, _NONE), given.get(r, _NONE), schema) for r in members}
        self.index = _Index(members, self.labels, schema)
        self.schema = schema

    def assign(self, mentions: Sequence[MentionRecord], keys: Sequence[str], redirect: Mapping[str, str]
               ) -> list[str]:
        """Each mention's group root once its short form is resolved (``""`` for an empty key).

        ``keys`` are the mentions' match keys. ``mentions`` must hold whole
        documents: a short form first looks among the groups its own document
        names. ``redirect`` sends a group round one merged away to its target
        (round two, :func:`redirect_of`; empty for round one).
        """
        groups, schema, counts = self.groups, self.schema, self.counts
        documents: dict[str, set[str]] = defaultdict(set)
        local_counts: Counter[tuple[str, str]] = Counter()
        for mention, key in zip(mentions, keys, strict=True):
            if key:
                root = groups.find(key)
                documents[root].add(mention.document_id)
                local_counts[(root, mention.document_id)] += 1
        roots: list[str] = []
        cache: dict[tuple[str, str, str], str] = {}  # (name, label, document) → root
        for mention, key in zip(mentions, keys, strict=True):
            if not key:
                roots.append("")
                continue
            own = groups.find(key)
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
                if local:  # "Henry" in the document about Henry Prevost Babbage means him
                    in_document = Counter({r: local_counts[(r, mention.document_id)] for r in local})
                    cache[memo] = _dominant(local, in_document) or _dominant(local, counts) or own
                else:
                    # A short form far more frequent than the one full name it could mean
                    # is an entity of its own ("United States" vs "Southern United States").
                    choice = {r for r in found if counts[own] <= _CORPUS_RATIO * counts[r]}
                    cache[memo] = _dominant(choice, counts) or own
            roots.append(cache[memo])
        return roots


def redirect_of(targets: Mapping[str, set[str]]) -> dict[str, str]:
    """Round two's redirect: each group whose mentions round one sent all to one other group, to that group.

    ``targets`` maps a group root to the roots its mentions went to in round one.

    Examples
    --------
    >>> redirect_of({"countess of lovelace": {"ada lovelace"}, "ada": {"ada", "ada lovelace"}})
    {'countess of lovelace': 'ada lovelace'}
    """
    return {g: next(iter(t)) for g, t in targets.items() if len(t) == 1 and g not in t}


def same_name_twins(entities: Sequence[ResolvedEntity], schema: GraphSchema) -> dict[str, str]:
    """Step 3's merge: each entity whose name (or its singular) an earlier entity of an agreeing label
    also has, by key, to that entity's key.

    Two groups that end up under one name are one entity ("Ada Lovelace" named
    in full where "Augusta Ada Lovelace" also is, and elsewhere).
    """
    same: dict[str, ResolvedEntity] = {}
    merged: dict[str, str] = {}
    for entity in entities:
        name_key = match_key(entity.name)
        twin = same.setdefault(singular_key(name_key) if " " in name_key else name_key, entity)
        if twin is not entity and _compatible(entity.label, twin.label, schema):
            merged[entity.key] = twin.key
    return merged


def _tables() -> dict[str, Counter[str]]:
    return defaultdict(Counter)


@dataclass
class FormTally:
    """Per group root, what step 3 reads of the mentions assigned to it: surface forms, given names,
    label votes, given label votes and given aliases (:meth:`count`, then :meth:`entities`)."""

    forms: dict[str, Counter[str]] = field(default_factory=_tables)
    given_names: dict[str, Counter[str]] = field(default_factory=_tables)
    votes: dict[str, Counter[str]] = field(default_factory=_tables)
    given_labels: dict[str, Counter[str]] = field(default_factory=_tables)
    extra_aliases: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    def count(self, mentions: Sequence[MentionRecord], roots: Sequence[str]) -> None:
        """Count each mention under its root (a mention with root ``""`` is left out)."""
        for mention, root in zip(mentions, roots, strict=True):
            if not root:
                continue
            surface = _clean_surface(mention.name)
            self.forms[root][surface] += 1
            self.votes[root][mention.label] += 1
            if mention.given:
                self.given_names[root][surface] += 1
                self.given_labels[root][mention.label] += 1
                self.extra_aliases[root].update(_clean_surface(a) for a in mention.aliases)

    def merge(self, merged: Mapping[str, str]) -> None:
        """Fold each merged root's tallies into its twin's (the tallies of its mentions re-assigned to the twin)."""
        tables = (self.forms, self.given_names, self.votes, self.given_labels)
        for root, twin in merged.items():
            for table in tables:
                found = table.pop(root, None)
                if found:
                    table[twin].update(found)
            aliases = self.extra_aliases.pop(root, None)
            if aliases:
                self.extra_aliases[twin] |= aliases

    def entities(self, schema: GraphSchema) -> list[ResolvedEntity]:
        """The resolved entity of each root counted, sorted by root: canonical name, other forms, voted label."""
        entities = []
        for root in sorted(self.forms):
            name = _canonical(self.forms[root], self.given_names.get(root, _NONE))
            aliases = (set(self.forms[root]) | self.extra_aliases.get(root, set())) - {name, ""}
            label = _vote_label(self.votes[root], self.given_labels.get(root, _NONE), schema)
            entities.append(ResolvedEntity(root, name, label, tuple(sorted(aliases))))
        return entities


def _entities(mentions: Sequence[MentionRecord], roots: Sequence[str], schema: GraphSchema) -> list[ResolvedEntity]:
    """The resolved entities of a root assignment, sorted by root."""
    tally = FormTally()
    tally.count(mentions, roots)
    return tally.entities(schema)


def _clean_surface(name: str) -> str:
    name = " ".join(name.split())
    for suffix in ("'s", "’s"):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name.rstrip("'’")
