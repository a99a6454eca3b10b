"""The passage projection: results -> ranked document ids."""

from __future__ import annotations

from agrag_lab.eval.projection import as_scores, chunk_document, project, project_results
from agrag_lab.retrieval.run import SearchResult

V = "0123456789ab"


def chunk(doc: str, n: int = 0) -> str:
    return f"{doc}@{V}#c{n}"


def result(kind: str, rank: int, key: str, chunk_ids: tuple[str, ...] = ()) -> SearchResult:
    return SearchResult(
        key, kind, 1.0 / rank, rank, key, "", key.split("@")[0] if kind == "chunk" else None, chunk_ids=chunk_ids
    )  # type: ignore[arg-type]


def test_chunk_counts_as_its_document() -> None:
    assert chunk_document(chunk("ada-lovelace", 12)) == "ada-lovelace"
    assert project([("chunk", (chunk("a"),)), ("chunk", (chunk("b"),))]) == ("a", "b")


def test_entity_passages_are_inserted_at_the_hit_position_in_order() -> None:
    hits = [
        ("chunk", (chunk("a"),)),
        ("entity", (chunk("c"), chunk("b"))),
        ("chunk", (chunk("d"),)),
    ]
    assert project(hits) == ("a", "c", "b", "d")


def test_a_document_counts_once_at_its_best_position() -> None:
    hits = [
        ("entity", (chunk("b", 1), chunk("a", 0))),
        ("chunk", (chunk("a", 3),)),  # same document, another chunk
        ("community", (chunk("b", 0), chunk("c", 0))),
    ]
    assert project(hits) == ("b", "a", "c")


def test_depth_cuts_and_per_hit_caps_graph_hits_only() -> None:
    many = tuple(chunk(f"d{i}") for i in range(30))
    assert len(project([("entity", many)])) == 10
    assert len(project([("entity", many)], depth=None)) == 30
    assert project([("entity", many), ("chunk", (chunk("z"),))], per_hit=2) == ("d0", "d1", "z")


def test_project_results_reads_search_results() -> None:
    results = [
        result("entity", 1, "ent-ada", (chunk("ada"), chunk("babbage"))),
        result("chunk", 2, chunk("note-g", 4)),
        result("community", 3, "com-1", (chunk("babbage"), chunk("menabrea"))),
    ]
    assert project_results(results) == ("ada", "babbage", "note-g", "menabrea")
    assert project_results(results, per_hit=1) == ("ada", "note-g", "babbage")


def test_scores_decrease_with_position() -> None:
    scores = as_scores(("x", "y", "z"))
    assert sorted(scores, key=lambda d: -scores[d]) == ["x", "y", "z"]
