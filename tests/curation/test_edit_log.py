"""The edit log as pure values: records round-trip, undo gives the graph back, merges chain, conflicts are kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agrag_lab.errors import ArgumentError, IndexFormatError
from agrag_lab.index.edit_log import (
    EDIT_LOG_FILE,
    EditRecord,
    apply_log,
    fingerprint,
    new_record,
    read_log,
    redirect,
    undo_record,
    write_log,
)
from agrag_lab.kg.communities import Community
from agrag_lab.kg.edits import (
    EDIT_KINDS,
    DeleteDocument,
    DeleteEntity,
    DeleteRelation,
    Edit,
    GraphParts,
    MergeEntities,
    RenameEntity,
    RetypeRelation,
    SplitEntity,
    edit_from_dict,
    edit_to_dict,
)
from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
from agrag_lab.kg.reports import CommunityReport

C = {f"c{i}": f"d{i % 2}" for i in range(6)}


@pytest.fixture
def parts() -> GraphParts:
    entities = [
        Entity("ent-a", "Ada", "Person", chunk_ids=("c0", "c2"), document_ids=("d0",)),
        Entity("ent-b", "Ada Lovelace", "Person", ("Countess",), "A mathematician.", ("c1",), document_ids=("d1",)),
        Entity("ent-c", "Babbage", "Person", chunk_ids=("c1", "c3"), document_ids=("d1",)),
        Entity("ent-d", "Engine", "Machine", chunk_ids=("c4",), document_ids=("d0",)),
    ]
    edges = [Edge("ent-a", "ent-c", "KNOWS", ("c0",)), Edge("ent-b", "ent-c", "KNOWS", ("c1",)),
             Edge("ent-a", "ent-b", "SAME", ("c2",)), Edge("ent-c", "ent-d", "DESIGNED", ("c3",))]
    kg = KnowledgeGraph.create(entities, edges, mentions={"c0": ("ent-a", "ent-c"), "c1": ("ent-b", "ent-c")},
                               chunk_documents=C, current_chunks=C)
    community = Community("com-0", 0, ("ent-a", "ent-b", "ent-c"))
    report = CommunityReport("com-0", 0, "People", "Ada and Babbage.", ("ent-a", "ent-b"),
                             (("ent-a", "KNOWS", "ent-c"),), ("c0",), ("Ada", "Ada Lovelace"))
    return GraphParts(kg, (community,), (report,))


EVERY_KIND: list[Edit] = [
    MergeEntities("ent-b", ("ent-a",)), SplitEntity("ent-c", ("c3",), "Babbage the designer"),
    RenameEntity("ent-d", "Analytical Engine"), DeleteEntity("ent-d"), DeleteRelation("ent-a", "ent-c", "KNOWS"),
    RetypeRelation("ent-a", "ent-c", "KNOWS", "MET"), DeleteDocument("d0"),
]


def test_every_kind_has_a_round_tripping_record(parts: GraphParts, tmp_path: Path) -> None:
    assert {e.kind for e in EVERY_KIND} == set(EDIT_KINDS)
    records: list[EditRecord] = []
    for edit in EVERY_KIND:
        assert edit_from_dict(json.loads(json.dumps(edit_to_dict(edit)))) == edit
        records.append(new_record(edit, records, parts, who="w", why="y"))
    write_log(tmp_path, records)
    assert read_log(tmp_path) == tuple(records) and [r.id for r in records] == [f"e{i}" for i in range(1, 8)]
    with pytest.raises(ArgumentError, match="unknown edit kind"):
        edit_from_dict({"kind": "explode"})


def test_a_merge_combines_and_follows_into_communities_and_reports(parts: GraphParts) -> None:
    done = apply_log(parts, [new_record(MergeEntities("ent-b", ("ent-a",)), [], parts)])
    kg = done.parts.graph
    merged = kg.entities["ent-b"]
    assert "ent-a" not in kg.entities and merged.aliases == ("Ada", "Countess")
    assert merged.chunk_ids == ("c0", "c1", "c2") and dict(merged.attributes)["merged_ids"] == "ent-a"
    knows = kg.edge_index[("ent-b", "ent-c", "KNOWS")]
    assert knows.chunk_ids == ("c0", "c1")  # two relations that became one, combined
    assert ("ent-b", "ent-b", "SAME") not in kg.edge_index  # the relation between them is dropped
    assert kg.mentions["c0"] == ("ent-b", "ent-c")
    assert done.parts.communities[0].members == ("ent-b", "ent-c")
    report = done.parts.reports[0]
    assert report.key_entities == ("ent-b",) and report.key_relations == (("ent-b", "KNOWS", "ent-c"),)
    assert dict(done.redirects) == {"ent-a": "ent-b"}


def test_undo_gives_the_graph_back_and_merges_chain(parts: GraphParts) -> None:
    first = new_record(MergeEntities("ent-b", ("ent-a",)), [], parts)
    second = new_record(MergeEntities("ent-c", ("ent-b",)), [first], parts)
    both = apply_log(parts, [first, second])
    assert redirect(both.redirects, "ent-a") == "ent-c" and dict(both.redirects) == {"ent-a": "ent-c", "ent-b": "ent-c"}
    undone, records = undo_record([first, second])
    assert undone.id == second.id and not records[1].active
    assert fingerprint(apply_log(parts, records).parts) == fingerprint(apply_log(parts, [first]).parts)
    _, none = undo_record(records)
    assert fingerprint(apply_log(parts, none).parts) == fingerprint(parts)
    with pytest.raises(ArgumentError, match="no active edit"):
        undo_record(none)  # nothing active is left


def test_an_edit_that_no_longer_applies_is_reported_and_the_rest_applies(parts: GraphParts) -> None:
    split = new_record(SplitEntity("ent-c", ("c3",), "Babbage the designer"), [], parts)
    rename = new_record(RenameEntity("ent-babbage-the-designer", "B. the designer"), [split], parts)
    later = new_record(RenameEntity("ent-d", "Engine No. 1"), [split, rename], parts)
    _, records = undo_record([split, rename, later], split.id)
    done = apply_log(parts, records)
    assert [o.status for o in done.outcomes] == ["undone", "conflict", "applied"]
    assert "no current entity 'ent-babbage-the-designer'" in done.outcomes[1].message
    assert done.parts.graph.entities["ent-d"].name == "Engine No. 1"


def test_a_deleted_document_takes_what_only_it_supported(parts: GraphParts) -> None:
    done = apply_log(parts, [new_record(DeleteDocument("d0"), [], parts)])
    kg = done.parts.graph
    assert "ent-a" not in kg.entities and "ent-d" not in kg.entities  # only d0's passages named them
    assert kg.entities["ent-c"].chunk_ids == ("c1", "c3") and "c0" not in kg.chunk_documents
    assert ("ent-c", "ent-d", "DESIGNED") not in kg.edge_index
    assert done.parts.reports[0].chunk_ids == () and done.parts.communities[0].members == ("ent-b", "ent-c")


def test_a_damaged_log_is_an_error_that_names_the_fix(tmp_path: Path) -> None:
    (tmp_path / EDIT_LOG_FILE).write_text("{not json")
    with pytest.raises(IndexFormatError, match="restore it from a backup, or move it away"):
        read_log(tmp_path)
