"""Re-rankers. The graph-distance re-rank is a pure step in
:mod:`agrag_lab.retrieval.pipeline`; this module loads cross-encoders.

No trained cross-encoder can be downloaded on an offline machine: a recipe
that asks for one that cannot be loaded fails with :class:`RerankerError`
saying how to configure a model. To demonstrate re-ranking offline, use
``recipes/examples/hybrid_graph_distance.toml`` (``rerank.kind =
"graph_distance"``), or point ``rerank.model`` at a local CrossEncoder folder.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from agrag_lab.errors import RerankerError

#: The model HYBRID_RERANKED names by default.
DEFAULT_CROSS_ENCODER = "cross-encoder/ms-marco-MiniLM-L-6-v2"


class CrossEncoderReranker:
    """A sentence-transformers ``CrossEncoder`` from a model name or local path.

    Raises
    ------
    RerankerError
        When the model cannot be loaded (on first use).
    """

    def __init__(self, model: str | None = None, *, device: str = "cpu", batch_size: int = 32) -> None:
        self.model_ref = model or DEFAULT_CROSS_ENCODER
        self.device = device
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def model(self) -> Any:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                try:
                    from sentence_transformers import CrossEncoder

                    self._model = CrossEncoder(self.model_ref, device=self.device)
                except Exception as exc:
                    raise RerankerError(
                        f"cannot load the cross-encoder {self.model_ref!r} ({type(exc).__name__}: {exc}). "
                        "This machine cannot download models: set the recipe's rerank.model to a local "
                        "CrossEncoder folder (e.g. one saved with CrossEncoder.save), or use "
                        "rerank.kind = 'graph_distance' (recipes/examples/hybrid_graph_distance.toml) "
                        "to demonstrate re-ranking offline."
                    ) from exc
            return self._model

    def score(self, query: str, texts: Sequence[str]) -> np.ndarray:
        """Relevance of each text to ``query`` (higher is better)."""
        if not texts:
            return np.zeros(0, dtype=np.float32)
        pairs = [(query, t) for t in texts]
        scores = self.model.predict(pairs, batch_size=self.batch_size, show_progress_bar=False)
        return np.asarray(scores, dtype=np.float32).reshape(len(texts), -1)[:, 0]
