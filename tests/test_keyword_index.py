"""The bm25s keyword index: quiet builds and stemmed search."""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import bm25s
import numpy as np
import pytest

from agrag_lab.errors import IndexFormatError
from agrag_lab.eval import bundled
from agrag_lab.storage.keyword import KeywordIndex, english_stopwords, tokenize


def test_build_logs_nothing_below_warning(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    index = KeywordIndex.build(["a", "b"], ["looms weave cloth", "engines compute numbers"])
    assert [k for k, _ in index.search("loom", 2)] == ["a"]
    assert not [r for r in caplog.records if r.name.startswith("bm25s")]


# --- the query path: tokens and scores equal to bm25s's, without importing it (issue 30) -----------------------

LIGHTRAG_CHUNKS = Path(__file__).parent / "fixtures" / "peers" / "lightrag" / "kv_store_text_chunks.json"


@pytest.fixture(scope="module")
def musique() -> tuple[list[str], list[str]]:
    """Real English text: the bundled MuSiQue passages (titles and texts), and its 100 questions as queries."""
    bench = bundled.musique()
    return [f"{d.title}\n{d.text}" for d in bench.documents], list(bench.queries.values())


@pytest.fixture(scope="module")
def mixed() -> tuple[list[str], list[str]]:
    """Chinese and English text written by LightRAG's real run (its chunks, cut at sentence ends), and queries."""
    chunks = [c["content"] for c in json.loads(LIGHTRAG_CHUNKS.read_text(encoding="utf-8")).values()]
    texts = [s for c in chunks for s in re.split(r"(?<=[。！？.!?])\s*", c) if s.strip()]
    return texts, ["刘备与张飞", "关羽字云长", "天下大势", "Who is Ishmael?", "张角兄弟三人 Manhatto", "Bingley's name"]


def _bm25s_reference(texts: list[str], scheme: str) -> tuple[bm25s.BM25, Callable[[list[str]], list[list[str]]]]:
    """bm25s's own index and tokenizer, called as the index called them before issue 30."""
    from agrag_lab.storage.keyword import _spaced, _stemmer

    def tokens(batch: list[str]) -> list[list[str]]:
        pattern = {"token_pattern": r"(?u)\b\w+\b"} if scheme == "cjk" else {}
        spaced = [_spaced(t) for t in batch] if scheme == "cjk" else batch
        out = bm25s.tokenize(spaced, stopwords="en", stemmer=_stemmer(), return_ids=False, show_progress=False,
                             **pattern)
        return [list(doc) for doc in out]

    retriever = bm25s.BM25(backend="numpy")
    retriever.index(tokens(texts), show_progress=False)
    return retriever, tokens


@pytest.mark.parametrize("corpus", ["musique", "mixed"])
def test_saved_index_scores_every_row_as_bm25s_does(
    corpus: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    texts, queries = request.getfixturevalue(corpus)
    ids = [f"p{i}" for i in range(len(texts))]
    KeywordIndex.build(ids, texts).save(tmp_path / "kw")
    index = KeywordIndex.load(tmp_path / "kw")
    assert index.scheme == ("en" if corpus == "musique" else "cjk")
    reference, reference_tokens = _bm25s_reference(texts, index.scheme)
    assert tokenize(texts, index.scheme) == reference_tokens(texts)
    mask = np.array([(i % 3 != 0) for i in range(len(texts))], dtype=np.float32)
    for query in queries:
        token_ids = reference.get_tokens_ids(reference_tokens([query])[0])
        assert token_ids, query
        for weights in (None, mask):
            expected = reference.get_scores_from_ids(token_ids, weight_mask=weights)
            got = index.scores(query, weights)
            assert got is not None and got.dtype == expected.dtype
            assert np.array_equal(got, expected), query
            positive = np.flatnonzero(expected > 0)
            full_sort = positive[np.lexsort((positive, -expected[positive]))]
            for limit in (1, 10, len(texts)):
                hits = index.search(query, limit, mask=weights)
                assert [h for h, _ in hits] == [ids[i] for i in full_sort[:limit]]
                assert [s for _, s in hits] == [float(expected[i]) for i in full_sort[:limit]]


def test_an_index_written_before_its_stopwords_were_recorded_reads_queries_the_same(
    musique: tuple[list[str], list[str]], tmp_path: Path
) -> None:
    texts, queries = musique
    ids = [f"p{i}" for i in range(300)]
    KeywordIndex.build(ids, texts[:300]).save(tmp_path / "kw")
    now = KeywordIndex.load(tmp_path / "kw")
    (tmp_path / "kw" / "tokenizer.json").write_text(json.dumps({"scheme": "en"}), encoding="utf-8")
    before = KeywordIndex.load(tmp_path / "kw")
    assert now.stopwords == english_stopwords() and before.stopwords is None
    for query in [*queries[:20], "What was the will of the wills?"]:
        assert before.search(query, 10) == now.search(query, 10)


def test_a_damaged_keyword_index_says_how_to_rebuild_it(tmp_path: Path) -> None:
    KeywordIndex.build(["a", "b"], ["looms weave cloth", "engines compute numbers"]).save(tmp_path / "kw")
    (tmp_path / "kw" / "bm25s" / "indptr.csc.index.npy").unlink()
    with pytest.raises(IndexFormatError, match="agrag-lab repair"):
        KeywordIndex.load(tmp_path / "kw")


def test_a_loaded_index_searches_without_importing_bm25s(tmp_path: Path) -> None:
    KeywordIndex.build(["a", "b"], ["Babbage designed engines", "Jacquard built the loom"]).save(tmp_path / "kw")
    code = (
        "import sys; from pathlib import Path; from agrag_lab.storage.keyword import KeywordIndex; "
        f"hits = KeywordIndex.load(Path({str(tmp_path / 'kw')!r})).search('Who built the loom?', 5); "
        "print(hits[0][0], [m for m in ('bm25s', 'scipy', 'tqdm') if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert done.stdout.strip() == "b []"


def test_a_corpus_segments_each_distinct_cjk_run_once_and_spaces_it_alike(mixed: tuple[list[str], list[str]]) -> None:
    from agrag_lab.storage.keyword import _CJK_RUN, _spaced

    texts, _ = mixed
    runs = [m.group() for t in texts for m in _CJK_RUN.finditer(t)]
    seen: dict[str, str] = {}
    assert [_spaced(t, seen) for t in texts] == [_spaced(t) for t in texts]
    assert sorted(seen) == sorted(set(runs)) and len(seen) < len(runs)
