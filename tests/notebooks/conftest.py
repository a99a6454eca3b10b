"""Indexes and a kernel environment for running the notebooks."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agrag_lab.embedding import SentenceTransformerEmbedder

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lab_env import kernel_env, musique_slice


@pytest.fixture(scope="session")
def musique_lab_path(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Path:
    """The MuSiQue slice (5 questions, 100 passages), built once per session."""
    return musique_slice(tmp_path_factory, embedder)


@pytest.fixture(scope="session")
def notebook_env(workshop_path: Path, musique_lab_path: Path) -> dict[str, str]:
    """The kernel's environment: the session's workshop index and MuSiQue slice."""
    return kernel_env(workshop_path, musique_lab_path)
