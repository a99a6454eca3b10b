"""Issue 19 item 5: readers see one consistent generation, or are told the index is mid-sync.

A real ingest runs in a subprocess that kills itself with SIGKILL at a named
progress step (the descriptions :class:`~agrag_lab.progress.Progress` is
given). Killed before its documents commit, the old state stays whole and
no reader is warned; killed after (while the graph's stores are written),
every read-only run says on ``trace.warnings`` and in the CLI that the index
is mid-sync, and the next writable open completes it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agrag_lab import Graph, cli, recipes

ROOT = Path(__file__).resolve().parents[2]

#: The child: ingest two new documents, dying by SIGKILL when the progress step named by argv[2] starts.
CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from agrag_lab import Document, Graph

    def progress(items, total, description):
        if description == sys.argv[2]:
            os.kill(os.getpid(), signal.SIGKILL)
        return items

    docs = [
        Document("difference", "Difference Engine", "# Difference Engine\\n\\nCharles Babbage built the "
                 "Difference Engine with Joseph Clement in London."),
        Document("menabrea", "Luigi Menabrea", "# Luigi Menabrea\\n\\nLuigi Menabrea wrote about the "
                 "Analytical Engine; Ada Lovelace translated it."),
    ]
    with Graph.open(sys.argv[1]) as g:
        g.ingest(docs, progress=progress)
    """
)


def _ingest_killed_at(path: Path, step: str) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", CHILD, str(path), step], env=env, cwd=ROOT, timeout=600,
                          capture_output=True, text=True, check=False)
    assert done.returncode == -signal.SIGKILL, done.stderr


def test_killed_before_its_documents_commit_the_old_state_stays_whole(tiny_index: Path, embedder: object) -> None:
    with Graph.open(tiny_index, embedder=embedder, read_only=True) as ro:  # type: ignore[arg-type]
        before = ro.stats()
    _ingest_killed_at(tiny_index, "embedding chunks")
    with Graph.open(tiny_index, embedder=embedder, read_only=True) as ro:  # type: ignore[arg-type]
        assert ro.stats() == before
        assert ro.engine().run("Who worked with Babbage?", recipes.HYBRID).trace.warnings == ()


@pytest.mark.parametrize("step", ["indexing entities", "indexing communities"])
def test_killed_mid_sync_every_reader_is_told_and_a_writable_open_completes_it(
    tiny_index: Path, embedder: object, step: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _ingest_killed_at(tiny_index, step)
    with Graph.open(tiny_index, embedder=embedder, read_only=True) as ro:  # type: ignore[arg-type]
        assert ro.stats()["documents"] == 5  # SQLite holds the new documents ...
        run = ro.engine().run("Who built the Difference Engine?", recipes.HYBRID)
        (warning, *_) = run.trace.warnings  # ... while the graph's stores are old: today, not a word
        assert "mid-sync" in warning and "generation 2" in warning and "generation 1" in warning
        assert run.refuse(k=10).trace.warnings == run.trace.warnings
        assert type(run.trace).from_dict(run.trace.to_dict()).warnings == run.trace.warnings
    assert cli.main(["search", "Who built the Difference Engine?", "--index", str(tiny_index)]) == 0
    assert "agrag-lab search: warning: the index" in capsys.readouterr().err
    with Graph.open(tiny_index, embedder=embedder) as g:  # type: ignore[arg-type]  # completes the sync
        assert g.derived_generation() == g.db.generation() == 2
    with Graph.open(tiny_index, embedder=embedder, read_only=True) as ro:  # type: ignore[arg-type]
        run = ro.engine().run("Who built the Difference Engine?", recipes.HYBRID)
        assert run.trace.warnings == ()
        assert any(r.id.startswith("difference@") for r in run.results)
