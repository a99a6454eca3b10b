"""The embedding model loads when an engine opens, as a step of its own, never inside a search's time."""

from __future__ import annotations

from pathlib import Path

from agrag_lab import Graph
from agrag_lab.embedding import SentenceTransformerEmbedder, warm
from agrag_lab.eval import evaluate, workshop
from agrag_lab.eval.result import EvalResult
from agrag_lab.recipes import CHUNK


def test_the_engine_loads_the_model_when_it_opens_and_says_how_long(workshop_path: Path) -> None:
    fresh = SentenceTransformerEmbedder()  # not loaded yet
    assert fresh.load_seconds is None
    with Graph.open(workshop_path, embedder=fresh, read_only=True) as graph:
        engine = graph.engine()
        assert fresh.load_seconds is not None and engine.model_load_seconds == fresh.load_seconds > 0
        assert graph.engine().model_load_seconds == 0.0  # loaded once per embedder
        assert warm(fresh) == 0.0
        loaded = fresh.load_seconds
        engine.run("Who worked with Babbage?", CHUNK)
        assert fresh.load_seconds == loaded  # the search found the model loaded: no load inside its time


def test_the_evaluation_reports_the_warm_up_apart_from_every_system(workshop_path: Path) -> None:
    fresh = SentenceTransformerEmbedder()
    with Graph.open(workshop_path, embedder=fresh, read_only=True) as graph:
        result: EvalResult = evaluate(graph, workshop(), ["CHUNK"], baselines=False)
    assert result.config["model_load_seconds"] > 0  # loaded before any system ran
    assert result.config["warmup_seconds"] > 0  # and the first searches run untimed
