"""Tests for agrag_lab.retrieval.fusion: RRF with a ledger, and its conventions."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from agrag_lab.errors import AgragError, RecipeError
from agrag_lab.retrieval.fusion import (
    CONVENTIONS,
    Contribution,
    Fusion,
    get_convention,
    rrf,
)

# -- helpers and fixtures ---------------------------------------------------------


def summed(contributions: Sequence[Contribution]) -> float:
    """Add terms left to right, as the spec defines the score."""
    total = 0.0
    for c in contributions:
        total += c.term
    return total


def assert_ledger_consistent(fusion: Fusion) -> None:
    for item in fusion.items:
        assert item.score == summed(item.contributions)
        sources = [c.source for c in item.contributions]
        assert len(sources) == len(set(sources)), "one vote per source"


@pytest.fixture
def babbage() -> dict[str, list[str]]:
    """The spec's worked example, HYBRID on 'Who worked with Babbage?'."""
    return {
        "entity": [
            "charles-babbage",
            "ada-lovelace",
            "analytical-engine",
            "difference-engine",
        ],
        "chunk": ["chunk-7", "charles-babbage"],
    }


@pytest.fixture
def two_lists() -> dict[str, list[str]]:
    return {"a": ["x", "y"], "b": ["y", "z"]}


# -- the basic rules --------------------------------------------------------------


def test_item_in_two_lists_outranks_items_in_one(babbage: dict[str, list[str]]) -> None:
    fused = rrf(babbage)
    assert fused.keys[0] == "charles-babbage"
    top = fused.items[0]
    assert top.sources == ("entity", "chunk")
    assert [c.rank for c in top.contributions] == [1, 2]
    assert top.score == 1 / 61 + 1 / 62
    assert len(fused.items) == 5  # four entities and one chunk, as in the spec


def test_one_vote_at_best_rank() -> None:
    fused = rrf({"m": ["b", "a", "c", "a", "a"]}, k=10)
    a = next(item for item in fused.items if item.key == "a")
    assert len(a.contributions) == 1
    assert a.contributions[0].rank == 2
    assert a.score == 1 / 12


def test_duplicates_within_a_list_keep_their_positions() -> None:
    # the second "a" is ignored but still occupies position 2, so "b" is rank 3
    fused = rrf({"m": ["a", "a", "b"]}, k=1)
    assert fused.keys == ("a", "b")
    assert [item.contributions[0].rank for item in fused.items] == [1, 3]
    assert fused.items[1].score == 1 / 4


def test_duplicates_across_lists_merge_into_one_item() -> None:
    fused = rrf({"x": ["a", "b"], "y": ["b", "a"], "z": ["a"]})
    assert sorted(fused.keys) == ["a", "b"]
    a = fused.items[0]
    assert a.key == "a"
    assert a.sources == ("x", "y", "z")


def test_one_list_still_fuses() -> None:
    fused = rrf({"chunk": ["c3", "c1", "c3", "c2"]}, k=60)
    assert fused.keys == ("c3", "c1", "c2")
    assert [item.score for item in fused.items] == [1 / 61, 1 / 62, 1 / 64]
    assert fused.description.startswith("Reciprocal rank fusion of 1 list ")


def test_empty_inputs() -> None:
    assert rrf({}).items == ()
    assert rrf({"a": [], "b": ["x"]}).keys == ("x",)


def test_weights_scale_terms_and_missing_weight_is_one() -> None:
    fused = rrf({"a": ["x"], "b": ["y"], "c": ["z"]}, k=1, weights={"a": 2.0, "c": 0.0})
    terms = {item.key: item.contributions[0] for item in fused.items}
    assert terms["x"].term == 1.0 and terms["x"].weight == 2.0
    assert terms["y"].term == 0.5 and terms["y"].weight == 1.0
    assert terms["z"].term == 0.0  # weight 0 silences a source but keeps its items
    assert fused.keys == ("x", "y", "z")
    assert dict(fused.weights) == {"a": 2.0, "b": 1.0, "c": 0.0}


def test_weights_for_absent_sources_are_ignored() -> None:
    assert rrf({"a": ["x"]}, weights={"walk": 3.0}).items[0].score == 1 / 61


def test_weights_are_read_only() -> None:
    fused = rrf({"a": ["x"]})
    with pytest.raises(TypeError):
        fused.weights["a"] = 2.0  # type: ignore[index]


def test_terms_sum_to_score(babbage: dict[str, list[str]]) -> None:
    for name in CONVENTIONS:
        fused = rrf(babbage, weights={"chunk": 1.7}, convention=name)
        assert_ledger_consistent(fused)


def test_scores_are_descending(babbage: dict[str, list[str]]) -> None:
    scores = [item.score for item in rrf(babbage).items]
    assert scores == sorted(scores, reverse=True)


# -- tie-breaking -----------------------------------------------------------------


def test_tie_broken_by_best_rank() -> None:
    # with k=1, "late" scores 2/(1+3) and "early" 1/(1+1): both exactly 0.5
    fused = rrf({"s2": ["x", "y", "late"], "s1": ["early"]}, k=1, weights={"s2": 2.0})
    late, early = (
        next(i for i in fused.items if i.key == key) for key in ("late", "early")
    )
    assert late.score == early.score == 0.5
    assert fused.keys.index("early") < fused.keys.index("late")


def test_tie_broken_by_number_of_sources() -> None:
    # "solo" gets 1/2 from one source; "pair" gets 1/4 + 1/4 from two, both at rank 1
    fused = rrf(
        {"s1": ["solo"], "s2": ["pair"], "s3": ["pair"]},
        k=1,
        weights={"s2": 0.5, "s3": 0.5},
    )
    assert fused.keys == ("pair", "solo")
    assert fused.items[0].score == fused.items[1].score


def test_tie_broken_by_first_appearance_not_by_key() -> None:
    assert rrf({"s1": ["zeta"], "s2": ["alpha"]}).keys == ("zeta", "alpha")
    assert rrf({"s2": ["alpha"], "s1": ["zeta"]}).keys == ("alpha", "zeta")
    # within one source, position decides (and rank decides first anyway)
    assert rrf({"s1": ["zeta", "alpha"]}).keys == ("zeta", "alpha")


def test_fusion_is_deterministic(babbage: dict[str, list[str]]) -> None:
    runs = [rrf(babbage, weights={"chunk": 2.0}) for _ in range(3)]
    assert runs[0] == runs[1] == runs[2]
    assert runs[0].to_dict() == runs[1].to_dict()


# -- conventions, by hand ---------------------------------------------------------


def scores_of(fusion: Fusion) -> dict[str, float]:
    return {item.key: item.score for item in fusion.items}


@pytest.mark.parametrize(
    ("convention", "expected"),
    [
        # w / (k + r), ranks from 1, weights used
        ("paper", {"x": 1 / 61, "y": 1 / 62 + 3 / 61, "z": 3 / 62}),
        # 1 / (k + r), ranks from 1, weights ignored
        ("ranx", {"x": 1 / 61, "y": 1 / 62 + 1 / 61, "z": 1 / 62}),
        # 1 / (k + r0), ranks from 0, weights ignored
        ("llamaindex", {"x": 1 / 60, "y": 1 / 61 + 1 / 60, "z": 1 / 61}),
        ("pyterrier", {"x": 1 / 60, "y": 1 / 61 + 1 / 60, "z": 1 / 61}),
        # shares s = (1/4, 3/4), n = 2, constant 61, ranks from 0, divided by n/61
        (
            "haystack",
            {
                "x": (0.25 * 2 / 61) / (2 / 61),
                "y": (0.25 * 2 / 62) / (2 / 61) + (0.75 * 2 / 61) / (2 / 61),
                "z": (0.75 * 2 / 62) / (2 / 61),
            },
        ),
    ],
)
def test_convention_formula_by_hand(
    two_lists: dict[str, list[str]], convention: str, expected: Mapping[str, float]
) -> None:
    fused = rrf(two_lists, k=60, weights={"b": 3.0}, convention=convention)
    got = scores_of(fused)
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert math.isclose(got[key], value, rel_tol=1e-12), (key, got[key], value)
    assert fused.convention == convention
    assert_ledger_consistent(fused)


def test_zero_based_conventions_record_effective_rank() -> None:
    for name in ("llamaindex", "pyterrier", "haystack"):
        c = rrf({"a": ["x", "y"]}, convention=name).items[1].contributions[0]
        assert (c.rank, c.effective_rank) == (2, 1.0)
    c = rrf({"a": ["x", "y"]}, convention="paper").items[1].contributions[0]
    assert (c.rank, c.effective_rank) == (2, 2.0)


def test_haystack_first_everywhere_scores_one_and_weights_are_shares() -> None:
    fused = rrf({"a": ["x"], "b": ["x"], "c": ["x"]}, convention="haystack")
    assert math.isclose(fused.items[0].score, 1.0, rel_tol=1e-12)
    assert [c.weight for c in fused.items[0].contributions] == [1 / 3] * 3
    weighted = rrf(
        {"a": ["x"], "b": ["y"]}, weights={"a": 1, "b": 3}, convention="haystack"
    )
    assert dict(weighted.weights) == {"a": 0.25, "b": 0.75}


def test_haystack_k_is_one_more_than_given() -> None:
    # Haystack hard-codes 61 = 60 + 1; rank 0 in one of two lists, equal weights:
    # (0.5 * 2 / 61) / (2 / 61) = 0.5, and rank 1 gives 0.5 * 61 / 62
    fused = rrf({"a": ["x", "y"], "b": []}, k=60, convention="haystack")
    assert math.isclose(fused.items[0].score, 0.5, rel_tol=1e-12)
    assert math.isclose(fused.items[1].score, 0.5 * 61 / 62, rel_tol=1e-12)


def test_llamaindex_k60_acts_as_paper_k59() -> None:
    lists = {"a": ["x", "y", "z"], "b": ["z", "w"]}
    llama = scores_of(rrf(lists, k=60, convention="llamaindex"))
    paper = scores_of(rrf(lists, k=59, convention="paper"))
    assert llama == paper


def test_ignored_weights_are_reported_in_description() -> None:
    fused = rrf({"a": ["x"], "b": ["y"]}, weights={"a": 2.0}, convention="ranx")
    assert "ignored" in fused.description
    assert all(c.weight == 1.0 for i in fused.items for c in i.contributions)
    assert "ignored" not in rrf({"a": ["x"]}, convention="ranx").description


def test_every_convention_is_documented() -> None:
    for name, convention in CONVENTIONS.items():
        assert convention.name == name
        assert convention.rank_base in (0, 1)
        assert convention.library in convention.description
        assert "/" in convention.formula
        description = rrf({"a": ["x"]}, convention=name).description
        assert name in description and description.endswith(".")
        assert description.replace("et al.", "et al").count(". ") == 0, "one sentence"


def test_convention_term_matches_rrf() -> None:
    for name, convention in CONVENTIONS.items():
        fused = rrf({"a": ["x", "y", "z"]}, k=30, convention=name)
        for item in fused.items:
            c = item.contributions[0]
            assert convention.term(c.rank, k=30, weight=c.weight, n_lists=1) == c.term


# -- errors -----------------------------------------------------------------------


def test_unknown_convention_names_the_known_ones() -> None:
    with pytest.raises(RecipeError) as info:
        rrf({"a": ["x"]}, convention="elastic")
    assert set(info.value.problems) == {"convention"}
    for name in CONVENTIONS:
        assert repr(name) in str(info.value)
    with pytest.raises(RecipeError):
        get_convention("Paper")


@pytest.mark.parametrize("k", [0, -1.0, math.inf, math.nan, True, "60"])
def test_bad_k(k: object) -> None:
    with pytest.raises(RecipeError) as info:
        rrf({"a": ["x"]}, k=k)  # type: ignore[arg-type]
    assert "k" in info.value.problems


def test_bad_weights_are_all_reported() -> None:
    with pytest.raises(RecipeError) as info:
        rrf({"a": ["x"]}, k=0, weights={"a": -1.0, "b": math.nan})
    assert set(info.value.problems) == {"k", "weights.a", "weights.b"}
    assert isinstance(info.value, ValueError) and isinstance(info.value, AgragError)


def test_haystack_needs_a_positive_weight() -> None:
    with pytest.raises(RecipeError) as info:
        rrf({"a": ["x"]}, weights={"a": 0.0}, convention="haystack")
    assert "weights" in info.value.problems


# -- parity with ranx -------------------------------------------------------------


def test_ranx_parity() -> None:
    ranx = pytest.importorskip("ranx")
    rng = np.random.default_rng(20090719)
    n_queries, n_items, pool = 6, 100, 250
    sources = ("bm25", "dense", "entity")
    lists: dict[str, dict[str, list[str]]] = {
        q: {} for q in (f"q{i}" for i in range(n_queries))
    }
    runs = []
    for source in sources:
        run_dict: dict[str, dict[str, float]] = {}
        for query, per_source in lists.items():
            docs = [f"d{j}" for j in rng.choice(pool, size=n_items, replace=False)]
            scores = np.sort(rng.uniform(0.0, 100.0, size=n_items))[::-1].tolist()
            # distinct scores, so the ranking ranx derives from them is our list order
            assert len(set(scores)) == n_items
            per_source[source] = docs
            run_dict[query] = dict(zip(docs, scores, strict=True))
        runs.append(ranx.Run(run_dict, name=source))

    # RRF reads ranks only, so no score normalisation (as the evaluation's own ranx.fuse call)
    fused = ranx.fuse(runs=runs, norm=None, method="rrf", params={"k": 60}).to_dict()

    for query, per_source in lists.items():
        ours = rrf(per_source, k=60, convention="ranx")
        theirs = fused[query]
        assert set(ours.keys) == set(theirs)
        for item in ours.items:
            assert abs(item.score - theirs[item.key]) <= 1e-9
        # same order: ranx sorts by score (ties in arbitrary order), so compare
        # the score sequence, and the set of keys within each tie group
        their_order = sorted(theirs, key=lambda key: -theirs[key])
        assert [round(s, 12) for s in (item.score for item in ours.items)] == [
            round(theirs[key], 12) for key in their_order
        ]
        groups_ours: dict[float, set[str]] = {}
        groups_theirs: dict[float, set[str]] = {}
        for item in ours.items:
            groups_ours.setdefault(item.score, set()).add(item.key)
        for key in their_order:
            groups_theirs.setdefault(theirs[key], set()).add(key)
        assert groups_ours == groups_theirs
        untied = [item.key for item in ours.items if len(groups_ours[item.score]) == 1]
        assert untied == [
            key for key in their_order if len(groups_theirs[theirs[key]]) == 1
        ]


@pytest.mark.filterwarnings("ignore:unsafe cast from uint64 to int64")
@pytest.mark.parametrize("seed", [7, 1791])
@pytest.mark.parametrize("k", [1, 10, 60, 100.5])
@pytest.mark.parametrize("weighted", [False, True])
def test_ranx_convention_equals_ranx_fuse_exactly(seed: int, k: float, weighted: bool) -> None:
    """Random runs of 2-4 sources with short and overlapping lists: the same scores, to the bit,
    and the same order (ranx leaves ties in arbitrary order: compared as tie groups in score order).
    Weights given to the ranx convention are ignored, as ranx's rrf takes none."""
    ranx = pytest.importorskip("ranx")
    rng = np.random.default_rng(seed)
    n_sources = int(rng.integers(2, 5))
    sources = [f"s{i}" for i in range(n_sources)]
    queries = [f"q{i}" for i in range(5)]
    lists: dict[str, dict[str, list[str]]] = {q: {} for q in queries}
    runs = []
    for source in sources:
        run_dict: dict[str, dict[str, float]] = {}
        for query in queries:
            size = int(rng.integers(1, 40))
            docs = [f"d{j}" for j in rng.choice(60, size=size, replace=False)]
            scores = np.sort(rng.uniform(0.0, 10.0, size=size))[::-1].tolist()
            assert len(set(scores)) == size  # distinct: ranx's ranking by score is our list order
            lists[query][source] = docs
            run_dict[query] = dict(zip(docs, scores, strict=True))
        runs.append(ranx.Run(run_dict, name=source))
    weights = {s: float(w) for s, w in zip(sources, rng.uniform(0.1, 3.0, size=n_sources), strict=True)}
    fused = ranx.fuse(runs=runs, method="rrf", params={"k": k}).to_dict()
    for query in queries:
        ours = rrf(lists[query], k=k, weights=weights if weighted else None, convention="ranx")
        theirs = fused[query]
        assert {i.key: i.score for i in ours.items} == theirs  # exact floats
        order = sorted(theirs.values(), reverse=True)
        assert [i.score for i in ours.items] == order
        ties_ours: dict[float, set[str]] = {}
        ties_theirs: dict[float, set[str]] = {}
        for item in ours.items:
            ties_ours.setdefault(item.score, set()).add(item.key)
        for key, score in theirs.items():
            ties_theirs.setdefault(score, set()).add(key)
        assert ties_ours == ties_theirs


# -- properties -------------------------------------------------------------------

_keys = st.sampled_from([f"k{i}" for i in range(12)])
_sources = st.sampled_from(["entity", "chunk", "community", "walk", "bm25"])


@settings(max_examples=200, deadline=None, database=None)
@given(
    lists=st.dictionaries(_sources, st.lists(_keys, max_size=15), max_size=5),
    k=st.floats(min_value=0.01, max_value=1e4),
    weights=st.none()
    | st.dictionaries(_sources, st.floats(min_value=0.0, max_value=10.0)),
    convention=st.sampled_from(sorted(CONVENTIONS)),
)
def test_properties(
    lists: dict[str, list[str]],
    k: float,
    weights: dict[str, float] | None,
    convention: str,
) -> None:
    if convention == "haystack" and lists:
        assume(sum((weights or {}).get(s, 1.0) for s in lists) > 0)
    fused = rrf(lists, k=k, weights=weights, convention=convention)
    assert_ledger_consistent(fused)
    keys = fused.keys
    assert len(keys) == len(set(keys))
    assert set(keys) == {key for values in lists.values() for key in values}
    for item in fused.items:
        for c in item.contributions:
            assert c.rank == lists[c.source].index(item.key) + 1
            assert c.term >= 0
    scores = [item.score for item in fused.items]
    assert scores == sorted(scores, reverse=True)
    assert rrf(lists, k=k, weights=weights, convention=convention) == fused


def reference_rrf(
    lists: Mapping[str, Sequence[str]],
    k: float,
    weights: Mapping[str, float] | None,
    convention: str,
) -> dict[str, object]:
    """The rules of the module docstring, one vote at a time in plain Python (the
    implementation before fusion was vectorised): the oracle for :func:`rrf`'s ledger."""
    conv = CONVENTIONS[convention]
    sources = list(lists)
    requested = {s: float((weights or {}).get(s, 1.0)) for s in sources}
    if not conv.uses_weights:
        applied = dict.fromkeys(sources, 1.0)
    elif conv.weight_normalisation == "sum":
        applied = {s: w / sum(requested.values()) for s, w in requested.items()}
    else:
        applied = requested
    votes: dict[str, list[dict[str, object]]] = {}
    first_seen: dict[str, int] = {}
    for source in sources:
        seen: set[str] = set()
        for position, key in enumerate(lists[source], 1):
            if key in seen:
                continue
            seen.add(key)
            term = conv.term(position, k=k, weight=applied[source], n_lists=len(sources))
            vote = {
                "source": source,
                "rank": position,
                "effective_rank": float(conv.effective_rank(position)),
                "weight": applied[source],
                "term": term,
            }
            votes.setdefault(key, []).append(vote)
            first_seen.setdefault(key, len(first_seen))
    rows = []
    for key, bucket in votes.items():
        score = 0.0
        for vote in bucket:
            score += vote["term"]  # type: ignore[operator]
        best = min(vote["rank"] for vote in bucket)  # type: ignore[type-var]
        rows.append((-score, best, -len(bucket), first_seen[key], key, bucket))
    rows.sort(key=lambda row: row[:4])
    return {
        "weights": applied,
        "items": [{"key": r[4], "score": -r[0], "contributions": r[5]} for r in rows],
    }


_tie_keys = st.sampled_from(["a", "b", "c", "d", "e", "f"])


@settings(max_examples=300, deadline=None, database=None)
@given(
    lists=st.dictionaries(
        st.sampled_from(["entity", "chunk", "community", "walk"]),
        st.lists(_tie_keys, max_size=12),
        max_size=4,
    ),
    # small integer k and weights make exact ties in the fused score common
    k=st.integers(min_value=1, max_value=4) | st.floats(min_value=0.5, max_value=100.0),
    weights=st.none()
    | st.dictionaries(
        st.sampled_from(["entity", "chunk", "community", "walk"]),
        st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0]),
    ),
    convention=st.sampled_from(sorted(CONVENTIONS)),
)
def test_vectorised_rrf_equals_one_vote_at_a_time(
    lists: dict[str, list[str]],
    k: float,
    weights: dict[str, float] | None,
    convention: str,
) -> None:
    """Random runs with duplicates, shared keys and ties: the same order, scores and ledger,
    to the bit, as adding the votes one at a time."""
    if convention == "haystack" and lists:
        assume(sum((weights or {}).get(s, 1.0) for s in lists) > 0)
    fused = rrf(lists, k=k, weights=weights, convention=convention)
    expected = reference_rrf(lists, float(k), weights, convention)
    got = fused.to_dict()
    assert got["weights"] == expected["weights"]
    assert got["items"] == expected["items"]
    assert fused.keys == tuple(item.key for item in fused.items)
    assert list(fused.scores.items()) == [(item.key, item.score) for item in fused.items]


def test_ledger_columns_equal_the_items() -> None:
    fused = rrf({"a": ["x", "y", "x"], "b": ["y", "z"]}, k=1, weights={"b": 2.0})
    assert fused.keys == ("y", "z", "x")
    assert fused.ranks == ((2, 0, 1), (1, 2, 0))  # 0: the source did not find it
    assert fused.terms == ((1 / 3, 0.0, 1 / 2), (1.0, 2 / 3, 0.0))
    assert fused.fused_scores == (1 / 3 + 1.0, 2 / 3, 1 / 2)
    assert fused.items is fused.items  # built once


# -- speed ------------------------------------------------------------------------


def test_refusing_three_lists_of_100_is_fast() -> None:
    rng = np.random.default_rng(7)
    lists = {
        s: [f"d{j}" for j in rng.choice(250, size=100, replace=False)] for s in "abc"
    }
    best = math.inf
    for _ in range(20):
        start = time.perf_counter()
        rrf(lists, k=60, weights={"a": 2.0})
        best = min(best, time.perf_counter() - start)
    assert best < 0.005, f"best of 20 re-fusions took {best * 1000:.2f} ms"
