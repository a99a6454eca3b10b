"""GraphRAG-Bench Medical: the loader, the evidence-coverage criterion (real embeddings), the CLI, the verdicts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from agrag_lab import Document, Graph
from agrag_lab.cli import main as cli_main
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.errors import DatasetError
from agrag_lab.eval import evaluate, workshop
from agrag_lab.eval.benchmark import Benchmark
from agrag_lab.eval.coverage import THRESHOLD, coverage_at, covers, split_sentences
from agrag_lab.eval.graph_help import graph_help, verdict_frame
from agrag_lab.eval.graphrag_bench import (
    PER_TYPE,
    TYPES,
    coverage_result,
    default_path,
    documents,
    is_coverage_benchmark,
    medical,
    pack,
    sample,
)

TINY = Path(__file__).parent / "data" / "graphrag_bench_medical_tiny"
try:
    FULL: Path | None = default_path()
except DatasetError:  # not on this machine ($AGRAG_GRAPHRAG_BENCH or ../shared/datasets/...)
    FULL = None

#: Hand-checked pairs from the calibration sample (datasets/graphrag_bench_medical/NOTES.md):
#: (evidence sentence, corpus sentence, does the corpus sentence state the evidence?)
PAIRS = [
    ("Basal cell carcinoma is the most common type of skin cancer.",
     "Basal cell skin cancer is the most common of all skin cancer types.", True),  # 0.959
    ("Surgery is the standard treatment for basal cell carcinoma.",
     "Surgery is the most common treatment for basal cell skin cancer.", True),  # 0.917
    ("Risk factors for basal cell carcinoma include significant sun or UV exposure.",
     "Risk factors for basal cell skin cancer include: UV light exposure – UV light (radiation) that comes from "
     "the sun or tanning beds increases your risk.", True),  # 0.926
    ("UV radiation exposure is a primary risk factor for BCC.",
     "UV radiation can harm the DNA inside basal skin cells.", False),  # 0.534
    ("The patient plans to be extra careful about sun protection.",
     "It also protects our skin from harmful ultraviolet (UV) rays.", False),  # 0.516
    ("The patient presents with a suspicious lesion on the left cheek.",
     "Here is a basal cell lesion pictured on a person's cheek.", False),  # 0.639
]


@pytest.fixture(scope="module")
def tiny(embedder: SentenceTransformerEmbedder, tmp_path_factory: pytest.TempPathFactory) -> Benchmark:
    return medical(TINY, embedder=embedder, cache=tmp_path_factory.mktemp("emb"))


def test_passages_are_whole_sentences_within_the_chunk_size() -> None:
    docs = documents(TINY)
    assert len(docs) > 5 and all(len(d.text) <= 800 or len(split_sentences(d.text)) == 1 for d in docs)
    assert docs[0].id == "medical-g01-p001" and docs[0].text.startswith("About basal cell skin cancer")
    original = json.loads((TINY / "medical.json").read_text())[0]["context"]
    assert " ".join(d.text for d in docs) == " ".join(original.split(" ")).strip()
    assert pack(["a" * 900, "b."], size=800) == ["a" * 900, "b."]


def test_loader_scores_relevance_by_coverage(tiny: Benchmark) -> None:
    assert is_coverage_benchmark(tiny)
    assert len(tiny.queries) == 8 and set(tiny.groups("type").values()) <= set(TYPES)
    first = tiny.extra["Medical-a8bad1cf"]
    assert first["evidence"][0] == "Basal cell carcinoma arises from basal cells."
    for qid, info in tiny.extra.items():
        covered = {i for ev in info["covered"].values() for i in ev}
        assert covered <= set(range(len(info["evidence"])))
        assert dict(tiny.qrels.get(qid, {})) == {d: len(ev) for d, ev in info["covered"].items()}
    assert len(tiny.judged_queries) >= 6  # the slice's evidence is in its one guideline


def test_loader_errors_are_clear(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"medical\.json is missing"):
        medical(tmp_path)
    shutil.copy(TINY / "medical.json", tmp_path / "medical.json")
    (tmp_path / "medical_questions.json").write_text('[{"id": "x", "question": "?"}]')
    with pytest.raises(DatasetError, match="lacks"):
        medical(tmp_path)
    with pytest.raises(DatasetError, match="per_type must be >= 1"):
        medical(TINY, per_type=0)


def test_coverage_criterion_on_hand_checked_pairs(embedder: SentenceTransformerEmbedder) -> None:
    evidence = embedder.embed([e for e, _, _ in PAIRS])
    sentences = embedder.embed([s for _, s, _ in PAIRS])
    cosines = np.sum(evidence * sentences, axis=1)
    for (e, s, label), cos in zip(PAIRS, cosines, strict=True):
        assert (cos >= THRESHOLD) == label, f"{cos:.3f}: {e!r} vs {s!r}"
    found = covers(evidence, sentences, np.arange(len(PAIRS)))
    assert [i in found[i] for i in range(len(PAIRS))] == [label for _, _, label in PAIRS]


def test_coverage_at_counts_each_evidence_sentence_once() -> None:
    covered = {"a": frozenset({0, 1}), "b": frozenset({1}), "c": frozenset({2})}
    assert coverage_at(("b", "a", "c"), covered, 4, k=1) == 0.25
    assert coverage_at(("b", "a", "c"), covered, 4, k=2) == 0.5
    assert coverage_at(("b", "a", "c"), covered, 4, k=10) == 0.75
    assert coverage_at((), covered, 0, k=5) == 0.0
    assert coverage_at(("a",), {"a": (0, 1)}, 2, k=1) == 1.0  # the loader stores tuples


def test_with_corpus_keeps_the_judged_documents() -> None:
    bench = workshop()
    judged = {d for q in bench.qrels for d in bench.qrels[q]}
    small = bench.with_corpus(len(judged) + 2)
    assert len(small.documents) == len(judged) + 2 and judged <= {d.id for d in small.documents}
    assert small.with_corpus(len(judged) + 2).documents == small.documents
    assert small.name == f"workshop-{len(judged) + 2}"
    with pytest.raises(DatasetError, match="cannot hold"):
        bench.with_corpus(2)


def test_cli_eval_medical_reports_coverage_by_type(
    embedder: SentenceTransformerEmbedder, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGRAG_CACHE", str(tmp_path / "cache"))
    code = cli_main(
        ["eval", "--benchmark", f"medical:{TINY}", "--index", str(tmp_path / "idx"), "--recipes", "CHUNK,GRAPH_HYBRID",
         "--out", str(tmp_path / "r")]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "(evidence coverage)" in out and "coverage@5" in out and "p(C@5)" in out
    assert "coverage@5 by group" in out and "Fact Retrieval" in out
    assert "GRAPH_HYBRID" in out and "bm25+dense" in out
    saved = json.loads(next((tmp_path / "r").glob("*.json")).read_text())
    assert saved["metrics"] == ["coverage@2", "coverage@5", "coverage@10"]


def test_coverage_result_rescores_the_rankings(tiny: Benchmark, embedder: SentenceTransformerEmbedder, tmp_path: Path) -> None:
    with Graph.open(tmp_path / "idx", embedder=embedder) as graph:
        graph.ingest(list(tiny.documents))
        result = evaluate(graph, tiny, ["CHUNK", "GRAPH_HYBRID"])
    scored = coverage_result(result, tiny)
    assert scored.reference in {"bm25", "dense", "bm25+dense"} and scored.primary == "coverage@5"
    for s in scored.systems:
        for q in scored.queries:
            info = tiny.extra[q]
            want = coverage_at(s.rankings[q], info["covered"], len(info["evidence"]), k=5)
            assert s.per_query["coverage@5"][q] == pytest.approx(want)
        assert s.mean["coverage@10"] >= s.mean["coverage@5"] >= s.mean["coverage@2"]
    rows = graph_help([scored], "GRAPH_HYBRID")
    assert rows[0].group == "all" and {r.group for r in rows[1:]} <= set(TYPES)
    frame = verdict_frame(rows)
    assert frame.height == len(rows) and set(frame["verdict"]) <= {"helps", "hurts", "no difference"}


@pytest.mark.skipif(FULL is None, reason="GraphRAG-Bench Medical is not on this machine")
def test_full_corpus_and_the_fixed_sample() -> None:
    assert FULL is not None
    docs = documents(FULL)
    assert len(docs) == 1444 and len({d.id for d in docs}) == 1444
    questions = json.loads((FULL / "medical_questions.json").read_text())
    ids = [q["id"] for q in questions if q["question_type"] == "Creative Generation"]
    drawn = sample(ids, PER_TYPE)
    assert len(drawn) == PER_TYPE and drawn == sample(list(reversed(ids)), PER_TYPE)  # file order does not matter


def test_document_ids_name_guideline_and_passage() -> None:
    doc = documents(TINY)[2]
    assert isinstance(doc, Document) and doc.id == "medical-g01-p003" and doc.metadata["guideline"] == 1
