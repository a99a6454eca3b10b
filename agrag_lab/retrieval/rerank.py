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
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agrag_lab.errors import RerankerError

#: The model HYBRID_RERANKED names by default.
DEFAULT_CROSS_ENCODER = "cross-encoder/ms-marco-MiniLM-L-6-v2"


def save_untrained_cross_encoder(path: str | os.PathLike[str], *, seed: int = 0) -> str:
    """Save a CrossEncoder of the real architecture with an *untrained* scoring head.

    It is the bundled MiniLM encoder (:func:`agrag_lab.embedding.default_model_path`)
    with a fresh, seeded one-label head: it costs what a MiniLM-L6 cross-encoder
    costs, so offline tests and latency benchmarks can run ``HYBRID_RERANKED``
    with it, but its scores rank nothing meaningfully. For real re-ranking point
    ``rerank.model`` at a trained model's folder (``recipes/README.md``).

    Parameters
    ----------
    path
        Folder to write (created).
    seed
        Seed of the head's initial weights, so two calls save the same model.

    Returns
    -------
    str
        ``path``, for ``recipe.replace(**{"rerank.model": ...})``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = save_untrained_cross_encoder(pathlib.Path(tempfile.mkdtemp()) / "ce")
    >>> CrossEncoderReranker(folder).score("Who designed the engine?", ["Babbage designed it."]).shape
    (1,)
    """
    import torch
    from sentence_transformers import CrossEncoder

    from agrag_lab.embedding import default_model_path

    torch.manual_seed(seed)
    CrossEncoder(default_model_path(), num_labels=1, device="cpu").save(str(path))
    return str(path)


#: Scored (query, text) pairs a reranker keeps: a query asked again (a slider moved, a recipe
#: compared) costs no forward pass.
PAIR_CACHE_SIZE = 4096


class CrossEncoderReranker:
    """A CrossEncoder from a model name or local path; a local folder runs on ONNX Runtime.

    A local folder (one with a ``tokenizer.json``, e.g. saved with
    ``CrossEncoder.save``) is exported to ONNX once per machine
    (:func:`agrag_lab.onnx_models.export_onnx`) and run without torch; its
    scores are the CrossEncoder's (a sigmoid over the one logit, as
    ``CrossEncoder.predict`` gives them). A model name, or ``AGRAG_LAB_TORCH=1``,
    loads sentence-transformers' ``CrossEncoder``. Scored pairs are cached
    (:data:`PAIR_CACHE_SIZE`), and only the new ones are scored, in batches.

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
        self._onnx = False
        self._lock = threading.Lock()
        self._pairs: OrderedDict[tuple[str, str], float] = OrderedDict()

    def _use_onnx(self) -> bool:
        from agrag_lab.embedding import TORCH_ENV

        torch_asked = os.environ.get(TORCH_ENV, "").strip().lower() in ("1", "true", "yes")
        return not torch_asked and (Path(self.model_ref) / "tokenizer.json").is_file()

    @property
    def model(self) -> Any:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                try:
                    if self._use_onnx():
                        from agrag_lab.onnx_models import OnnxEncoder, export_onnx

                        self._model = OnnxEncoder(export_onnx(self.model_ref, kind="cross-encoder"))
                        self._onnx = True
                    else:
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

    def _predict(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        model = self.model
        if not self._onnx:
            scores = model.predict(pairs, batch_size=self.batch_size, show_progress_bar=False)
            out: np.ndarray = np.asarray(scores, dtype=np.float32).reshape(len(pairs), -1)[:, 0]
            return out
        parts = []
        for start in range(0, len(pairs), self.batch_size):
            logits, _ = model.run(pairs[start:start + self.batch_size])
            parts.append(logits.reshape(len(logits), -1)[:, 0])
        first = np.concatenate(parts).astype(np.float64)
        return (1.0 / (1.0 + np.exp(-first))).astype(np.float32)  # CrossEncoder.predict's sigmoid (one label)

    def score(self, query: str, texts: Sequence[str]) -> np.ndarray:
        """Relevance of each text to ``query`` (higher is better)."""
        if not texts:
            return np.zeros(0, dtype=np.float32)
        with self._lock:
            missing = list(dict.fromkeys((query, t) for t in texts if (query, t) not in self._pairs))
        if missing:
            fresh = self._predict(missing)
            with self._lock:
                for pair, value in zip(missing, fresh, strict=True):
                    self._pairs[pair] = float(value)
                while len(self._pairs) > PAIR_CACHE_SIZE:
                    self._pairs.popitem(last=False)
        with self._lock:
            got = [self._pairs.get((query, t)) for t in texts]
        if any(v is None for v in got):  # evicted by a larger batch than the cache holds
            return self._predict([(query, t) for t in texts])
        return np.array(got, dtype=np.float32)
