"""The demo, end to end on small data: a copy of the workshop index and a MuSiQue slice."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import pytest

from agrag_lab import demo, embedding
from agrag_lab.eval import bundled
from agrag_lab.eval.bundled import musique


def test_side_by_side_aligns_columns() -> None:
    text = demo.side_by_side(
        {"CHUNK": ["[C] a very long title that will be cut", "[C] b"], "HYBRID": ["[E] x"]}, width=12
    )
    lines = text.splitlines()
    assert lines[0].startswith("#   CHUNK") and lines[0].index("HYBRID") == 16
    assert lines[1].startswith("1   [C] a very") and "…" in lines[1]
    assert lines[2].rstrip() == "2   [C] b"


def test_demo_main_prints_comparisons_and_table_and_writes_the_report(
    tmp_path: Path,
    workshop_path: Path,
    embedder: embedding.Embedder,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = tmp_path / "idx"
    shutil.copytree(workshop_path, root / "workshop")  # cached: nothing to embed again
    monkeypatch.setattr(bundled, "musique", lambda: musique(questions=3))
    monkeypatch.setattr(embedding, "SentenceTransformerEmbedder", lambda: embedder)
    report = tmp_path / "reports" / "demo.html"
    assert demo.main(argparse.Namespace(index_root=str(root), report=str(report))) == 0
    captured = capsys.readouterr()
    out = captured.out
    for question in demo.DEMO_QUESTIONS:
        assert repr(question) in out
    for name in ("ENTITY", "CHUNK", "HYBRID", "GRAPH_EXPAND", "THEMATIC"):
        assert f"{name}, top hit:" in out
    assert "fused score" in out  # explanations printed
    assert "musique-3: 3 queries; reference = " in out and "bm25+dense" in out
    assert "1/4 indexes" in captured.err and "done" in captured.err  # progress on stderr
    page = report.read_text()
    assert "Why HYBRID ranked what it did" in page and "CHUNK → HYBRID" in page and "Recall@5 per system" in page
    assert (tmp_path / "reports" / "eval" / "musique-3.json").exists()
    # a second run finds everything cached
    assert demo.main(argparse.Namespace(index_root=str(root), report=str(report))) == 0
    assert "0 new, 0 changed" in capsys.readouterr().err
