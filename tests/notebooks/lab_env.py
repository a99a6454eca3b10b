"""Helpers shared by the notebook and browser tests: the MuSiQue slice and the kernel environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.lab import MUSIQUE_ENV, MUSIQUE_QUESTIONS_ENV, WORKSHOP_ENV, prepare_musique

#: MuSiQue questions in the test slice (notebook 06 uses the 4th).
MUSIQUE_QUESTIONS = 5


def musique_slice(factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Path:
    """The MuSiQue slice index, built once per session (an idempotent build at a fixed place)."""
    path = factory.getbasetemp() / "musique-lab" / "index"
    prepare_musique(path, questions=MUSIQUE_QUESTIONS, embedder=embedder)
    return path


def kernel_env(workshop: Path, musique: Path) -> dict[str, str]:
    """What a notebook kernel needs: the indexes, offline models, and one thread for torch.

    One thread: on the 2-core test machines the test process, the kernel (and the
    browser) share the cores, and torch's default two threads then spin against each
    other (a query embedding goes from ~20 ms to over a second).
    """
    env = dict(os.environ)
    env.update({
        WORKSHOP_ENV: str(workshop), MUSIQUE_ENV: str(musique), MUSIQUE_QUESTIONS_ENV: str(MUSIQUE_QUESTIONS),
        "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False",
        "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1", "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    })
    return env
