"""Edits of a graph as data: frozen edit values and the pure functions that apply them.

An edit names what it changes by ids (entities by id, relations by
``(source, target, type)``, documents by id) and :func:`apply_edit` returns
new :class:`GraphParts` (the graph, its communities and reports) and the ids
it redirected; nothing is changed in place. An edit that does not apply to
the graph it meets (an entity gone, a relation already retyped) raises
:class:`EditConflictError`, which says why: the edit log
(:mod:`agrag_lab.index.edit_log`) reports it and keeps the edit.

- :class:`MergeEntities`: the others go into ``into`` (its id is kept; the
  others' ids redirect to it). Names become aliases; descriptions, passages,
  documents, forms, claims and builder attributes are combined; relations are
  moved to the kept entity (two that become one are combined; one between two
  merged entities is dropped), mentions, communities and reports follow.
- :class:`SplitEntity`: the passages named move to a new entity (``ent-<slug
  of its name>``) with the relations they support.
- :class:`RenameEntity`: a new name; the old one becomes an alias, the id stays.
- :class:`DeleteEntity`, :class:`DeleteRelation`, :class:`RetypeRelation`.
- :class:`DeleteDocument`: its passages leave the graph, and so does every
  entity and relation that only they supported.

Examples
--------
>>> from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
>>> kg = KnowledgeGraph.create(
...     [Entity("ent-ada", "Ada", "Person", chunk_ids=("d@1#c0",), document_ids=("d",)),
...      Entity("ent-ada-lovelace", "Ada Lovelace", "Person", chunk_ids=("d@1#c1",), document_ids=("d",)),
...      Entity("ent-bab", "Babbage", "Person", chunk_ids=("d@1#c1",), document_ids=("d",))],
...     [Edge("ent-ada-lovelace", "ent-bab", "WORKED_WITH", ("d@1#c1",))],
...     chunk_documents={"d@1#c0": "d", "d@1#c1": "d"},
... )
>>> done = apply_edit(GraphParts(kg), MergeEntities("ent-ada-lovelace", ("ent-ada",)))
>>> merged = done.parts.graph.entities["ent-ada-lovelace"]
>>> merged.aliases, merged.chunk_ids, dict(done.redirects)
(('Ada',), ('d@1#c0', 'd@1#c1'), {'ent-ada': 'ent-ada-lovelace'})
>>> apply_edit(done.parts, RenameEntity("ent-ada", "Countess"))
Traceback (most recent call last):
...
agrag_lab.errors.EditConflictError: rename ent-ada to 'Countess': no current entity 'ent-ada' in the graph (merged, deleted or renamed by a rebuild?); undo this edit or make it again
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from types import MappingProxyType
from typing import ClassVar, Literal

from agrag_lab.errors import ArgumentError
from agrag_lab.errors import EditConflictError as EditConflictError  # re-exported (its home: agrag_lab.errors)
from agrag_lab.kg.communities import Community
from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
from agrag_lab.kg.reports import CommunityReport
from agrag_lab.kg.text import natural_key, slugify

__all__ = [
    "EDIT_KINDS", "Applied", "DeleteDocument", "DeleteEntity", "DeleteRelation", "Edit", "EditConflictError",
    "GraphParts", "MergeEntities", "RenameEntity", "RetypeRelation", "SplitEntity", "apply_edit", "edit_from_dict",
    "edit_to_dict",
]

#: The attribute a merged entity lists the ids merged into it under (space-separated), for exports and readers.
MERGED_IDS = "merged_ids"


class _Said:
    """An edit kind whose description is its fields put into :attr:`says` (``str.format`` fields by name)."""

    says: ClassVar[str]

    def describe(self) -> str:
        """The edit in words, for its log and its errors."""
        return self.says.format_map(vars(self))


@dataclass(frozen=True)
class MergeEntities:
    """Merge ``others`` into ``into`` (its id kept); ``name``: the merged entity's name (default: ``into``'s)."""

    into: str
    others: tuple[str, ...]
    name: str = ""
    kind: Literal["merge"] = "merge"

    def describe(self) -> str:
        return f"merge {', '.join(self.others)} into {self.into}"


@dataclass(frozen=True)
class SplitEntity:
    """Move ``chunk_ids`` (passages of ``entity``) to a new entity named ``name`` (label: ``label`` or the entity's)."""

    entity: str
    chunk_ids: tuple[str, ...]
    name: str
    label: str = ""
    kind: Literal["split"] = "split"

    def describe(self) -> str:
        return f"split {len(self.chunk_ids)} passages of {self.entity} into {self.name!r}"


@dataclass(frozen=True)
class RenameEntity(_Said):
    """Give ``entity`` the name ``name`` (the old name becomes an alias; the id stays)."""

    says: ClassVar[str] = "rename {entity} to {name!r}"
    entity: str
    name: str
    kind: Literal["rename"] = "rename"


@dataclass(frozen=True)
class DeleteEntity(_Said):
    """Delete ``entity``, its relations, mentions and community memberships."""

    says: ClassVar[str] = "delete {entity}"
    entity: str
    kind: Literal["delete_entity"] = "delete_entity"


@dataclass(frozen=True)
class _OfRelation(_Said):
    """An edit of the relation ``(source, target, type)``."""

    source: str
    target: str
    type: str

    @property
    def key(self) -> tuple[str, str, str]:
        """The relation's key, as :attr:`Edge.key <agrag_lab.kg.model.Edge.key>` spells it."""
        return self.source, self.target, self.type


@dataclass(frozen=True)
class DeleteRelation(_OfRelation):
    """Delete the relation ``(source, target, type)``."""

    says: ClassVar[str] = "delete the relation {source} -{type}-> {target}"
    kind: Literal["delete_relation"] = "delete_relation"


@dataclass(frozen=True)
class RetypeRelation(_OfRelation):
    """Give the relation ``(source, target, type)`` the type ``new_type`` (combined with one already of that type)."""

    says: ClassVar[str] = "retype {source} -{type}-> {target} as {new_type}"
    new_type: str
    kind: Literal["retype"] = "retype"


@dataclass(frozen=True)
class DeleteDocument(_Said):
    """Delete ``document``'s passages from the graph, and what only they supported."""

    says: ClassVar[str] = "delete the document {document}"
    document: str
    kind: Literal["delete_document"] = "delete_document"


Edit = MergeEntities | SplitEntity | RenameEntity | DeleteEntity | DeleteRelation | RetypeRelation | DeleteDocument
#: Each edit kind by its ``kind`` tag.
EDIT_KINDS: Mapping[str, type[Edit]] = MappingProxyType({
    "merge": MergeEntities, "split": SplitEntity, "rename": RenameEntity, "delete_entity": DeleteEntity,
    "delete_relation": DeleteRelation, "retype": RetypeRelation, "delete_document": DeleteDocument,
})


def edit_to_dict(edit: Edit) -> dict[str, object]:
    """A JSON-ready dict of an edit (tuples as lists); :func:`edit_from_dict` reads it back."""
    return {name: list(v) if isinstance(v, tuple) else v for name, v in asdict(edit).items()}


def edit_from_dict(data: Mapping[str, object]) -> Edit:
    """The edit :func:`edit_to_dict` wrote.

    Raises
    ------
    ArgumentError
        An unknown kind, or fields that do not fit it.
    """
    kind = str(data.get("kind", ""))
    cls = EDIT_KINDS.get(kind)
    if cls is None:
        raise ArgumentError(f"unknown edit kind {kind!r}; the kinds are {', '.join(EDIT_KINDS)}")
    try:
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})  # type: ignore[arg-type]
    except TypeError as exc:
        raise ArgumentError(f"a {kind} edit with fields it does not have ({exc}); fields: "
                            f"{', '.join(cls.__dataclass_fields__)}") from None


@dataclass(frozen=True)
class GraphParts:
    """A graph with its communities and reports: what an edit changes."""

    graph: KnowledgeGraph
    communities: tuple[Community, ...] = ()
    reports: tuple[CommunityReport, ...] = ()


@dataclass(frozen=True)
class Applied:
    """An edit's result: the new parts, the ids now redirected (``old -> new``) and what it changed, in words."""

    parts: GraphParts
    redirects: Mapping[str, str] = field(default_factory=dict)
    changed: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "redirects", MappingProxyType(dict(self.redirects)))


# -- helpers ----------------------------------------------------------------------------------


def _conflict(edit: Edit, why: str) -> EditConflictError:
    return EditConflictError(f"{edit.describe()}: {why}; undo this edit or make it again")


def _entity(graph: KnowledgeGraph, entity_id: str, edit: Edit) -> Entity:
    found = graph.entities.get(entity_id)
    if found is None:
        raise _conflict(edit, f"no current entity {entity_id!r} in the graph (merged, deleted or renamed by a rebuild?)")
    return found


def _edge(graph: KnowledgeGraph, key: tuple[str, str, str], edit: Edit) -> Edge:
    found = graph.edge_index.get(key)
    if found is None:
        raise _conflict(edit, f"no relation {key[0]} -{key[2]}-> {key[1]} in the graph")
    return found


def _union(*groups: Iterable[str]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for group in groups:
        seen.update(dict.fromkeys(group))
    return tuple(sorted(seen, key=natural_key))


def _first_per_key(pairs: Iterable[tuple[str, str]], key: Callable[[tuple[str, str]], str]) -> tuple[tuple[str, str], ...]:
    seen: dict[str, tuple[str, str]] = {}
    for pair in pairs:
        seen.setdefault(key(pair), pair)
    return tuple(seen.values())


def _combine_edges(a: Edge, b: Edge) -> Edge:
    """One relation from two of one key: support united, descriptions joined, ``a``'s attributes first."""
    description = "\n".join(dict.fromkeys(d for d in (a.description, b.description) if d))
    keys = {k for k, _ in a.attributes}
    return replace(
        a,
        chunk_ids=_union(a.chunk_ids, b.chunk_ids),
        history_chunk_ids=_union(a.history_chunk_ids, b.history_chunk_ids),
        sentences=_first_per_key((*a.sentences, *b.sentences), lambda s: s[0]),
        description=description,
        attributes=tuple(sorted((*a.attributes, *(kv for kv in b.attributes if kv[0] not in keys)))),
    )


def _collect_edges(edges: Iterable[Edge]) -> list[Edge]:
    """Edges with relations of one key combined (first one's fields first)."""
    by_key: dict[tuple[str, str, str], Edge] = {}
    for e in edges:
        by_key[e.key] = _combine_edges(by_key[e.key], e) if e.key in by_key else e
    return list(by_key.values())


def _rebuild(
    graph: KnowledgeGraph,
    entities: Iterable[Entity],
    edges: Iterable[Edge],
    *,
    history_entities: Iterable[Entity] | None = None,
    history_edges: Iterable[Edge] | None = None,
    mentions: Mapping[str, Iterable[str]] | None = None,
    chunk_documents: Mapping[str, str] | None = None,
    current_chunks: Iterable[str] | None = None,
) -> KnowledgeGraph:
    return KnowledgeGraph.create(
        entities, edges,
        graph.history_entities.values() if history_entities is None else history_entities,
        graph.history_edges if history_edges is None else history_edges,
        graph.mentions if mentions is None else mentions,
        graph.chunk_documents if chunk_documents is None else chunk_documents,
        graph.current_chunks if current_chunks is None else current_chunks,
        graph.schema,
    )


def _map_ids(ids: Iterable[str], mapping: Mapping[str, str | None]) -> tuple[str, ...]:
    """Ids through ``mapping`` (None: dropped), duplicates removed, order kept."""
    out: dict[str, None] = {}
    for i in ids:
        new = mapping.get(i, i)
        if new is not None:
            out.setdefault(new)
    return tuple(out)


def _follow(parts: GraphParts, graph: KnowledgeGraph, mapping: Mapping[str, str | None],
            dropped_edges: Iterable[tuple[str, str, str]] = ()) -> GraphParts:
    """Communities and reports after entity ids moved or went (``mapping``) and relations went."""
    gone = set(dropped_edges)
    communities = tuple(replace(c, members=tuple(sorted(_map_ids(c.members, mapping)))) for c in parts.communities)
    reports = []
    for r in parts.reports:
        names = dict(zip(r.key_entities, r.key_entity_names, strict=False))
        kept: dict[str, str] = {}
        for entity_id in r.key_entities:
            new = mapping.get(entity_id, entity_id)
            if new is not None and new not in kept:
                kept[new] = names.get(entity_id, "")
        relations = []
        for s, t, o in r.key_relations:
            ns, no = mapping.get(s, s), mapping.get(o, o)
            if ns is not None and no is not None and ns != no and (s, o, t) not in gone:
                relations.append((ns, t, no))
        entity_names = tuple(kept.values()) if r.key_entity_names else ()
        reports.append(replace(r, key_entities=tuple(kept), key_entity_names=entity_names,
                               key_relations=tuple(dict.fromkeys(relations))))
    return GraphParts(graph, communities, tuple(reports))


# -- the edits ----------------------------------------------------------------------------------


def _merge(parts: GraphParts, edit: MergeEntities) -> Applied:
    graph = parts.graph
    if not edit.others:
        raise ArgumentError(f"{edit.describe()}: name at least one entity to merge into {edit.into}")
    if edit.into in edit.others:
        raise ArgumentError(f"{edit.describe()}: {edit.into} cannot be merged into itself; leave it out of others")
    kept = _entity(graph, edit.into, edit)
    others = [_entity(graph, o, edit) for o in dict.fromkeys(edit.others)]
    group = [kept, *others]
    name = edit.name.strip() or kept.name
    names = {n for e in group for n in (e.name, *e.aliases)} - {name}
    merged_ids = _union(*(str(dict(e.attributes).get(MERGED_IDS, "")).split() for e in group), (o.id for o in others))
    attributes: dict[str, str | int | float | bool] = {}
    for e in group:
        for k, v in e.attributes:
            attributes.setdefault(k, v)
    attributes[MERGED_IDS] = " ".join(merged_ids)
    merged = replace(
        kept,
        name=name,
        aliases=tuple(sorted(names)),
        description="\n".join(dict.fromkeys(e.description for e in group if e.description)),
        chunk_ids=_union(*(e.chunk_ids for e in group)),
        history_chunk_ids=_union(*(e.history_chunk_ids for e in group)),
        document_ids=tuple(sorted({d for e in group for d in e.document_ids})),
        descriptions=_first_per_key((d for e in group for d in e.descriptions),
                                    lambda d: graph.chunk_documents.get(d[0], d[0])),
        forms=tuple(sorted({f for e in group for f in e.forms})),
        attributes=tuple(sorted(attributes.items())),
        claims=tuple(dict.fromkeys(c for e in group for c in e.claims)),
    )
    gone = {o.id for o in others}
    mapping: dict[str, str | None] = dict.fromkeys(gone, kept.id)
    inside = gone | {kept.id}
    dropped = [e.key for e in graph.edges if e.source in inside and e.target in inside and e.source != e.target]

    def moved(e: Edge) -> Edge:
        return replace(e, source=mapping.get(e.source) or e.source, target=mapping.get(e.target) or e.target)

    edges = _collect_edges(moved(e) for e in graph.edges if e.key not in set(dropped))
    history_edges = _collect_edges(moved(e) for e in graph.history_edges
                                   if not (e.source in inside and e.target in inside and e.source != e.target))
    entities = [merged if e.id == kept.id else e for e in graph.entities.values() if e.id not in gone]
    mentions = {c: _map_ids(ids, mapping) for c, ids in graph.mentions.items()}
    new = _rebuild(graph, entities, edges, history_edges=history_edges, mentions=mentions,
                   history_entities=[e for e in graph.history_entities.values() if e.id not in gone])
    changed = f"{len(others)} entities merged into {kept.id} ({len(dropped)} relations between them dropped)"
    return Applied(_follow(parts, new, mapping, dropped), dict.fromkeys(gone, kept.id), changed)


def _split(parts: GraphParts, edit: SplitEntity) -> Applied:
    graph = parts.graph
    source = _entity(graph, edit.entity, edit)
    moving = set(edit.chunk_ids)
    if not moving or not edit.name.strip():
        raise ArgumentError(f"{edit.describe()}: name the passages that move and the new entity's name")
    unknown = sorted(moving - set(source.chunk_ids))
    if unknown:
        raise _conflict(edit, f"{', '.join(unknown[:3])} no longer mention {source.id}")
    if moving == set(source.chunk_ids):
        raise ArgumentError(f"{edit.describe()}: every passage of {source.id} would move; rename it instead")
    new_id = f"ent-{slugify(edit.name)}"
    if graph.entity(new_id) is not None:
        raise _conflict(edit, f"an entity {new_id!r} exists already; merge into it, or choose another name")
    documents = graph.chunk_documents

    def part(chunks: tuple[str, ...], base: Entity, entity_id: str, name: str, label: str) -> Entity:
        docs = {documents.get(c, "") for c in chunks} - {""}
        descriptions = tuple(d for d in base.descriptions if d[0] in chunks)
        return replace(
            base, id=entity_id, name=name, label=label,
            aliases=base.aliases if entity_id == base.id else (),
            description=base.description if entity_id == base.id else (descriptions[0][1] if descriptions else ""),
            chunk_ids=chunks, document_ids=tuple(sorted(docs)), descriptions=descriptions,
            forms=tuple(f for f in base.forms if f[0] in docs),
            history_chunk_ids=base.history_chunk_ids if entity_id == base.id else (),
            attributes=base.attributes if entity_id == base.id else (),
            claims=tuple(c for c in base.claims if entity_id == base.id),
        )

    stays = tuple(c for c in source.chunk_ids if c not in moving)
    moved_chunks = tuple(c for c in source.chunk_ids if c in moving)
    new_entity = part(moved_chunks, source, new_id, edit.name.strip(), edit.label or source.label)
    entities = [part(stays, source, source.id, source.name, source.label) if e.id == source.id else e
                for e in graph.entities.values()] + [new_entity]
    edges: list[Edge] = []
    for e in graph.edges:
        if source.id not in (e.source, e.target) or not (set(e.chunk_ids) & moving):
            edges.append(e)
            continue
        there = tuple(c for c in e.chunk_ids if c in moving)
        here = tuple(c for c in e.chunk_ids if c not in moving)
        swap = {source.id: new_id}
        edges.append(replace(e, source=swap.get(e.source, e.source), target=swap.get(e.target, e.target),
                             chunk_ids=there, sentences=tuple(s for s in e.sentences if s[0] in moving),
                             history_chunk_ids=()))
        if here:
            edges.append(replace(e, chunk_ids=here, sentences=tuple(s for s in e.sentences if s[0] not in moving)))
    mentions = {c: tuple(sorted({new_id if (i == source.id and c in moving) else i for i in ids}))
                for c, ids in graph.mentions.items()}
    new = _rebuild(graph, entities, _collect_edges(edges), mentions=mentions)
    communities = tuple(replace(c, members=tuple(sorted((*c.members, new_id)))) if source.id in c.members else c
                        for c in parts.communities)
    return Applied(GraphParts(new, communities, parts.reports), {},
                   f"{len(moved_chunks)} passages of {source.id} moved to {new_id}")


def _rename(parts: GraphParts, edit: RenameEntity) -> Applied:
    graph = parts.graph
    entity = _entity(graph, edit.entity, edit)
    name = edit.name.strip()
    if not name:
        raise ArgumentError(f"{edit.describe()}: give the new name")
    if name == entity.name:
        raise _conflict(edit, f"{entity.id} is named {name!r} already")
    renamed = replace(entity, name=name, aliases=tuple(sorted(({*entity.aliases, entity.name}) - {name})))
    entities = [renamed if e.id == entity.id else e for e in graph.entities.values()]
    reports = tuple(
        replace(r, key_entity_names=tuple(name if i == entity.id else n
                                          for i, n in zip(r.key_entities, r.key_entity_names, strict=False)))
        if r.key_entity_names and entity.id in r.key_entities else r
        for r in parts.reports
    )
    return Applied(GraphParts(_rebuild(graph, entities, graph.edges), parts.communities, reports), {},
                   f"{entity.id} renamed from {entity.name!r} to {name!r}")


def _delete_entity(parts: GraphParts, edit: DeleteEntity) -> Applied:
    graph = parts.graph
    entity = _entity(graph, edit.entity, edit)
    dropped = [e.key for e in graph.edges if entity.id in (e.source, e.target)]
    edges = [e for e in graph.edges if entity.id not in (e.source, e.target)]
    history = [e for e in graph.history_edges if entity.id not in (e.source, e.target)]
    mentions = {c: tuple(i for i in ids if i != entity.id) for c, ids in graph.mentions.items()}
    new = _rebuild(graph, [e for e in graph.entities.values() if e.id != entity.id], edges,
                   history_edges=history, mentions=mentions)
    return Applied(_follow(parts, new, {entity.id: None}, dropped), {},
                   f"{entity.id} deleted with {len(dropped)} relations")


def _delete_relation(parts: GraphParts, edit: DeleteRelation) -> Applied:
    graph = parts.graph
    edge = _edge(graph, edit.key, edit)
    new = _rebuild(graph, graph.entities.values(), [e for e in graph.edges if e.key != edge.key])
    return Applied(_follow(parts, new, {}, [edge.key]), {}, f"relation {edge.key} deleted")


def _retype(parts: GraphParts, edit: RetypeRelation) -> Applied:
    graph = parts.graph
    edge = _edge(graph, edit.key, edit)
    new_type = edit.new_type.strip()
    if not new_type:
        raise ArgumentError(f"{edit.describe()}: give the new relation type")
    if new_type == edge.type:
        raise _conflict(edit, f"the relation is of type {new_type} already")
    edges = _collect_edges([*(e for e in graph.edges if e.key != edge.key), replace(edge, type=new_type)])
    new = _rebuild(graph, graph.entities.values(), edges)
    reports = tuple(replace(r, key_relations=tuple(dict.fromkeys(
        (s, new_type, o) if (s, o, t) == edge.key else (s, t, o) for s, t, o in r.key_relations)))
        for r in parts.reports)
    return Applied(GraphParts(new, parts.communities, reports), {}, f"relation {edge.key} retyped {new_type}")


def _delete_document(parts: GraphParts, edit: DeleteDocument) -> Applied:
    graph = parts.graph
    chunks = {c for c, d in graph.chunk_documents.items() if d == edit.document}

    def trim(e: Entity) -> Entity:
        return replace(
            e, chunk_ids=tuple(c for c in e.chunk_ids if c not in chunks),
            history_chunk_ids=tuple(c for c in e.history_chunk_ids if c not in chunks),
            document_ids=tuple(d for d in e.document_ids if d != edit.document),
            descriptions=tuple(d for d in e.descriptions if d[0] not in chunks),
            forms=tuple(f for f in e.forms if f[0] != edit.document),
        )

    entities, gone = [], set()
    for e in graph.entities.values():
        t = trim(e)
        if e.chunk_ids and not t.chunk_ids:
            gone.add(e.id)  # only the document's passages supported it
        else:
            entities.append(t)
    edges, dropped = [], []
    for edge in graph.edges:
        left = replace(edge, chunk_ids=tuple(c for c in edge.chunk_ids if c not in chunks),
                       history_chunk_ids=tuple(c for c in edge.history_chunk_ids if c not in chunks),
                       sentences=tuple(s for s in edge.sentences if s[0] not in chunks))
        if gone & {edge.source, edge.target} or (edge.chunk_ids and not left.chunk_ids):
            dropped.append(edge.key)
        else:
            edges.append(left)
    history_edges = [e for e in graph.history_edges if not (gone & {e.source, e.target})]
    history_entities = [trim(e) for e in graph.history_entities.values()]
    mentions = {c: tuple(i for i in ids if i not in gone) for c, ids in graph.mentions.items() if c not in chunks}
    new = _rebuild(graph, entities, edges, history_entities=history_entities, history_edges=history_edges,
                   mentions=mentions, chunk_documents={c: d for c, d in graph.chunk_documents.items() if c not in chunks},
                   current_chunks=graph.current_chunks - chunks)
    followed = _follow(parts, new, dict.fromkeys(gone), dropped)
    reports = tuple(replace(r, chunk_ids=tuple(c for c in r.chunk_ids if c not in chunks)) for r in followed.reports)
    return Applied(GraphParts(new, followed.communities, reports), {},
                   f"{len(chunks)} passages of {edit.document} left the graph, with {len(gone)} entities and "
                   f"{len(dropped)} relations only they supported")


def apply_edit(parts: GraphParts, edit: Edit) -> Applied:
    """Apply one edit to ``parts`` (nothing is changed in place); see the module's docstring.

    Raises
    ------
    EditConflictError
        The edit does not apply to this graph (the message says why).
    ArgumentError
        The edit itself is malformed (e.g. a merge of an entity into itself).
    """
    if isinstance(edit, MergeEntities):
        return _merge(parts, edit)
    if isinstance(edit, SplitEntity):
        return _split(parts, edit)
    if isinstance(edit, RenameEntity):
        return _rename(parts, edit)
    if isinstance(edit, DeleteEntity):
        return _delete_entity(parts, edit)
    if isinstance(edit, DeleteRelation):
        return _delete_relation(parts, edit)
    if isinstance(edit, RetypeRelation):
        return _retype(parts, edit)
    return _delete_document(parts, edit)
