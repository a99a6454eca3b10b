"""Issue 19 item 1: a bad document value never wedges the index.

Every document is checked completely before anything is written, an ingest is
all-or-nothing per call, and a writable open never fails because of one stored
document: it can always be removed (``agrag-lab remove ID``).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from agrag_lab import Document, Graph, cli
from agrag_lab.errors import DocumentError
from agrag_lab.index.build import prepare_document
from agrag_lab.loaders import load_file

#: The exact input of the issue.
BAD_LINE = '{"id":"e1","title":"X","text":"Ada met Babbage.","metadata":{"entities":"Ada"}}'


def _stored_ids(path: Path) -> set[str]:
    with sqlite3.connect(path / "documents.sqlite") as conn:
        return {r[0] for r in conn.execute("SELECT id FROM documents")}


def test_the_issue_line_is_refused_by_the_cli_and_nothing_is_written(
    tiny_index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(BAD_LINE + "\n")
    before = _stored_ids(tiny_index)
    assert cli.main(["ingest", str(bad), "--index", str(tiny_index)]) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl:1: document 'e1': metadata['entities'] must be a list of mappings, got str" in err
    assert _stored_ids(tiny_index) == before  # not committed (today it was, and wedged every later open)


def test_the_api_refuses_the_document_before_any_write(tiny_index: Path, embedder: object) -> None:
    for metadata, message in (
        ({"entities": "Ada"}, r"metadata\['entities'\] must be a list of mappings, got str"),
        ({"relations": [{"source": "Ada"}]}, r"metadata\['relations'\]\[0\] needs 'target'"),
        ({"entities": [{"name": ""}]}, r"metadata\['entities'\]\[0\] needs 'name'"),
        ({"entities": ["Ada"]}, r"metadata\['entities'\]\[0\] must be a mapping"),
        ({"entities": [{"name": "Ada", "aliases": "Augusta"}]}, r"metadata\['entities'\]\[0\]\['aliases'\] must be a list of strings"),
    ):
        with pytest.raises(DocumentError, match="document 'e1': " + message):
            Document("e1", "X", "Ada met Babbage.", metadata=metadata)
    with Graph.open(tiny_index, embedder=embedder) as g:  # type: ignore[arg-type]
        before, generation = g.stats(), g.db.generation()
        good = Document("good", "Good", "Charles Babbage met Ada Lovelace in London.")
        with pytest.raises(DocumentError, match="appears twice"):
            g.ingest([good, Document("lovelace", "Ada", "Other text."), Document("lovelace", "Ada", "Again.")])
        assert g.stats() == before and g.db.generation() == generation  # all or nothing: `good` is not in
        assert g.db.document("good") is None


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ('["era", "victorian"]', "metadata must be a mapping of names to values.*not list"),
        ('"victorian"', "metadata must be a mapping of names to values.*not str"),
        ('{"entities": [{"name": "Ada\\ud800"}]}', r"metadata\['entities'\]\[0\]\['name'\] holds a character UTF-8"),
        # one entity not in a list: was "metadata['entities'][0] must be a mapping ..., got str" (its first key)
        ('{"entities": {"name": "Ada"}}', r"metadata\['entities'\] must be a list of mappings, got dict \(a list even"),
        # Python's json reads NaN, and Chroma then drops the record's metadata: scope filters never match it
        ('{"score": NaN}', "metadata 'score' is nan, which no filter can match; give a finite number"),
    ],
)
def test_jsonl_metadata_of_the_wrong_shape_is_a_document_error(tmp_path: Path, metadata: str, message: str) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text('{"id": "ok", "text": "fine"}\n{"id": "m1", "text": "Ada", "metadata": ' + metadata + "}\n")
    with pytest.raises(DocumentError, match=r"m\.jsonl:2: .*" + message):
        load_file(path)


def test_a_stored_bad_document_never_wedges_a_writable_open_and_can_be_removed(
    tiny_index: Path, embedder: object, capsys: pytest.CaptureFixture[str]
) -> None:
    # what an index written before the check holds: the bad document committed, its graph never built
    bad = Document("e1", "X", "Ada met Babbage.")
    with Graph.open(tiny_index, embedder=embedder) as g, g.db.transaction() as conn:  # type: ignore[arg-type]
        v = prepare_document(bad, g.chunk_size)
        g.db.put_version(
            conn, document_id="e1", title="X", fmt="markdown", metadata={"entities": "Ada"}, version=v.version,
            text=bad.text, sections=v.sections, chunks=v.chunks, content_hashes=v.hashes,
        )
        g.db.bump_generation(conn)
    g = Graph.open(tiny_index, embedder=embedder)  # type: ignore[arg-type]  # today: KnowledgeGraphError, every time
    try:
        assert g.derived_generation() == g.db.generation()  # the build completed without its facts
        assert "e1" in g._build.unreadable_facts
        assert any(k.startswith("e1@") for k, _ in g.keyword_index("chunks").search("Ada met Babbage", 5))
    finally:
        g.close()
    assert cli.main(["remove", "e1", "--index", str(tiny_index)]) == 0
    assert "e1 removed" in capsys.readouterr().out
    with Graph.open(tiny_index, embedder=embedder, read_only=True) as ro:  # type: ignore[arg-type]
        assert not any(k.startswith("e1@") for k, _ in ro.keyword_index("chunks").search("Ada met Babbage", 5))
        assert ro.db.versions("e1")  # still fetchable by id
    assert json.loads(json.dumps(sorted(_stored_ids(tiny_index)))) == ["babbage", "e1", "jacquard", "lovelace"]
