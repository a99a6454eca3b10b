"""``agrag-lab eval`` refuses an index that lacks the benchmark's judged documents (it would score 0.000, "worse,
p<0.001", when it was never comparable), names them and the fixes, and scores it anyway when told to."""

from __future__ import annotations

from pathlib import Path

import pytest

from agrag_lab import Document, Graph
from agrag_lab.cli import main as cli_main
from agrag_lab.embedding import SentenceTransformerEmbedder


@pytest.fixture
def renamed_index(tmp_path: Path, embedder: SentenceTransformerEmbedder) -> Path:
    """An index of one workshop text under an id of its own (as an import that names documents otherwise)."""
    text = (Path(__file__).resolve().parents[2] / "datasets" / "workshop" / "docs" / "note-g.md").read_text(encoding="utf-8")
    path = tmp_path / "renamed"
    with Graph.open(path, embedder=embedder) as graph:
        graph.ingest([Document("doc-0", "Note G", text)])
    return path


def test_two_indexes_where_one_lacks_the_judged_ids_are_refused_naming_it(
    workshop_path: Path, renamed_index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    code = cli_main(["eval", "--benchmark", "workshop", "--index", f"rules={workshop_path}",
                     "--index", f"imported={renamed_index}", "--recipes", "CHUNK", "--no-baselines",
                     "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert "index 'imported' lacks" in err and "none of its document ids is the benchmark's: it scores 0" in err
    assert "'doc-0'" in err and "--allow-missing-judged" in err and "index 'rules'" not in err
    assert not any((tmp_path / "out").iterdir())  # no report: nothing was scored


def test_allow_missing_judged_scores_it_with_a_warning(
    renamed_index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    code = cli_main(["eval", "--benchmark", "workshop", "--index", str(renamed_index), "--recipes", "CHUNK",
                     "--no-baselines", "--queries", "2", "--allow-missing-judged", "--out", str(tmp_path / "out")])
    captured = capsys.readouterr()
    assert code == 0
    assert "warning: index 'renamed' lacks" in captured.err and "CHUNK" in captured.out
