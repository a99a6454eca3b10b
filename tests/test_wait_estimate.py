"""The time a user waits: `agrag-lab import` and `ingest` say, before each embedding stage, how many texts it
embeds, then after its first batch the minutes left at the rate measured on that batch, with a bar per stage on
stderr; nothing of it when stderr is not a terminal or with --quiet."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from agrag_lab import Graph
from agrag_lab.cli import main as cli_main
from agrag_lab.documents import Document
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.index.build import EMBED_BATCH
from agrag_lab.progress import StageBars, command_progress

LIGHTRAG = Path(__file__).resolve().parent / "fixtures" / "peers" / "lightrag_vectors"
ESTIMATE = re.compile(r"^embedding chunks: ([\d,]+) texts, first batch of (\d+) in [\d.]+ s \([\d,]+ texts/s\): "
                      r"about [\d.]+ min left$")


class Terminal(io.StringIO):
    """What a terminal is to the command: a text stream that says it is a TTY."""

    def isatty(self) -> bool:
        return True


def test_an_import_names_each_stage_and_the_texts_it_embeds(tmp_path: Path, embedder: SentenceTransformerEmbedder) -> None:
    stream = Terminal()
    bars = StageBars(stream)
    with Graph.open(tmp_path / "index", embedder=embedder) as graph:
        report = graph.import_lightrag(LIGHTRAG, progress=bars)
    chunks = json.loads((LIGHTRAG / "kv_store_text_chunks.json").read_text(encoding="utf-8"))
    distinct = len({c["content"] for c in chunks.values()})
    counted = {line.split(":")[0]: int(line.split(": ")[1].split()[0].replace(",", ""))
               for line in bars.lines if line.endswith("texts to embed")}
    assert counted["embedding chunks"] == distinct == report.chunks
    assert "embedding entities" in counted and sum(counted.values()) == report.embedded == 77
    drawn = stream.getvalue()
    for stage in ("embedding chunks", "embedding entities", "indexing chunks", "indexing entities"):
        assert stage in drawn  # its bar
    assert drawn.index("embedding chunks: 8 texts to embed") < drawn.index("indexing chunks")


def test_an_ingest_estimates_the_minutes_left_after_its_first_batch(tmp_path: Path,
                                                                   embedder: SentenceTransformerEmbedder) -> None:
    paragraphs = [f"Paragraph {n} tells of engine number {n} and of the cards that drove it." for n in range(EMBED_BATCH + 40)]
    document = Document("engines", "Engines", "\n\n".join(paragraphs))
    stream = Terminal()
    bars = StageBars(stream, prefix="agrag-lab ingest: ")
    with Graph.open(tmp_path / "index", embedder=embedder, chunk_size=80) as graph:
        report = graph.ingest([document], progress=bars)
    assert report.chunks > EMBED_BATCH  # two batches at least, so an estimate is due
    assert bars.lines[0] == f"embedding chunks: {report.chunks:,} texts to embed"
    found = ESTIMATE.match(bars.lines[1])
    assert found, bars.lines
    assert int(found[1].replace(",", "")) == report.chunks
    assert int(found[2]) == -(-report.chunks // EMBED_BATCH)
    assert "agrag-lab ingest: embedding chunks: " in stream.getvalue()


def test_no_estimate_off_a_terminal_or_when_quiet() -> None:
    assert command_progress("import", stream=io.StringIO()) is None
    assert command_progress("import", quiet=True, stream=Terminal()) is None
    bars = command_progress("ingest", stream=Terminal())
    assert isinstance(bars, StageBars) and bars.prefix == "agrag-lab ingest: "


def test_the_cli_writes_results_only_when_stderr_is_no_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ada.md").write_text("# Ada\n\nAda Lovelace wrote Note G about the Analytical Engine.\n", encoding="utf-8")
    assert cli_main(["ingest", str(tmp_path / "ada.md"), "--index", str(tmp_path / "idx")]) == 0
    captured = capsys.readouterr()  # pytest's stderr is no terminal
    assert "texts to embed" not in captured.err and "embedding chunks" not in captured.err
    assert "1 new, 0 changed" in captured.out and "1 embedded" in captured.out
