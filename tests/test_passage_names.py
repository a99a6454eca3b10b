"""Passages a person can tell apart, on imported indexes: the document's own name, the first words, the passage number,
and never two equal labels in one chart (agrag_lab.names, the one home of the rule)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agrag_lab import Graph, recipes
from agrag_lab.charts import rank_shift
from agrag_lab.charts.ranking import contribution_data
from agrag_lab.names import chunk_locator, clip_name, distinct_names


@pytest.mark.parametrize("fixture", ["peer_graphrag_path", "peer_lightrag_path"])
def test_chart_labels_keep_the_passage_number_and_differ(fixture: str, request: pytest.FixtureRequest) -> None:
    path: Path = request.getfixturevalue(fixture)
    with Graph.open(path, read_only=True) as graph:
        engine = graph.engine()
        a = engine.run("刘备与张飞同入村店中饮酒", recipes.CHUNK)
        b = engine.run("刘备与张飞同入村店中饮酒", recipes.HYBRID)
    chunks = [r for r in a.results if r.kind == "chunk"]
    assert len(chunks) >= 5
    bars, _ = contribution_data(a)
    points = [str(t) for trace in rank_shift(a, b).data for t in (trace.text or ()) if t]
    for labels in (bars, points):
        assert len(labels) == len(set(labels)), labels
        for r in chunks:
            shown = [label for label in labels if chunk_locator(r.id) in label and r.title[:6] in label]
            assert shown, f"{r.id} has no label with its number and its document: {labels}"
    names = [r.name for r in a.results]
    assert len(names) == len(set(names))
    assert not any(r.title.startswith("doc-") for r in chunks)  # the document's own name, not LightRAG's hash


def test_a_clipped_name_keeps_its_number() -> None:
    name = "a-christmas-carol.txt: 'fragment' of the book, Marley was dead to begin with #c17"
    assert clip_name(name, 30).endswith("#c17") and len(clip_name(name, 30)) <= 30


def test_equal_names_get_their_document() -> None:
    shown = distinct_names({"a@1#c0": "notes.txt: Intro #c0", "b@1#c0": "notes.txt: Intro #c0"})
    assert len(set(shown.values())) == 2


def test_an_entitys_text_does_not_repeat_its_name(peer_graphrag_path: Path) -> None:
    from agrag_lab.widgets import FusionInspector

    with Graph.open(peer_graphrag_path, read_only=True) as graph:
        run = graph.engine().run("Who is Irene Adler?", recipes.ENTITY)
        inspector = FusionInspector(run, session=graph.evidence())
        entity = next(r for r in run.results if r.kind == "entity")
        assert r_text_opens_with_name(entity.text, entity.title)  # the stored record does
        own = inspector.model.passages(entity.id)[0]
        words = len(entity.title.split())
        opening = " ".join(" ".join(own.text.split()).split()[: 2 * words])
        assert opening != f"{entity.title} {entity.title}", own.text[:80]  # shown under its name: once is enough
        assert " ".join(own.text.split()) in " ".join(entity.text.split())


def r_text_opens_with_name(text: str, name: str) -> bool:
    return text.split("\n", 1)[0].strip().casefold() == name.casefold()


def test_one_passage_in_two_indexes_gets_two_labels(peer_graphrag_path: Path, peer_lightrag_path: Path) -> None:
    from agrag_lab.widgets import ComparisonModel

    with Graph.open(peer_graphrag_path, read_only=True) as a, Graph.open(peer_lightrag_path, read_only=True) as b:
        model = ComparisonModel.run_graphs({"graphrag": a, "lightrag": b}, [recipes.CHUNK], {"q": "Irene Adler"})
    rows = model.side_by_side("q")
    titles = [str(r["title"]) for r in rows]
    assert len(rows) > 8 and len(titles) == len(set(titles)), titles
    assert all(chunk_locator(str(r["_key"])) in str(r["title"]) for r in rows if r["kind"] == "chunk")
