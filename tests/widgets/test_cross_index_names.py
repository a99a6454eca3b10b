"""One passage in two indexes reads apart by the index's label, not a hash ("[graphrag]", not "[@dd5ad799]")."""

from __future__ import annotations

from pathlib import Path

from agrag_lab import Graph, recipes
from agrag_lab.widgets import ComparisonModel


def test_a_passage_of_two_indexes_is_named_with_each_index(peer_graphrag_path: Path, peer_lightrag_path: Path) -> None:
    with Graph.open(peer_graphrag_path, read_only=True) as a, Graph.open(peer_lightrag_path, read_only=True) as b:
        model = ComparisonModel.run_graphs({"graphrag": a, "lightrag": b}, [recipes.CHUNK], {"q": "Irene Adler"})
    rows = model.side_by_side("q")
    titles = [str(r["title"]) for r in rows]
    assert len(titles) == len(set(titles)), titles
    both = [t for t in titles if t.endswith(" [graphrag]")]
    assert both, titles  # the two imports hold the same corpus: its passages are found in each
    for title in both:
        assert title.removesuffix(" [graphrag]") + " [lightrag]" in titles, title
    assert not any("[@" in t for t in titles), titles
