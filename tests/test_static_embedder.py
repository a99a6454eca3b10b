"""Static embeddings (model2vec): an index built with them is searched with them, and refuses another model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agrag_lab import Document, Graph
from agrag_lab.embedding import (
    STATIC_DEFAULT_NAME,
    SentenceTransformerEmbedder,
    StaticEmbedder,
    default_model_path,
    embedder_for,
)
from agrag_lab.errors import EmbedderError
from agrag_lab.recipes import CHUNK


@pytest.fixture(scope="module")
def static_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real model2vec StaticModel made in a second: the bundled model's own token table.

    :func:`agrag_lab.embedding.distill_static_model` makes the better one (a forward pass per
    token, minutes on 2 cores); this one has the same tokenizer and format, so every code path
    that loads and uses a static model runs.
    """
    from model2vec import StaticModel
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    source = Path(default_model_path())
    table = load_file(str(source / "model.safetensors"))
    vectors = next(v for k, v in table.items() if k.endswith("word_embeddings.weight"))
    folder = tmp_path_factory.mktemp("static") / "minilm-token-table"
    StaticModel(vectors=vectors.astype(np.float32), tokenizer=Tokenizer.from_file(str(source / "tokenizer.json")),
                normalize=True).save_pretrained(str(folder))
    return folder


def test_a_static_embedder_gives_unit_vectors_that_rank_the_matching_text_first(static_model: Path) -> None:
    embedder = StaticEmbedder(static_model)
    texts = ["Charles Babbage designed the Difference Engine.", "The cat sat on the mat in the kitchen."]
    vectors = embedder.embed(texts)
    assert vectors.shape == (2, embedder.dimension) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    scores = vectors @ embedder.embed_query("Who designed the Difference Engine?")
    assert scores[0] > scores[1]


def test_an_index_built_with_static_embeddings_is_searched_with_them(
    tmp_path: Path, static_model: Path, small_docs: list[Document]
) -> None:
    path = tmp_path / "static-index"
    with Graph.open(path, embedder=StaticEmbedder(static_model)) as graph:
        graph.ingest(small_docs)
        stored = graph.stats()
    with Graph.open(path, embedder=StaticEmbedder(static_model), read_only=True) as graph:
        assert graph.stats() == stored
        run = graph.engine().run("Who designed the Difference Engine?", CHUNK)
        assert run.results and run.results[0].document_id == "babbage"
        assert not run.trace.warnings
    with pytest.raises(EmbedderError, match="built with the embedding model 'static-minilm-token-table'"):
        Graph.open(path, read_only=True)  # no embedder given, and a custom model cannot be found by name
    with Graph.open(path, embedder=SentenceTransformerEmbedder(), read_only=True) as graph:  # asked for: warned
        run = graph.engine().run("Who designed the Difference Engine?", CHUNK)
        assert any("static-minilm-token-table" in w for w in run.trace.warnings)


def test_the_index_names_the_static_model_it_can_rebuild() -> None:
    assert isinstance(embedder_for(STATIC_DEFAULT_NAME), StaticEmbedder)
    assert embedder_for(None).name == "all-MiniLM-L6-v2"
