"""Acceptance: build the graph of the MuSiQue corpus (1,890 passages) and measure linkage.

Each passage is one chunk of its own document (title = document title). The
measure is :func:`agrag_lab.kg.diagnostics.musique_linkage`: the share of the
100 questions whose gold passages are connected through entities within two
entity–entity hops.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from agrag_lab.documents import Chunk
from agrag_lab.graph_stores.build import build_store
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.ids import version_hash
from agrag_lab.kg.diagnostics import musique_gold_chunks, musique_linkage, summary
from agrag_lab.kg.extract.extraction import DocumentContext
from agrag_lab.kg.extract.pipeline import extract_chunks

#: The MuSiQue subset: ``$AGRAG_MUSIQUE_DIR``, else ``../shared/datasets/musique_multihop`` beside the checkout.
MUSIQUE_ENV = "AGRAG_MUSIQUE_DIR"
DATA = (
    Path(os.environ[MUSIQUE_ENV]) if os.environ.get(MUSIQUE_ENV)
    else Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "musique_multihop"
)
pytestmark = pytest.mark.skipif(
    not DATA.exists(),
    reason=f"MuSiQue subset not found at {DATA}: put it in ../shared/datasets/musique_multihop or set {MUSIQUE_ENV}",
)


@pytest.fixture(scope="module")
def musique() -> dict[str, Any]:
    corpus = json.loads((DATA / "musique_train_corpus.json").read_text(encoding="utf-8"))
    questions = json.loads((DATA / "musique_train.json").read_text(encoding="utf-8"))
    started = time.perf_counter()
    triples, chunk_id_of = [], {}
    for i, passage in enumerate(corpus):
        text = passage["text"]
        chunk = Chunk(
            f"mq-{i}",
            version_hash(text),
            0,
            text,
            0,
            len(text),
            "paragraph",
            0,
            (passage["title"],),
        )
        triples.append((chunk, DocumentContext(f"mq-{i}", passage["title"]), True))
        chunk_id_of[(passage["title"], text)] = chunk.id
    store = build_store(extract_chunks(triples))
    seconds = time.perf_counter() - started
    gold = musique_gold_chunks(questions, chunk_id_of)
    return {
        "store": store,
        "seconds": seconds,
        "gold": gold,
        "questions": questions,
        "chunk_id_of": chunk_id_of,
    }


def test_musique_build_is_sizeable(musique: dict[str, Any]) -> None:
    # its speed is measured by `make bench` (BENCHMARKS.md, "Knowledge graph"), not asserted here
    store: NetworkXGraphStore = musique["store"]
    print(f"\nMuSiQue build: {musique['seconds']:.1f} s\n{summary(store, top=5)}")
    assert len(store.graph.current_chunks) == 1890
    assert len(store.graph.entities) > 5000 and len(store.graph.edges) > 10000
    assert store.communities(0) and len(store.reports()) == len(store.communities())
    assert sum(1 for chunk, ids in store.graph.mentions.items() if ids) == 1890  # every passage links in


def test_musique_gold_passages_are_linked_within_two_hops(
    musique: dict[str, Any],
) -> None:
    store, gold = musique["store"], musique["gold"]
    shares = {hops: musique_linkage(store, gold, max_hops=hops) for hops in (0, 1, 2)}
    strict = musique_linkage(store, gold, max_hops=2, mode="all_pairs")
    print(f"\nlinkage (connected) by hops: {shares}; all pairs within 2 hops: {strict:.2f}")
    assert shares[0] <= shares[1] <= shares[2]
    assert shares[2] >= 0.85
    assert shares[0] >= 0.55  # a shared entity already links most gold sets


def test_gold_passages_link_better_than_distractors(musique: dict[str, Any]) -> None:
    """The same measure on distractor passages of the same questions, as a baseline."""
    distractors = []
    for record, gold in zip(musique["questions"], musique["gold"], strict=True):
        others = [
            musique["chunk_id_of"][(p["title"], p["paragraph_text"])]
            for p in record["paragraphs"]
            if not p["is_supporting"]
        ]
        distractors.append(tuple(others[: len(gold)]))
    store = musique["store"]
    for hops in (0, 1, 2):
        assert musique_linkage(store, musique["gold"], hops) > musique_linkage(store, distractors, hops) + 0.2
