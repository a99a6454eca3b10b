"""Duplicate candidates and sparse entities: each rule finds its pair, with its reason and evidence, and only then."""

from __future__ import annotations

from agrag_lab.kg.candidates import duplicate_candidates, sparse_entities
from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph


def _graph() -> KnowledgeGraph:
    people = [
        Entity("ent-q-scrooge", '"SCROOGE"', "PERSON", description="The miser.", chunk_ids=("c1", "c2")),
        Entity("ent-scrooge", "Scrooge", "PERSON", description="An old man.", chunk_ids=("c3",)),
        Entity("ent-ebenezer", "Ebenezer Scrooge", "PERSON", description="The owner of a counting-house.",
               chunk_ids=("c4",)),
        Entity("ent-jose", "José Martí", "PERSON", description="A poet.", chunk_ids=("c5",)),
        Entity("ent-jose2", "Jose Marti", "PERSON", description="A writer.", chunk_ids=("c6",)),
        Entity("ent-fred", "Fred", "PERSON", description="Nephew who invites him to Christmas dinner every year.",
               chunk_ids=("c7",)),
        Entity("ent-nephew", "Nephew", "PERSON", description="His nephew invites him to Christmas dinner every year.",
               chunk_ids=("c8",)),
        Entity("ent-a", "Alpha", "PERSON", description="x", chunk_ids=("c9",)),
        Entity("ent-b", "Beta", "PERSON", description="y", chunk_ids=("c9",)),
    ]
    places = [
        Entity("ent-ras", "RAS", "ORG", description="A society.", chunk_ids=("c1",)),
        Entity("ent-royal", "Royal Astronomical Society", "ORG", description="Founded 1820.", chunk_ids=("c2",)),
        Entity("ent-scrooge-org", "Scrooge", "ORG", description="", chunk_ids=("c1",)),
        Entity("ent-x", "X", "ORG"),
        Entity("ent-p", "Place P", "ORG", description="somewhere", chunk_ids=("c1", "c2")),
        Entity("ent-r", "Place R", "ORG", description="elsewhere", chunk_ids=("c1", "c2")),
        Entity("ent-s", "Place S", "ORG", description="there", chunk_ids=("c1", "c2")),
    ]
    edges = [Edge(a, t, "KNOWS", ("c9",)) for a in ("ent-a", "ent-b") for t in ("ent-p", "ent-r", "ent-s")]
    return KnowledgeGraph.create(people + places, edges)


def _reasons(kg: KnowledgeGraph) -> dict[tuple[str, str], list[str]]:
    return {c.entities: [r.kind for r in c.reasons] for c in duplicate_candidates(kg)}


def test_each_rule_finds_its_pair_with_evidence() -> None:
    kg = _graph()
    found = _reasons(kg)
    assert found[("ent-q-scrooge", "ent-scrooge")][0] == "same_key"  # quotes and case
    assert found[("ent-jose", "ent-jose2")][0] == "same_key"  # accents folded
    assert found[("ent-ras", "ent-royal")] == ["abbreviation"]
    assert found[("ent-ebenezer", "ent-scrooge")][0] == "name_within"
    assert found[("ent-fred", "ent-nephew")] == ["description"]
    assert found[("ent-a", "ent-b")] == ["neighbours"]
    best = duplicate_candidates(kg, limit=1)[0]
    assert best.score == 1.0 and "fold" in best.reasons[0].evidence
    neighbours = next(c for c in duplicate_candidates(kg) if c.entities == ("ent-a", "ent-b"))
    assert "3 shared neighbours" in neighbours.reasons[0].evidence and "ent-p" in neighbours.reasons[0].evidence


def test_no_pair_across_labels_nor_without_a_reason() -> None:
    kg = _graph()
    found = _reasons(kg)
    assert not any("ent-scrooge-org" in pair and "ent-scrooge" in pair for pair in found)
    assert ("ent-jose", "ent-fred") not in found and ("ent-p", "ent-ras") not in found
    assert found[("ent-p", "ent-r")] == ["neighbours"]  # both related to Alpha and Beta
    scores = [c.score for c in duplicate_candidates(kg)]
    assert scores == sorted(scores, reverse=True)


def test_orphans_and_near_empty_entities_say_what_they_lack() -> None:
    sparse = {(s.entity, s.kind): s.evidence for s in sparse_entities(_graph())}
    assert ("ent-a", "orphan") not in sparse and ("ent-fred", "orphan") in sparse
    assert sparse[("ent-x", "near_empty")] == "a name of 1 characters"
    assert sparse[("ent-scrooge-org", "near_empty")] == "no description and 1 passage"
    assert ("ent-royal", "near_empty") not in sparse
