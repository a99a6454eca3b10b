"""Loaders of every format, including bad files with clear errors."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from agrag_lab import Document
from agrag_lab.errors import DatasetError
from agrag_lab.eval import Benchmark, folder, load, musique, scifact, workshop

SCIFACT = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "scifact"


# -- Benchmark ---------------------------------------------------------------------------
def docs(*ids: str) -> tuple[Document, ...]:
    return tuple(Document(i, i.upper(), f"text of {i}") for i in ids)


def test_benchmark_checks_consistency() -> None:
    with pytest.raises(DatasetError, match="document id 'a' appears twice"):
        Benchmark("b", docs("a", "a"), {}, {})
    with pytest.raises(DatasetError, match="name query 'q9'"):
        Benchmark("b", docs("a"), {"q1": "x"}, {"q9": {"a": 1}})
    with pytest.raises(DatasetError, match="grade -1"):
        Benchmark("b", docs("a"), {"q1": "x"}, {"q1": {"a": -1}})
    with pytest.raises(DatasetError, match="has no text"):
        Benchmark("b", docs("a"), {"q1": "  "}, {"q1": {"a": 1}})


def test_benchmark_judged_queries_groups_and_subset() -> None:
    b = Benchmark(
        "b",
        docs("a", "b"),
        {"q1": "x", "q2": "y", "q3": "z"},
        {"q1": {"a": 1}, "q2": {"b": 0}},
        {"q1": {"hops": 2}, "q3": {"hops": 3}},
    )
    assert b.judged_queries == ("q1",)  # q2 judged only non-relevant, q3 unjudged
    assert b.groups() == {"q1": "2-hop"}
    small = b.subset(["q2", "q1"])
    assert list(small.queries) == ["q2", "q1"] and small.documents == b.documents
    with pytest.raises(DatasetError, match="no queries"):
        b.subset(["nope"])


# -- bundled -----------------------------------------------------------------------------
def test_musique_gold_is_supporting_passages_with_hop_types() -> None:
    b = musique()
    assert (len(b.documents), len(b.queries)) == (1890, 100)
    assert sum(len(b.relevant(q)) for q in b.queries) == 237
    hops = list(b.groups().values())
    assert (hops.count("2-hop"), hops.count("3-hop"), hops.count("4-hop")) == (68, 27, 5)
    assert b.extra["2hop__150763_14904"]["type"] == "2hop"


def test_musique_slice_keeps_its_own_passages() -> None:
    b = musique(questions=3)
    assert (len(b.documents), len(b.queries)) == (60, 3)
    ids = {d.id for d in b.documents}
    assert all(set(b.relevant(q)) <= ids for q in b.queries)
    with pytest.raises(DatasetError):
        musique(questions=0)


def test_workshop_questions_and_revisions() -> None:
    b = workshop()
    assert len(b.queries) == 20 and b.queries["q01"] == "Who worked with Babbage?"
    assert b.relevant("q01") == {"ada-lovelace": 1}
    assert [d.id for d in b.revisions] == ["analytical-engine"]
    assert set(b.groups().values()) == {"1-hop", "2-hop"}


# -- BEIR-style folder -------------------------------------------------------------------
def write_folder(root: Path, corpus: list[object], queries: list[object], qrels: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "corpus.jsonl").write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in corpus))
    (root / "queries.jsonl").write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in queries))
    (root / "qrels.tsv").write_text(qrels)
    return root


GOOD_CORPUS = [{"_id": "d1", "title": "Ada", "text": "Ada wrote Note G."}, {"_id": "d/2", "text": "Babbage."}]
GOOD_QUERIES = [{"_id": "q1", "text": "Who wrote Note G?", "metadata": {"hops": 1}}, {"_id": "q2", "text": "unjudged"}]


def test_folder_reads_beir_files(tmp_path: Path) -> None:
    root = write_folder(
        tmp_path / "mine", GOOD_CORPUS, GOOD_QUERIES, "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td/2\t0\n"
    )
    b = folder(root)
    assert b.name == "mine"
    assert [d.id for d in b.documents] == ["d1", "d_2"]  # ids made URL-safe
    assert list(b.queries) == ["q1"]  # unjudged queries dropped
    assert dict(b.qrels["q1"]) == {"d1": 2, "d_2": 0}
    assert b.groups() == {"q1": "1-hop"}
    assert load(str(root)).name == "mine"


def test_folder_reads_beir_qrels_subfolder_and_trec_lines(tmp_path: Path) -> None:
    root = write_folder(tmp_path / "b", GOOD_CORPUS, GOOD_QUERIES, "")
    (root / "qrels.tsv").unlink()
    (root / "qrels").mkdir()
    (root / "qrels" / "test.tsv").write_text("q1 Q0 d1 1\n")
    assert dict(folder(root).qrels["q1"]) == {"d1": 1}


@pytest.mark.parametrize(
    ("corpus", "queries", "qrels", "message"),
    [
        ([{"_id": "d1"}], GOOD_QUERIES, "q1\td1\t1\n", r"corpus.jsonl:1: missing field 'text'"),
        ([*GOOD_CORPUS, "{not json"], GOOD_QUERIES, "q1\td1\t1\n", r"corpus.jsonl:3: not valid JSON"),
        (
            [*GOOD_CORPUS, GOOD_CORPUS[0]],
            GOOD_QUERIES,
            "q1\td1\t1\n",
            r"corpus.jsonl:3: document id 'd1' appears twice \(first on line 1\)",
        ),
        (GOOD_CORPUS, [*GOOD_QUERIES, GOOD_QUERIES[0]], "q1\td1\t1\n", r"queries.jsonl:3: query id 'q1' appears twice"),
        (GOOD_CORPUS, [{"text": "no id"}], "q1\td1\t1\n", r"queries.jsonl:1: missing field '_id'"),
        (GOOD_CORPUS, GOOD_QUERIES, "q1\td1\t1\nq9\td1\t1\n", r"qrels.tsv:2: query id 'q9' is not in queries.jsonl"),
        (GOOD_CORPUS, GOOD_QUERIES, "q1\td7\t1\n", r"qrels.tsv:1: document id 'd7' is not in corpus.jsonl"),
        (GOOD_CORPUS, GOOD_QUERIES, "q1\td1\n", r"qrels.tsv:1: expected 3 tab-separated columns"),
        (GOOD_CORPUS, GOOD_QUERIES, "q1\td1\t1\nq1\td1\thigh\n", r"qrels.tsv:2: score 'high' is not an integer"),
        (GOOD_CORPUS, GOOD_QUERIES, "", r"qrels.tsv holds no judgements"),
    ],
)
def test_folder_bad_files_name_file_line_and_fix(
    tmp_path: Path, corpus: list[object], queries: list[object], qrels: str, message: str
) -> None:
    root = write_folder(tmp_path / "bad", corpus, queries, qrels)
    with pytest.raises(DatasetError, match=message):
        folder(root)


def test_folder_missing_file(tmp_path: Path) -> None:
    root = write_folder(tmp_path / "m", GOOD_CORPUS, GOOD_QUERIES, "q1\td1\t1\n")
    (root / "queries.jsonl").unlink()
    with pytest.raises(DatasetError, match=r"queries\.jsonl is missing"):
        folder(root)
    with pytest.raises(DatasetError, match="not a folder"):
        folder(tmp_path / "nowhere")


# -- SciFact -----------------------------------------------------------------------------
CORPUS_CSV = (
    "doc_id,title,abstract,structured\n"
    "11,First,\"['One sentence, with a comma.'\n 'Two.']\",False\n"
    "22,Second,\"['Only one.']\",True\n"
)
CLAIMS_CSV = (
    "id,claim,evidence_doc_id,evidence_label,evidence_sentences,cited_doc_ids\n"
    "1,Claim one.,11,SUPPORT,[0],[11]\n"
    "1,Claim one.,22,CONTRADICT,[0],[11 22]\n"
    "2,Claim two.,,,[],[22]\n"
)


def write_zip(path: Path, files: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return path


def test_scifact_from_a_small_zip(tmp_path: Path) -> None:
    (tmp_path / "sf").mkdir()
    write_zip(tmp_path / "sf" / "scifact.zip", {"corpus_train.csv": CORPUS_CSV, "claims_validation.csv": CLAIMS_CSV})
    b = scifact(tmp_path / "sf")
    assert [d.text for d in b.documents] == ["One sentence, with a comma. Two.", "Only one."]
    assert dict(b.queries) == {"1": "Claim one.", "2": "Claim two."}
    assert {q: dict(r) for q, r in b.qrels.items()} == {"1": {"11": 1, "22": 1}, "2": {"22": 1}}
    assert load(f"scifact:{tmp_path / 'sf'}").name == "scifact"


def test_scifact_from_extracted_csvs(tmp_path: Path) -> None:
    (tmp_path / "corpus_train.csv").write_text(CORPUS_CSV)
    (tmp_path / "claims_train.csv").write_text(CLAIMS_CSV)
    assert scifact(tmp_path, split="train").name == "scifact-train"


@pytest.mark.parametrize(
    ("claims", "message"),
    [
        (
            CLAIMS_CSV + "3,Claim three.,,,[],[99]\n",
            r"claims_validation.csv:5: cited abstract '99' is not in corpus_train.csv",
        ),
        (
            CLAIMS_CSV + "2,Another text.,,,[],[22]\n",
            r"claims_validation.csv:5: claim id '2' appears with two different texts",
        ),
        (CLAIMS_CSV + "4,Claim four.,,,[],eleven\n", r"claims_validation.csv:5: expected a list"),
        ("id,claim\n1,x\n", r"claims_validation.csv:1: missing column\(s\) \['cited_doc_ids'\]"),
    ],
)
def test_scifact_bad_files(tmp_path: Path, claims: str, message: str) -> None:
    path = write_zip(tmp_path / "s.zip", {"corpus_train.csv": CORPUS_CSV, "claims_validation.csv": claims})
    with pytest.raises(DatasetError, match=message):
        scifact(path)


def test_scifact_wrong_place_and_split(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"neither scifact\.zip"):
        scifact(tmp_path)
    with pytest.raises(DatasetError, match="unknown SciFact split"):
        scifact(tmp_path, split="test")


@pytest.mark.skipif(not SCIFACT.exists(), reason="SciFact is not available here (it is not bundled)")
def test_real_scifact_matches_beir_counts() -> None:
    b = scifact(SCIFACT)
    assert len(b.documents) == 5183
    assert len(b.queries) == 300
    assert sum(len(r) for r in b.qrels.values()) == 339


def test_load_unknown_name() -> None:
    with pytest.raises(DatasetError, match="unknown benchmark"):
        load("nope-not-here")
