"""The run cache: a system whose recipe, index and queries are unchanged is read back, not run again."""

from __future__ import annotations

from pathlib import Path

import pytest

from agrag_lab import Graph
from agrag_lab.eval import evaluate, workshop
from agrag_lab.eval.runcache import RunCache, index_fingerprint
from agrag_lab.eval.systems import SystemRun
from agrag_lab.recipes import CHUNK


def test_a_cached_run_is_read_back_and_scored_the_same(workshop_graph: Graph, tmp_path: Path) -> None:
    bench = workshop().subset(workshop().judged_queries[:5])
    first = evaluate(workshop_graph, bench, [CHUNK], cache=tmp_path)
    files = sorted(p.name for p in tmp_path.glob("*.json"))
    assert len(files) == 4 and files[0].startswith("CHUNK-")  # CHUNK and the three baselines
    # tamper with the stored CHUNK run: the second evaluation must score what the file says
    cache = RunCache(tmp_path)
    key = files[0].removesuffix(".json")
    stored = cache.get(key)
    assert stored is not None and stored.rankings == dict(first.system("CHUNK").rankings)
    cache.put(key, SystemRun("CHUNK", "recipe", {q: () for q in stored.rankings}, 1.0))
    again = evaluate(workshop_graph, bench, [CHUNK], cache=tmp_path)
    assert again.system("CHUNK").mean["recall@5"] == 0.0
    assert again.system("dense").rankings == first.system("dense").rankings


def test_a_changed_recipe_or_query_set_misses_the_cache(workshop_graph: Graph, tmp_path: Path) -> None:
    cache = RunCache(tmp_path)
    what = {"index": index_fingerprint(workshop_graph), "recipe": CHUNK.to_dict()}
    assert cache.key("CHUNK", what) == cache.key("CHUNK", dict(what))
    assert cache.key("CHUNK", what) != cache.key("CHUNK", {**what, "recipe": CHUNK.replace(limit=5).to_dict()})
    assert cache.key("CHUNK", what) != cache.key("CHUNK", {**what, "queries": ["q01"]})


@pytest.mark.parametrize("content", ["", "{not json", '{"name": "x"}'])
def test_an_unreadable_file_is_a_miss(tmp_path: Path, content: str) -> None:
    (tmp_path / "x-1.json").write_text(content, encoding="utf-8")
    assert RunCache(tmp_path).get("x-1") is None
