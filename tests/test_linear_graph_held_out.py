"""Questions kept aside in ``benchmarks.linear_graph``: SciFact's held-out claims never meet the dev sample, and
Medical's held-out questions are scored again from stored rankings, per question group with paired tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from agrag_lab import Document
from agrag_lab.errors import DatasetError
from agrag_lab.eval.benchmark import Benchmark
from agrag_lab.eval.runcache import RunCache
from agrag_lab.eval.systems import SystemRun
from benchmarks.linear_graph import _entry, group_table, held_out_scifact, stored_result


@pytest.fixture
def bench() -> Benchmark:
    """Six questions in two groups over six documents, question i judged by document i."""
    docs = tuple(Document(f"d{i}", f"D{i}", f"text {i}") for i in range(6))
    return Benchmark("held", docs, {f"q{i}": f"question {i}?" for i in range(6)},
                     {f"q{i}": {f"d{i}": 1} for i in range(6)},
                     {f"q{i}": {"hops": 2 if i < 3 else 3} for i in range(6)})


def _store(runs: Path, folder: str, name: str, kind: str, hits: range, bench: Benchmark) -> None:
    """A run that ranks each question's own document first for the questions in ``hits``, a wrong one otherwise."""
    rankings: dict[str, tuple[str, ...]] = {
        q: (f"d{i}",) if i in hits else (f"d{(i + 1) % 6}",) for i, q in enumerate(bench.queries)}
    cache = RunCache(runs / folder)
    cache.put(cache.key(name, {"kind": kind}), SystemRun(name, kind, rankings, 1.0))


def test_held_out_scifact_claims_are_outside_the_dev_sample_with_their_evidence_in_the_corpus() -> None:
    from agrag_lab.eval import scifact
    from agrag_lab.eval.loaders import scifact_path

    try:
        claims = scifact(scifact_path())
    except DatasetError:
        pytest.skip("SciFact is not on this machine")
    held = held_out_scifact()
    dev = claims.sample(100)
    assert len(held.judged_queries) == 100 and not set(held.queries) & set(dev.queries)
    corpus = {d.id for d in held.documents}
    assert len(corpus) == 400 and all(set(held.relevant(q)) <= corpus for q in held.judged_queries)
    assert held_out_scifact().queries == held.queries  # the same split on every call


def test_stored_runs_are_scored_per_group_with_paired_tests(tmp_path: Path, bench: Benchmark) -> None:
    _store(tmp_path, "held-rules", "dense", "baseline", range(6), bench)
    _store(tmp_path, "held-rules", "GRAPH_EXPAND", "recipe", range(6), bench)
    _store(tmp_path, "held-rules", "GRAPH_HYBRID", "recipe", range(3), bench)  # right on the 2-hop group only
    _store(tmp_path, "held-linear", "GRAPH_HYBRID", "recipe", range(6), bench)
    result = stored_result(tmp_path, bench)
    assert set(result.names) == {"dense", "GRAPH_EXPAND @ rules", "GRAPH_HYBRID @ rules", "GRAPH_HYBRID @ linear"}
    entry = _entry("musique", bench, result, None)
    assert entry["groups"]["2-hop"]["GRAPH_HYBRID @ rules"] == 1.0
    assert entry["groups"]["3-hop"]["GRAPH_HYBRID @ rules"] == 0.0
    assert entry["group_sizes"] == {"2-hop": 3, "3-hop": 3}
    assert entry["group_paired"]["2-hop"]["GRAPH_HYBRID @ rules | dense"] == 1.0  # equal on every question
    table = "\n".join(group_table("musique", entry))
    assert "| GRAPH_HYBRID @ rules | 1.000 (1 / 1) | 0.000 (" in table


def test_a_stored_run_missing_a_question_is_refused(tmp_path: Path, bench: Benchmark) -> None:
    _store(tmp_path, "held-rules", "dense", "baseline", range(6), bench)
    _store(tmp_path, "held-linear", "GRAPH_HYBRID", "recipe", range(6), bench)
    wider = Benchmark("held", bench.documents, {**bench.queries, "q6": "more?"}, {**bench.qrels, "q6": {"d0": 1}})
    with pytest.raises(DatasetError, match="lacks 1 of held's questions"):
        stored_result(tmp_path, wider)
    with pytest.raises(DatasetError, match="no stored runs"):
        stored_result(tmp_path / "elsewhere", bench)
