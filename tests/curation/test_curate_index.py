"""Curating a real index: an edit changes retrieval, undo restores it exactly, the log survives a rebuild."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agrag_lab import Document, Graph
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.errors import ArgumentError, NotFoundError
from agrag_lab.eval.edit_impact import impact_of_edits
from agrag_lab.index.edit_log import fingerprint, read_log
from agrag_lab.kg.candidates import duplicate_candidates
from agrag_lab.kg.edits import (
    DeleteDocument,
    EditConflictError,
    GraphParts,
    MergeEntities,
    RenameEntity,
    SplitEntity,
)
from agrag_lab.recipes import ENTITY, HYBRID

ADA = "ent-ada-lovelace"
DUPLICATES = ("ent-augusta-ada-byron", "ent-ada-byron")
QUESTION = "Who was Augusta Ada Byron?"


def _ledger(data: Any) -> Any:
    """A trace's dict without its timings (what differs between two runs of one state)."""
    if isinstance(data, dict):
        return {k: _ledger(v) for k, v in data.items() if k not in ("seconds", "spans")}
    if isinstance(data, list):
        return [_ledger(v) for v in data]
    return data


def _parts(graph: Graph) -> GraphParts:
    store = graph.built_graph()  # the in-process graph an edit is checked against
    communities, reports = store.stored()
    return GraphParts(store.graph, communities, reports)


@pytest.fixture
def edited(workshop_path: Path, tmp_path: Path, embedder: SentenceTransformerEmbedder) -> Iterator[Graph]:
    """A writable copy of the workshop index."""
    path = tmp_path / "index"
    shutil.copytree(workshop_path, path)
    graph = Graph.open(path, embedder=embedder)
    yield graph
    graph.close()


def test_a_merge_changes_entity_results_and_undo_restores_them_exactly(edited: Graph) -> None:
    assert all(d in edited.graph_store.graph.entities for d in DUPLICATES)
    unedited = _parts(edited)
    before = edited.engine().run(QUESTION, ENTITY)
    assert DUPLICATES[0] in before.keys
    outcome = edited.curate(MergeEntities(ADA, DUPLICATES), who="a reviewer", why="one person under three names")
    assert outcome.status == "applied" and "2 entities merged" in outcome.message
    after = edited.engine().run(QUESTION, ENTITY)
    assert ADA in after.keys and not set(DUPLICATES) & set(after.keys)
    merged = edited.graph_store.entity(ADA)
    assert merged is not None and {"Augusta Ada Byron", "Ada Byron"} <= set(merged.aliases)
    # an id merged away resolves to the merged entity in the evidence functions
    assert edited.evidence().explore(DUPLICATES[0]).entity.id == ADA
    (record, status), = edited.edits()
    assert (record.who, record.why, record.applied_to) == ("a reviewer", "one person under three names",
                                                           fingerprint(unedited))
    assert status is not None and status.status == "applied"
    undone = edited.undo()
    assert undone.id == record.id and undone.undone
    again = edited.engine().run(QUESTION, ENTITY)
    assert again.keys == before.keys
    assert _ledger(again.trace.to_dict()) == _ledger(before.trace.to_dict())
    assert fingerprint(_parts(edited)) == fingerprint(unedited)
    assert [r.active for r in read_log(edited.path)] == [False]  # the history stays


def test_an_edit_survives_an_ingest_and_a_rebuild_and_one_that_no_longer_applies_is_reported(
    edited: Graph, embedder: SentenceTransformerEmbedder
) -> None:
    kg = edited.graph_store.graph
    babbage = kg.entities["ent-charles-babbage"]
    moving = babbage.chunk_ids[:1]
    edited.curate(SplitEntity(babbage.id, moving, "Babbage the younger"))
    edited.curate(RenameEntity("ent-babbage-the-younger", "Benjamin Herschel Babbage"))
    edited.curate(RenameEntity(ADA, "Augusta Ada King"))
    with pytest.raises(EditConflictError, match="no current entity 'ent-nobody'"):
        edited.curate(RenameEntity("ent-nobody", "X"))  # nothing is written
    assert len(read_log(edited.path)) == 3
    edited.undo("e1")  # the split goes: the rename of what it made no longer applies
    statuses = {r.id: o.status for r, o in edited.edits() if o is not None}
    assert statuses == {"e1": "undone", "e2": "conflict", "e3": "applied"}
    conflict = next(o for r, o in edited.edits() if r.id == "e2")
    assert conflict is not None and "ent-babbage-the-younger" in conflict.message
    edited.ingest([Document("babbage-note", "A note", "Charles Babbage met Augusta Ada King in London in 1833.")])
    ada = edited.graph_store.entity(ADA)  # the ingest built the graph anew and applied the log again
    assert ada is not None and ada.name == "Augusta Ada King"
    # the new text's "Augusta Ada King" is extracted as an entity of its own: the candidates pair it with the renamed
    pairs = {c.entities: c.reasons[0].kind for c in duplicate_candidates(edited.graph_store.graph)}
    assert "same_key" in {kind for pair, kind in pairs.items() if ADA in pair}
    path = edited.path
    edited.close()
    with Graph.open(path, embedder=embedder, rebuild=True) as rebuilt:
        ada = rebuilt.graph_store.entity(ADA)
        assert ada is not None and ada.name == "Augusta Ada King" and "Ada Lovelace" in ada.aliases
        assert [o.status for _, o in rebuilt.edits() if o is not None] == ["undone", "conflict", "applied"]
    with Graph.open(path, embedder=embedder, read_only=True) as reader:
        found = reader.graph_store.entity_by_name("Augusta Ada King")
        assert found is not None and found.id == ADA


def test_deleting_a_document_takes_its_passages_and_what_only_they_supported(edited: Graph) -> None:
    kg = edited.graph_store.graph
    document = max(edited.db.documents(), key=lambda d: sum(1 for c in kg.chunk_documents.values() if c == d.id)).id
    only = {e.id for e in kg.entities.values() if set(e.document_ids) == {document}}
    assert only
    with pytest.raises(NotFoundError, match="no current document"):
        edited.curate(DeleteDocument("no-such-document"))
    edited.curate(DeleteDocument(document))
    after = edited.graph_store.graph
    assert not only & set(after.entities) and document not in set(after.chunk_documents.values())
    hits = edited.engine().run("Ada Lovelace Analytical Engine", HYBRID)
    assert all(r.document_id != document for r in hits.results)
    edited.undo()
    assert only <= set(edited.graph_store.graph.entities)
    assert edited.db.document(document) is not None and not edited.db.document(document).removed  # type: ignore[union-attr]


def test_the_change_is_measured_against_the_unedited_index_without_a_copy(edited: Graph) -> None:
    questions = {"q1": QUESTION, "q2": "Who taught mathematics to Ada?"}
    with pytest.raises(ArgumentError, match="no active edit"):
        impact_of_edits(edited, questions, [ENTITY])
    edited.curate(MergeEntities(ADA, DUPLICATES))
    served = fingerprint(_parts(edited))
    impact = impact_of_edits(edited, questions, [ENTITY, HYBRID])
    assert fingerprint(_parts(edited)) == served and read_log(edited.path)[0].active  # put back as it was
    change = next(c for c in impact.changes if c.question_id == "q1" and c.recipe == "ENTITY")
    assert change.changed and DUPLICATES[0] in change.lost and ADA in change.before.keys + change.gained
    assert DUPLICATES[0] in change.before.keys and DUPLICATES[0] not in change.after.keys
    assert "paired test needs" in impact.note or "no qrels" in impact.note
    assert len(impact.rows()) == 4


def test_with_qrels_the_change_gets_metrics_and_a_paired_test(edited: Graph) -> None:
    from agrag_lab.datasets import workshop
    from agrag_lab.eval.metrics import per_query_scores
    from agrag_lab.eval.projection import project_run

    ds = workshop()
    assert len(ds.qrels) >= 5
    edited.curate(MergeEntities(ADA, DUPLICATES))
    impact = impact_of_edits(edited, dict(ds.queries), [ENTITY], qrels=ds.qrels)
    assert "paired two-sided t-test" in impact.note
    figures = impact.metrics["ENTITY"]
    assert set(figures) == {"recall@5", "recall@10", "ndcg@10"}
    judged = [q for q in ds.queries if q in ds.qrels]
    for side, index in (("before", 0), ("after", 1)):
        runs = {c.question_id: (c.before if side == "before" else c.after) for c in impact.changes}
        scores = per_query_scores({q: ds.qrels[q] for q in judged}, {q: project_run(runs[q]) for q in judged},
                                  ("recall@5",))
        assert figures["recall@5"][index] == pytest.approx(sum(scores["recall@5"].values()) / len(judged))
    assert all(0.0 <= p <= 1.0 for _, _, p in figures.values())
