"""The pure rules of LINEARRAG (``linear_ppr``): activation, passage scores, the walk's graph."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agrag_lab.retrieval.methods.linear_ppr import Activation, activate, passage_scores, tri_graph_matrix

SENTENCES = {"a": ["s1", "s2"], "b": ["s1", "s3"], "c": ["s3"], "d": ["s4"]}
ENTITIES = {"s1": ["a", "b"], "s2": ["a", "c"], "s3": ["b", "c", "d"], "s4": ["d"]}
COSINE = {"s1": 0.9, "s2": 0.6, "s3": 0.8, "s4": 0.7}


def _activate(
    seeds: dict[str, float], threshold: float, top_k: int, max_iterations: int,
) -> tuple[dict[str, float], dict[str, tuple[float, int]], list[Activation]]:
    return activate(seeds, SENTENCES.get, ENTITIES.get, lambda ids: {s: COSINE[s] for s in ids},
                    threshold=threshold, top_k=top_k, max_iterations=max_iterations)


def test_a_sentence_taken_once_is_not_taken_again_and_tiers_count_iterations() -> None:
    weights, active, events = _activate({"a": 1.0, "b": 0.9}, threshold=0.4, top_k=1, max_iterations=3)
    # iteration 1: a takes s1 (0.9 > 0.6) and activates a, b at 0.9; b may not take s1 again: it takes s3
    assert [(e.iteration, e.by, e.sentence) for e in events if e.iteration == 1] == [
        (1, "a", "s1"), (1, "a", "s1"), (1, "b", "s3"), (1, "b", "s3"), (1, "b", "s3")]
    # iteration 2 spreads from iteration 1's entities (a 0.9; b, c, d 0.72) through the sentences left:
    # a takes s2 (a, c at 0.9 x 0.6); d takes s4 (d at 0.72 x 0.7); b and c have none left
    assert [(e.by, e.sentence, e.entity) for e in events if e.iteration == 2] == [
        ("a", "s2", "a"), ("a", "s2", "c"), ("d", "s4", "d")]
    assert active["d"][0] == pytest.approx(0.72 * 0.7) and active["d"][1] == 3  # its last activation, tier 3
    assert weights["d"] == pytest.approx(0.72 + 0.72 * 0.7)  # its weight sums every activation
    assert weights["a"] == pytest.approx(1.0 + 0.9 + 0.54)  # a seed: its score, then its activations
    assert max(e.iteration for e in events) == 2  # max_iterations 3: iterations 1 and 2


def test_below_the_threshold_nothing_spreads_or_is_activated() -> None:
    weights, active, events = _activate({"a": 0.5, "c": 0.3}, threshold=0.4, top_k=2, max_iterations=3)
    assert all(e.score >= 0.4 for e in events)
    assert all(e.by != "c" for e in events)  # a seed below the threshold takes no sentence
    # a (0.5) takes s1 (a, b at 0.45) and s2 (0.5 x 0.6 < 0.4: nothing); then b takes s3 at 0.45 x 0.8 < 0.4
    assert set(active) == {"a", "b", "c"} and active["b"][0] == pytest.approx(0.45) and active["b"][1] == 2
    assert weights["c"] == pytest.approx(0.3)  # a seed keeps its score as its weight


def test_a_passage_score_divides_each_entity_bonus_by_its_tier() -> None:
    dense = [("p1", 0.9), ("p2", 0.7), ("p3", 0.5)]
    texts = {"p1": "Holmes met Holmes.", "p2": "Baker Street", "p3": "nothing"}
    s = passage_scores(dense, texts, [("Holmes", 0.8, 1), ("Baker Street", 0.6, 2)], ratio=2.0)
    assert s["p1"] == pytest.approx(2.0 + math.log(1 + 0.8 * math.log(3)))
    assert s["p2"] == pytest.approx(2.0 * 0.5 + math.log(1 + 0.6 * math.log(2) / 2))
    assert s["p3"] == 0.0


def test_the_walk_graph_weighs_entity_passage_edges_by_share_and_links_neighbours() -> None:
    texts = {"p1": "Ada and Ada met Babbage.", "p2": "Babbage.", "p3": "London."}
    m = tri_graph_matrix([("e-ada", "Ada", ("p1",)), ("e-bab", "Babbage", ("p1", "p2"))], ["p1", "p2", "p3"], texts)
    dense = m.toarray()
    assert np.allclose(dense, dense.T)
    assert dense[0, 2] == pytest.approx(2 / 3) and dense[1, 2] == pytest.approx(1 / 3) and dense[1, 3] == 1.0
    assert dense[2, 3] == 1.0 and dense[3, 4] == 1.0 and dense[2, 4] == 0.0  # consecutive passages only
