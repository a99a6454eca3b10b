"""Re-rankers. The graph-distance re-rank is a pure step in
:mod:`agrag_lab.retrieval.pipeline`; this module loads cross-encoders.

Nothing is ever downloaded at run time. The built-in ``HYBRID_RERANKED`` names
:data:`DEFAULT_CROSS_ENCODER`: when that model is neither a local folder nor in
the local Hugging Face cache, no cross-encoder is configured, and the re-rank
is by graph distance instead (:func:`fallback_reason` says so; the trace's
``rerank.fallback`` and the CLI's stderr repeat it). To re-rank with a
cross-encoder, point ``rerank.model`` at a local CrossEncoder folder (or have
the default in the Hugging Face cache). A model that is configured (any other
name or path) and cannot be loaded fails with :class:`RerankerError` saying
how to configure one.
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


def on_this_machine(model: str) -> bool:
    """Whether ``model`` is a local folder or already in the local Hugging Face cache (nothing is fetched).

    Examples
    --------
    >>> on_this_machine("/no/such/folder/cross-encoder")
    False
    """
    if Path(model).exists():
        return True
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # pragma: no cover - sentence-transformers depends on it
        return False
    try:
        return isinstance(try_to_load_from_cache(model, "config.json"), str)
    except ValueError:  # not a valid repository id (e.g. a path that does not exist)
        return False


def fallback_reason(model: str | None) -> str | None:
    """Why a ``cross_encoder`` re-rank of ``model`` runs by graph distance, or None to load ``model``.

    Only an unconfigured model falls back: none given, or the built-in's
    :data:`DEFAULT_CROSS_ENCODER` when it is not on this machine. Any other
    model is loaded (and a failure is an error).

    Examples
    --------
    >>> fallback_reason(None)[:40]
    'no cross-encoder is configured (rerank.m'
    >>> fallback_reason("/models/my-cross-encoder") is None
    True
    """
    if model is not None and (model != DEFAULT_CROSS_ENCODER or on_this_machine(model)):
        return None
    named = "none is named" if model is None else f"{model!r} is not on this machine and nothing is downloaded"
    return (
        f"no cross-encoder is configured (rerank.model: {named}), so the candidates were re-ranked by graph "
        "distance to the top entity hits; set rerank.model to a local CrossEncoder folder to re-rank with a model"
    )


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
        # batches of similar lengths: each is padded to its longest pair, so less padding is less work
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        first = np.empty(len(pairs), dtype=np.float64)
        for start in range(0, len(pairs), self.batch_size):
            rows = order[start:start + self.batch_size]
            logits, _ = model.run([pairs[i] for i in rows])
            first[rows] = logits.reshape(len(logits), -1)[:, 0]
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
