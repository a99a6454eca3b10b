"""Every knob bounds its work: a tiny restart is refused, and a whole run has one deadline.

Issue 31, finding 1: ``walk.restart = 1e-10`` hung ``agrag-lab search`` (the walk's
work grows as 1/restart) and ``1e-300`` with ``pagerank = "power"`` divided by zero
in :mod:`agrag_lab.kg.algorithms.pagerank`. The caps live in :mod:`agrag_lab.limits`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agrag_lab import Graph, recipes
from agrag_lab.errors import KnowledgeGraphError, RecipeError, SearchTimeoutError
from agrag_lab.kg.algorithms.pagerank import personalized_pagerank, push_pagerank
from agrag_lab.limits import (
    MAX_CANDIDATES,
    MAX_RESULTS,
    MAX_WALK_DEPTH,
    MAX_WALK_VISITS,
    MIN_WALK_RESTART,
)
from agrag_lab.recipes import GRAPH_EXPAND, Recipe
from agrag_lab.retrieval.engine import SearchEngine
from agrag_lab.retrieval.settings import RetrievalSettings

ROOT = Path(__file__).resolve().parents[2]
QUERY = "Who worked with Charles Babbage on the Analytical Engine?"


def _recipe_text(**walk: object) -> str:
    text = (ROOT / "recipes" / "graph_expand.toml").read_text(encoding="utf-8")
    for key, value in walk.items():
        line = f"{key} = {value!r}" if not isinstance(value, str) else f'{key} = "{value}"'
        text, found = re.subn(rf"(?m)^{key} = .*$", line, text, count=1)
        assert found == 1, key
    return text


@pytest.mark.parametrize("restart", [1e-10, 1e-300, 0.0, 0.009])
def test_a_tiny_restart_is_refused_in_one_line(restart: float) -> None:
    with pytest.raises(RecipeError, match=r"walk.restart: must be a number in \[0.01, 1\]") as caught:
        Recipe.from_toml(_recipe_text(restart=restart, pagerank="power"))
    assert set(caught.value.problems) == {"walk.restart"}
    assert GRAPH_EXPAND.replace(**{"walk.restart": MIN_WALK_RESTART}).walk.restart == MIN_WALK_RESTART


def test_the_walk_functions_refuse_it_too_never_divide_by_zero() -> None:
    m = sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]]))
    for walk in (personalized_pagerank, lambda *a, **k: push_pagerank(*a, **k)[0]):
        with pytest.raises(KnowledgeGraphError, match=r"restart must be a number in \[0.01, 1\] \(got 1e-300\)"):
            walk(m, np.array([1.0, 0.0]), restart=1e-300)


def test_the_cli_refuses_a_tiny_restart_with_one_line(workshop_path: Path, tmp_path: Path) -> None:
    (tmp_path / "tiny.toml").write_text(_recipe_text(restart=1e-10), encoding="utf-8")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "agrag_lab.cli", "search", "Babbage", "--recipe", "tiny.toml",
         "--index", str(workshop_path)],
        capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "walk.restart: must be a number in [0.01, 1] (got 1e-10)" in done.stderr


def test_seeds_times_neighbours_is_capped() -> None:
    with pytest.raises(RecipeError, match=f"candidates x walk.limit must be at most {MAX_WALK_VISITS}"):
        GRAPH_EXPAND.replace(candidates=MAX_CANDIDATES, **{"walk.limit": MAX_RESULTS})
    assert GRAPH_EXPAND.replace(candidates=MAX_CANDIDATES, **{"walk.limit": 100}).walk.limit == 100


class _SlowStore:
    """The workshop's real graph store, whose walk waits for an event (a walk that does not end)."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.release = threading.Event()

    def reach(self, *args: Any, **kwargs: Any) -> Any:
        self.release.wait(120)
        return self._store.reach(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


@pytest.fixture
def slow_engine(workshop_graph: Graph) -> Iterator[tuple[SearchEngine, _SlowStore]]:
    base = workshop_graph.engine()
    store = _SlowStore(base.graph_store)
    engine = SearchEngine(
        graph_store=store, embedder=base.embedder, vector_store=base.vector_store,
        settings=RetrievalSettings(run_timeout=10.0), graph_schema=base.graph_schema,
    )
    base.run(QUERY, GRAPH_EXPAND)  # warm: the methods answer well inside the deadline
    yield engine, store
    store.release.set()


@pytest.mark.timeout(120)
def test_the_whole_run_has_a_deadline_naming_the_step(slow_engine: tuple[SearchEngine, _SlowStore]) -> None:
    engine, store = slow_engine
    bfs = GRAPH_EXPAND.replace(**{"walk.strategy": "bfs"})
    started = time.perf_counter()
    with pytest.raises(SearchTimeoutError, match="ran out of its 10 s deadline in the walk step") as caught:
        engine.run(QUERY, bfs)
    assert caught.value.step == "walk"
    assert isinstance(caught.value, TimeoutError)
    assert not store.release.is_set()  # answered while the walk still hung
    assert time.perf_counter() - started < 60


def test_methods_past_the_whole_run_deadline_name_the_step(workshop_graph: Graph) -> None:
    engine = workshop_graph.engine(settings=RetrievalSettings(run_timeout=1e-6))
    with pytest.raises(SearchTimeoutError, match=r"deadline in the methods \(") as caught:
        engine.run(QUERY, GRAPH_EXPAND)
    assert caught.value.step.startswith("methods")


def test_the_run_timeout_is_bounded_and_read_from_the_environment() -> None:
    assert RetrievalSettings.from_env({"RETRIEVAL_RUN_TIMEOUT": "5"}).run_timeout == 5.0
    with pytest.raises(RecipeError, match="run_timeout: must be at most 3600"):
        RetrievalSettings(run_timeout=1e9)
    with pytest.raises(RecipeError, match="RETRIEVAL_RUN_TIMEOUT"):
        RetrievalSettings.from_env({"RETRIEVAL_RUN_TIMEOUT": "0"})


def _bounds(low: Any, high: Any) -> st.SearchStrategy[Any]:
    return st.sampled_from([low, high])


@st.composite
def _recipes_at_bounds(draw: st.DrawFn) -> dict[str, Any]:
    """Every numeric recipe field at one of its bounds (the re-rank kinds that run offline)."""
    return {
        "limit": draw(_bounds(1, MAX_RESULTS)),
        "candidates": draw(_bounds(1, MAX_CANDIDATES)),
        "walk.enabled": True,
        "walk.strategy": draw(st.sampled_from(["bfs", "ppr"])),
        "walk.pagerank": draw(st.sampled_from(["push", "power"])),
        "walk.depth": draw(_bounds(1, MAX_WALK_DEPTH)),
        "walk.limit": draw(_bounds(1, MAX_RESULTS)),
        "walk.restart": draw(_bounds(MIN_WALK_RESTART, 1.0)),
        "walk.prior_weight": draw(_bounds(0.0, 1e300)),
        "communities.enabled": True,
        "communities.top_k": draw(_bounds(1, MAX_RESULTS)),
        "rerank.kind": draw(st.sampled_from(["none", "graph_distance"])),
        "rerank.community_slots": draw(_bounds(0, MAX_RESULTS)),
        "fusion.k": draw(_bounds(1e-300, 1e300)),
        "fusion.weights": {"chunk": draw(_bounds(0.0, 1e300))},
    }


@settings(max_examples=6, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=_recipes_at_bounds())
def test_every_numeric_field_at_its_bounds_ends_in_time(workshop_graph: Graph, changes: dict[str, Any]) -> None:
    try:
        recipe = Recipe("BOUNDS", ("entity", "chunk", "community")).replace(**changes)
    except RecipeError as error:  # the one combined cap: seeds x neighbours
        assert set(error.problems) == {"walk.limit"}, error.problems
        return
    engine = workshop_graph.engine(settings=RetrievalSettings(run_timeout=60.0))
    started = time.perf_counter()
    try:
        run = engine.run(QUERY, recipe)
    except SearchTimeoutError as error:  # a clear error naming the step, never a hang or a traceback
        assert error.step
    else:
        assert len(run.results) <= recipe.limit
    assert time.perf_counter() - started < 90


def test_recipes_get_reads_the_capped_file(tmp_path: Path) -> None:
    (tmp_path / "ok.toml").write_text(_recipe_text(restart=0.5), encoding="utf-8")
    assert recipes.get(tmp_path / "ok.toml").walk.restart == 0.5
