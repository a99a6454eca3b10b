"""What every local embedder shares: a stable name, a model loaded once on first use, a query as one text.

Its own module so that an embedder defined outside :mod:`agrag_lab.embedding` (the optional
:mod:`agrag_lab.multilingual`) builds on it without importing the module that selects embedders.

Examples
--------
>>> class Upper(LazyModel):
...     def _load(self) -> str:
...         return "loaded"
...     def embed(self, texts):
...         import numpy as np
...         return np.array([[float(len(t))] for t in texts])
>>> model = Upper("upper")
>>> model.name, model.model, model.embed_query("abc").tolist()
('upper', 'loaded', [3.0])
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from agrag_lab.errors import EmbedderError

__all__ = ["LazyModel"]


class LazyModel:
    """What both embedders share: a stable name, a model loaded once on first use, a query as one text."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._name

    @property
    def model(self) -> Any:
        """The loaded model (loaded on first use, once, by one thread)."""
        with self._lock:
            if self._model is None:
                self._model = self._load()
            return self._model

    def _load(self) -> Any:  # pragma: no cover - every embedder defines it
        raise EmbedderError(f"{type(self).__name__} does not say how to load its model")

    def embed(self, texts: Sequence[str]) -> np.ndarray:  # pragma: no cover - every embedder defines it
        raise EmbedderError(f"{type(self).__name__} does not say how to embed")

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self.embed([text])[0]
        return vector
