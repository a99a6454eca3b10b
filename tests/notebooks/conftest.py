"""Indexes and a kernel environment for running the notebooks."""

from __future__ import annotations

from pathlib import Path

import pytest

from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.lab import kernel_env, prepare_carol, prepare_musique

#: --doctest-modules would import this file as a module named "conftest", which clashes with
#: the other conftest.py files of tests/ (not packages); pytest loads it as a plugin anyway.
collect_ignore = ["conftest.py"]

#: MuSiQue questions in the test slice (notebook 06 uses the 4th).
MUSIQUE_QUESTIONS = 5


@pytest.fixture(scope="session")
def musique_lab_path(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Path:
    """The MuSiQue slice (5 questions, 100 passages), built once per session.

    The place is fixed under the session's base folder, and the build is
    idempotent, so the browser tests' fixture of the same name reuses it.
    """
    path = tmp_path_factory.getbasetemp() / "musique-lab" / "index"
    return prepare_musique(path, questions=MUSIQUE_QUESTIONS, embedder=embedder)


@pytest.fixture(scope="session")
def carol_lab_path(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Path:
    """The bundled GraphRAG 3.x output imported once per session (the import tests' folder: shared)."""
    return prepare_carol(tmp_path_factory.getbasetemp() / "carol-v3" / "index", embedder=embedder)


@pytest.fixture(scope="session")
def notebook_env(workshop_path: Path, musique_lab_path: Path, carol_lab_path: Path) -> dict[str, str]:
    """The kernel's environment: this session's indexes, offline models, one torch thread.

    One thread: on 2-core machines the test process, the kernel (and, in the browser
    tests, JupyterLab and Chromium) share the cores, and torch's default two threads
    then spin against each other (a query embedding goes from ~20 ms to over a second).
    """
    return kernel_env(workshop_path, musique_lab_path, questions=MUSIQUE_QUESTIONS, threads=1, carol=carol_lab_path)
