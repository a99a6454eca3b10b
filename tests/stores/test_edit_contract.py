"""Every edit kind, applied to the contract graph, gives the same answers on every graph store.

Each edit is applied by the pure functions of :mod:`agrag_lab.kg.edits`; the
edited graph is the in-process store's and, pushed, the FalkorDB server's.
The behaviour tests state what the edit did, on each store; the equality test
holds the server to the in-process store's answers, method by method.
"""

from __future__ import annotations

import pytest
from test_store_contract import PER_ENTITY, SCOPES

from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.kg.edits import (
    DeleteDocument,
    DeleteEntity,
    DeleteRelation,
    Edit,
    GraphParts,
    MergeEntities,
    RenameEntity,
    RetypeRelation,
    SplitEntity,
    apply_edit,
)
from agrag_lab.kg.graph_store import Direction, GraphStore
from agrag_lab.kg.model import Entity
from agrag_lab.kg.scope import GraphScope

ADA, BABBAGE = "ent-ada-lovelace", "ent-charles-babbage"
EDITS: dict[str, Edit] = {
    "merge": MergeEntities("ent-jacquard-loom", ("ent-joseph-marie-jacquard",)),
    "split": SplitEntity(BABBAGE, (), "Babbage the engine designer"),  # the engine document's passages: see below
    "rename": RenameEntity("ent-lord-byron", "George Gordon Byron"),
    "delete_entity": DeleteEntity("ent-london"),
    "delete_relation": DeleteRelation(ADA, BABBAGE, "WORKED_WITH"),
    "retype": RetypeRelation(ADA, BABBAGE, "RELATED_TO", "CORRESPONDED_WITH"),
    "delete_document": DeleteDocument("jacquard"),
}


def _edit(kind: str, reference: NetworkXGraphStore) -> Edit:
    edit = EDITS[kind]
    if isinstance(edit, SplitEntity):
        babbage = reference.graph.entities[BABBAGE]
        return SplitEntity(BABBAGE, tuple(c for c in babbage.chunk_ids if c.startswith("engine@")), edit.name)
    return edit


@pytest.fixture(scope="module", params=list(EDITS))
def edited(request: pytest.FixtureRequest, reference: NetworkXGraphStore) -> tuple[str, NetworkXGraphStore]:
    kind = str(request.param)
    communities, reports = reference.stored()
    done = apply_edit(GraphParts(reference.graph, communities, reports), _edit(kind, reference))
    return kind, NetworkXGraphStore(done.parts.graph, done.parts.communities, done.parts.reports)


@pytest.fixture(scope="module", params=("networkx", "falkordb"))
def edited_store(request: pytest.FixtureRequest, edited: tuple[str, NetworkXGraphStore],
                 falkordb_server: tuple[str, int]) -> tuple[str, GraphStore, NetworkXGraphStore]:
    kind, local = edited
    if request.param == "networkx":
        return kind, local, local
    from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore

    host, port = falkordb_server
    server = FalkorDBGraphStore.connect(host, port, graph=f"edit-{kind}")
    server.clear()
    server.push(local)
    return kind, server, local


def _ids(entities: list[Entity]) -> set[str]:
    return {e.id for e in entities}


def _around(store: GraphStore, entity_id: str, types: set[str] | None = None, direction: Direction = "both") -> set[str]:
    return {e.other(entity_id) for e in store.neighbours(entity_id, types, direction)}


def test_each_edit_does_what_it_says_on_every_store(
    edited_store: tuple[str, GraphStore, NetworkXGraphStore], reference: NetworkXGraphStore
) -> None:
    kind, store, _ = edited_store
    if kind == "merge":
        assert store.entity("ent-joseph-marie-jacquard") is None
        merged = store.entity_by_name("Joseph Marie Jacquard")
        assert merged is not None and merged.id == "ent-jacquard-loom"
        assert "Joseph Marie Jacquard" in merged.aliases
        before = {*reference.graph.entities["ent-jacquard-loom"].chunk_ids,
                  *reference.graph.entities["ent-joseph-marie-jacquard"].chunk_ids}
        assert set(merged.chunk_ids) == before
        around = _around(store, "ent-jacquard-loom")
        assert {"ent-lyon", "ent-analytical-engine"} <= around and "ent-jacquard-loom" not in around
        assert store.community("com-0-4") is not None
        assert store.community("com-0-4").members == ("ent-jacquard-loom", "ent-lyon")  # type: ignore[union-attr]
    elif kind == "split":
        new = store.entity_by_name("Babbage the engine designer")
        old = store.entity(BABBAGE)
        assert new is not None and old is not None
        assert new.chunk_ids and all(c.startswith("engine@") for c in new.chunk_ids)
        assert not any(c.startswith("engine@") for c in old.chunk_ids)
        assert ("ent-difference-engine" in _around(store, new.id, {"DESIGNED"}, "out"))
        assert new.id in {e.id for e in store.mentions(new.chunk_ids[0])}
    elif kind == "rename":
        byron = store.entity_by_name("Lord Byron")
        assert byron is not None and byron.id == "ent-lord-byron" and byron.name == "George Gordon Byron"
        assert store.entity_by_name("George Gordon Byron") == byron and "Lord Byron" in byron.aliases
    elif kind == "delete_entity":
        assert store.entity("ent-london") is None and store.entity_by_name("London") is None
        assert "ent-london" not in _around(store, BABBAGE)
        assert all("ent-london" not in c.members for c in store.communities())
    elif kind == "delete_relation":
        assert "WORKED_WITH" not in store.relationship_types(ADA)
        assert BABBAGE in _around(store, ADA, {"CORRESPONDED_WITH"})
    elif kind == "retype":
        assert "RELATED_TO" in store.relationship_types(ADA, "out")  # its other RELATED_TO relations stay
        assert BABBAGE not in _around(store, ADA, {"RELATED_TO"}, "out")
        assert BABBAGE in _around(store, ADA, {"CORRESPONDED_WITH"}, "out")
    else:
        assert store.entities(GraphScope(document_ids=frozenset({"jacquard"}))) == []
        assert all(not c.startswith("jacquard@") for e in store.entities() for c in e.chunk_ids)
        only = {e.id for e in reference.entities() if set(e.document_ids) == {"jacquard"}}
        assert only and not (only & _ids(store.entities()))
        kept = {e.id for e in reference.entities() if set(e.document_ids) - {"jacquard"}}
        assert kept <= _ids(store.entities())


@pytest.mark.parametrize("scope_name", ["all", "babbage", "mixed"])
def test_an_edited_graph_answers_alike_on_every_store(
    edited_store: tuple[str, GraphStore, NetworkXGraphStore], scope_name: str
) -> None:
    kind, store, local = edited_store
    scope = SCOPES[scope_name]
    assert store.entities(scope) == local.entities(scope)
    for entity in local.entities():
        for name, call in PER_ENTITY.items():
            assert call(store, entity.id, scope) == call(local, entity.id, scope), (kind, name, entity.id)
    assert store.communities(None, scope) == local.communities(None, scope)
    assert store.reports(scope) == local.reports(scope)
    names = {n for e in local.entities() for n in (e.name, *e.aliases)}
    for name in sorted(names):
        assert store.entity_by_name(name, scope) == local.entity_by_name(name, scope), (kind, name)
