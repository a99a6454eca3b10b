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
from agrag_lab.recipes.schema import RERANK_PRECISIONS

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


#: Pairs per forward pass. Batches are of pairs of similar length, each padded to its longest pair, so a smaller
#: batch pads less: on the workshop's real pools (median 118 tokens a pair, 28 % padding at 32) a pool scored in
#: batches of 8 took 0.79x the time of batches of 32 (scores within 4e-8; BENCHMARKS.md "Re-rank: the
#: cut's neighbourhood"). Session options (threads, graph optimisation level, arena, BERT fusions) gained nothing there.
BATCH_SIZE = 8

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


def local_folder(model: str) -> Path | None:
    """The local folder of ``model`` that ONNX Runtime can run: ``model`` itself, or its snapshot in the local
    Hugging Face cache, if it holds a ``tokenizer.json`` and weights; else None (nothing is fetched).

    Examples
    --------
    >>> local_folder("/no/such/folder/cross-encoder") is None
    True
    """
    path = Path(model)
    if not path.exists():
        try:
            from huggingface_hub import try_to_load_from_cache

            found = try_to_load_from_cache(model, "tokenizer.json")
            path = Path(found).parent if isinstance(found, str) else path  # the snapshot: one link per file
        except (ImportError, ValueError):
            return None
    has_weights = any((path / w).is_file() for w in ("model.safetensors", "pytorch_model.bin"))
    return path if (path / "tokenizer.json").is_file() and has_weights else None


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
    ``CrossEncoder.predict`` gives them). ``precision="int8"`` runs an int8
    copy of that graph instead (:func:`agrag_lab.onnx_models.quantize_int8`,
    made once): faster on CPU, scores within a small measured bound of the
    fp32 ones. A model name, or ``AGRAG_LAB_TORCH=1``, loads sentence-transformers'
    ``CrossEncoder`` (fp32 only). Scored pairs are cached per precision
    (:data:`PAIR_CACHE_SIZE`), and only the new ones are scored, in batches.

    Parameters
    ----------
    model
        A local CrossEncoder folder or a model name (default :data:`DEFAULT_CROSS_ENCODER`).
    device, batch_size
        For sentence-transformers (device) and both runners (pairs per forward pass, :data:`BATCH_SIZE`).
    max_length
        Tokens kept per pair on ONNX Runtime; default: what the model folder says.

    Raises
    ------
    RerankerError
        When the model cannot be loaded (on first use), or int8 is asked of a model that runs on torch.
    """

    def __init__(
        self, model: str | None = None, *, device: str = "cpu", batch_size: int = BATCH_SIZE, max_length: int | None = None
    ) -> None:
        self.model_ref = model or DEFAULT_CROSS_ENCODER
        self.device = device
        self.batch_size = batch_size
        self.max_length = max_length
        self._models: dict[str, Any] = {}
        self._onnx = False
        self._lock = threading.Lock()
        self._pairs: OrderedDict[tuple[str, str, str], float] = OrderedDict()

    def _onnx_source(self) -> Path | None:
        """The local folder to run on ONNX Runtime, or None to load the model with sentence-transformers."""
        from agrag_lab.embedding import TORCH_ENV

        if os.environ.get(TORCH_ENV, "").strip().lower() in ("1", "true", "yes"):
            return None
        return local_folder(self.model_ref)

    @property
    def model(self) -> Any:
        """The fp32 model, loaded on first use (:meth:`load`)."""
        return self.load("fp32")

    def load(self, precision: str = "fp32") -> Any:
        """The model in ``precision``, loaded (exported, quantised) on first use."""
        if precision not in RERANK_PRECISIONS:
            raise RerankerError(f"unknown precision {precision!r}; use one of {RERANK_PRECISIONS}")
        with self._lock:
            if precision not in self._models:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                source = self._onnx_source()
                if precision == "int8" and source is None:
                    raise RerankerError(
                        f"the cross-encoder {self.model_ref!r} runs on torch (a model name, or AGRAG_LAB_TORCH=1), "
                        "and int8 runs on ONNX Runtime only: set rerank.model to a local CrossEncoder folder "
                        "(and unset AGRAG_LAB_TORCH), or set rerank.precision = 'fp32'"
                    )
                try:
                    if source is not None:
                        from agrag_lab.onnx_models import OnnxEncoder, export_onnx, quantize_int8

                        folder = export_onnx(source, kind="cross-encoder")
                        if precision == "int8":
                            folder = quantize_int8(folder)
                        self._models[precision] = OnnxEncoder(folder, max_length=self.max_length)
                        self._onnx = True
                    else:
                        from sentence_transformers import CrossEncoder

                        self._models[precision] = CrossEncoder(self.model_ref, device=self.device)
                except Exception as exc:
                    raise RerankerError(
                        f"cannot load the cross-encoder {self.model_ref!r} ({type(exc).__name__}: {exc}). "
                        "This machine cannot download models: set the recipe's rerank.model to a local "
                        "CrossEncoder folder (e.g. one saved with CrossEncoder.save), or use "
                        "rerank.kind = 'graph_distance' (recipes/examples/hybrid_graph_distance.toml) "
                        "to demonstrate re-ranking offline."
                    ) from exc
            return self._models[precision]

    def _predict(self, pairs: list[tuple[str, str]], precision: str) -> np.ndarray:
        model = self.load(precision)
        if not self._onnx:
            scores = model.predict(pairs, batch_size=self.batch_size, show_progress_bar=False)
            out: np.ndarray = np.asarray(scores, dtype=np.float32).reshape(len(pairs), -1)[:, 0]
            return out
        # batches of similar lengths in tokens: each is padded to its longest pair, so less padding is less work
        encoded = model.encode(pairs)
        order = sorted(range(len(pairs)), key=lambda i: len(encoded[i].ids))
        first = np.empty(len(pairs), dtype=np.float64)
        for start in range(0, len(pairs), self.batch_size):
            rows = order[start:start + self.batch_size]
            logits, _ = model.forward([encoded[i] for i in rows])
            first[rows] = logits.reshape(len(logits), -1)[:, 0]
        return (1.0 / (1.0 + np.exp(-first))).astype(np.float32)  # CrossEncoder.predict's sigmoid (one label)

    def score(self, query: str, texts: Sequence[str], *, precision: str = "fp32") -> np.ndarray:
        """Relevance of each text to ``query`` (higher is better), by the model in ``precision``."""
        if not texts:
            return np.zeros(0, dtype=np.float32)
        with self._lock:
            missing = list(dict.fromkeys((query, t) for t in texts if (precision, query, t) not in self._pairs))
        if missing:
            fresh = self._predict(missing, precision)
            with self._lock:
                for (q, t), value in zip(missing, fresh, strict=True):
                    self._pairs[(precision, q, t)] = float(value)
                while len(self._pairs) > PAIR_CACHE_SIZE:
                    self._pairs.popitem(last=False)
        with self._lock:
            got = [self._pairs.get((precision, query, t)) for t in texts]
        if any(v is None for v in got):  # evicted by a larger batch than the cache holds
            return self._predict([(query, t) for t in texts], precision)
        return np.array(got, dtype=np.float32)
