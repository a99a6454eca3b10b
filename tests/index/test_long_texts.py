"""Texts embedded whole: a text within the window is the model's own vector; a longer one the mean of its windows."""

from __future__ import annotations

import numpy as np
import pytest

from agrag_lab.embedding import OnnxEmbedder
from agrag_lab.index.long_texts import embed_whole, windows
from agrag_lab.index.records import builder_text, relation_text


@pytest.fixture(scope="module")
def model() -> OnnxEmbedder:
    return OnnxEmbedder()


def test_windows_cover_the_text_exactly_and_end_at_spaces() -> None:
    text = " ".join(f"word{i}" for i in range(500))
    parts = windows(text, tokens=50)
    assert "".join(parts) == text
    assert len(parts) > 1 and all(len(p) <= 200 for p in parts)
    assert all(p.endswith(" ") for p in parts[:-1])


def test_a_text_within_the_window_is_embedded_as_the_model_embeds_it(model: OnnxEmbedder) -> None:
    texts = ["Scrooge:A miser of London.", "Marley:His late partner."]
    assert np.allclose(embed_whole(model, texts), model.embed(texts), atol=1e-6)


def test_a_longer_text_is_the_normalised_mean_of_its_windows(model: OnnxEmbedder) -> None:
    text = "Scrooge keeps his counting-house cold. " * 30
    parts = windows(text, tokens=40)
    mean = model.embed(parts).mean(axis=0)
    (vector,) = embed_whole(model, [text], tokens=40)
    assert np.allclose(vector, mean / np.linalg.norm(mean), atol=1e-6)
    assert not np.allclose(vector, model.embed([text])[0], atol=1e-3)  # not the truncated text's vector


def test_builder_texts_are_not_cut() -> None:
    description = "He was a tight-fisted hand at the grindstone. " * 60
    assert builder_text("graphrag", "SCROOGE", description) == f"SCROOGE:{description}"
    assert relation_text("SCROOGE", "MARLEY", "", description).endswith(description)
